//! The step-by-step view of moves: distinct steps at every decision point, and each legal move
//! reachable by taking its steps.

use crate::support::{fen, random_game};
use draughts::{Position, Step, Turn};
use proptest::prelude::*;

/// Checks the decision points of every legal move of `pos`.
fn check_turns(pos: &Position) {
    let mover = pos.side_to_move();
    for &mv in pos.legal_moves().iter() {
        let mut turn = Turn::new(*pos);
        let mut finished = None;
        for (i, step) in mv.steps().enumerate() {
            let legal = turn.legal_steps();
            let mut indices: Vec<usize> = legal.iter().map(|s| s.index_for(mover)).collect();
            indices.sort_unstable();
            indices.dedup();
            assert_eq!(indices.len(), legal.len(), "steps share a policy index in {pos:?}");
            assert!(legal.contains(&step), "{mv} step {i} is not offered");
            assert_eq!(Step::from_index(step.index_for(mover), mover), Some(step));
            assert!(finished.is_none(), "{mv} finished early");
            finished = turn.take(step).expect("a step of a legal move is legal");
        }
        assert_eq!(finished, Some(mv));
    }
}

#[test]
fn two_jump_paths_from_one_square_are_told_apart() {
    let pos = fen("W:WK7:B10,11,18,19");
    let turn = Turn::new(pos);
    let steps = turn.legal_steps();
    assert_eq!(steps.len(), 2);
    assert_ne!(steps[0].index_for(pos.side_to_move()), steps[1].index_for(pos.side_to_move()));
    let mut turn = turn.clone();
    assert_eq!(turn.take(steps[0]), Ok(None));
    assert_eq!(turn.moves().len(), 1);
    assert!(turn.moving_piece().is_some());
    check_turns(&pos);
}

#[test]
fn an_illegal_step_is_refused() {
    let mut turn = Turn::new(Position::start());
    let step =
        Step { square: draughts::Square::from_pdn(1).unwrap(), dir: draughts::Direction::DownLeft };
    assert!(turn.take(step).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::property_cases(200)))]

    #[test]
    fn every_legal_move_is_a_distinct_step_sequence(seed in any::<u64>()) {
        for (pos, _) in random_game(Position::start(), seed, 200) {
            check_turns(&pos);
        }
    }
}

#[test]
fn the_board_mid_capture_shows_the_moving_king_where_it_stands() {
    // Regression: the learner saw the capturing piece still on its start square mid-capture, so it
    // could not tell which piece was moving nor whether it was a king.
    let pos = fen("W:WK7:B10,11,18,19");
    let mut turn = Turn::new(pos);
    assert_eq!(turn.board_now(), pos);
    let step = turn.legal_steps()[0];
    turn.take(step).unwrap();
    let at = turn.moving_piece().unwrap();
    let now = turn.board_now();
    assert_eq!(now.piece_at(at), Some((draughts::Color::White, true)));
    assert_eq!(now.piece_at(step.square), None);
    assert_eq!(
        now.pieces(draughts::Color::Black),
        pos.pieces(draughts::Color::Black),
        "jumped pieces stay until the move ends"
    );
    assert_eq!(now.side_to_move(), pos.side_to_move());
}
