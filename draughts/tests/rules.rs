//! Each rule of `rules.md`, pinned with a hand-made position.

use crate::support::{fen, move_texts};
use draughts::{
    perft, perft_unique, Color, DrawReason, DrawRules, Game, IllegalMove, Outcome, Position,
    Square, WinReason,
};

fn sq(n: u8) -> Square {
    Square::from_pdn(n).unwrap()
}

#[test]
fn men_cannot_capture_backwards() {
    assert_eq!(move_texts(&fen("B:W10:B14")), ["14-17", "14-18"]);
    assert_eq!(move_texts(&fen("W:W14:B18")), ["14-10", "14-9"]);
}

#[test]
fn kings_capture_backwards() {
    assert_eq!(move_texts(&fen("B:W10:BK14")), ["14x7"]);
    assert_eq!(move_texts(&fen("W:WK14:B18")), ["14x23"]);
}

#[test]
fn men_move_forward_only_and_kings_both_ways() {
    assert_eq!(move_texts(&fen("B:W32:B14")), ["14-17", "14-18"]);
    assert_eq!(move_texts(&fen("B:W32:BK14")), ["14-10", "14-17", "14-18", "14-9"]);
}

#[test]
fn crowning_ends_the_move() {
    // The man lands on 31 and is crowned; as a king it could jump 27 next, but the move is over.
    let pos = fen("B:W26,27:B22");
    assert_eq!(move_texts(&pos), ["22x31"]);
    let after = pos.play(pos.legal_moves()[0]);
    assert_eq!(after.piece_at(sq(31)), Some((Color::Black, true)));
    assert_eq!(after.piece_at(sq(27)), Some((Color::White, false)));
    // A simple move onto the back row crowns too.
    let after = fen("W:W5:B20").play(fen("W:W5:B20").parse_move("5-1").unwrap());
    assert_eq!(after.piece_at(sq(1)), Some((Color::White, true)));
}

#[test]
fn a_king_already_crowned_jumps_on_from_the_back_row() {
    assert_eq!(move_texts(&fen("B:W26,27:BK22")), ["22x31x24"]);
}

/// Regression: `Position::play` used to toggle the from and to squares, so a capture ending where
/// it started removed the king.
#[test]
fn king_multi_jump_cycle_has_two_paths_to_one_position() {
    let pos = fen("W:WK7:B10,11,18,19");
    assert_eq!(move_texts(&pos), ["7x14x23x16x7", "7x16x23x14x7"]);
    let moves = pos.legal_moves();
    assert_ne!(moves[0], moves[1]);
    assert!(moves.iter().all(|mv| mv.jump_count() == 4 && mv.from() == sq(7) && mv.to() == sq(7)));
    assert_eq!(pos.play(moves[0]), pos.play(moves[1]));
    assert_eq!(pos.play(moves[0]).to_fen(), "B:WK7:B");
    assert_eq!((perft(&pos, 1), perft_unique(&pos, 1)), (2, 1));
}

#[test]
fn free_choice_among_captures() {
    // A one-piece capture is legal beside a two-piece capture (no majority rule).
    assert_eq!(move_texts(&fen("B:W14,15,23:B10")), ["10x17", "10x19x26"]);
}

#[test]
fn a_started_capture_must_be_finished() {
    assert_eq!(move_texts(&fen("B:W14,23:B9")), ["9x18x27"]);
}

#[test]
fn capture_is_compulsory() {
    let pos = fen("B:W18:B1,14");
    assert!(pos.has_capture());
    assert_eq!(move_texts(&pos), ["14x23"]);
}

#[test]
fn blocked_side_loses() {
    let pos = fen("W:W32:B23,27,28");
    assert!(pos.legal_moves().is_empty());
    assert!(pos.is_lost());
    let game = Game::new(pos, DrawRules::default());
    assert_eq!(
        game.outcome(),
        Some(Outcome::Win { winner: Color::Black, reason: WinReason::NoMoves })
    );
}

#[test]
fn side_without_pieces_loses() {
    let game = Game::new(fen("W:W:B1"), DrawRules::default());
    assert_eq!(
        game.outcome(),
        Some(Outcome::Win { winner: Color::Black, reason: WinReason::NoPieces })
    );
}

fn play_all(game: &mut Game, moves: &[&str]) {
    for text in moves {
        let mv = game.position().parse_move(text).unwrap_or_else(|e| panic!("{e}"));
        game.play(mv).unwrap();
    }
}

const SHUFFLE: [&str; 4] = ["1-5", "32-28", "5-1", "28-32"];

#[test]
fn threefold_repetition_draws() {
    let rules = DrawRules { repetitions: 3, no_progress_moves: 0, max_plies: 0 };
    let mut game = Game::new(fen("B:WK32:BK1"), rules);
    play_all(&mut game, &SHUFFLE);
    assert_eq!(game.repetitions(), 1);
    assert_eq!(game.outcome(), None);
    play_all(&mut game, &SHUFFLE[..3]);
    assert_eq!(game.outcome(), None);
    play_all(&mut game, &SHUFFLE[3..]);
    assert_eq!(game.repetitions(), 2);
    assert_eq!(game.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
}

#[test]
fn no_progress_rule_counts_moves_of_each_side_and_resets_on_a_man_move() {
    let rules = DrawRules { repetitions: 0, no_progress_moves: 2, max_plies: 0 };
    let mut game = Game::new(fen("B:WK32,29:BK1"), rules);
    play_all(&mut game, &SHUFFLE[..3]);
    assert_eq!(game.outcome(), None);
    play_all(&mut game, &["29-25"]); // a man's move resets the count
    assert_eq!(game.no_progress_plies(), 0);
    play_all(&mut game, &["1-5", "28-32", "5-1"]);
    assert_eq!(game.outcome(), None);
    play_all(&mut game, &["32-28"]);
    assert_eq!(game.outcome(), Some(Outcome::Draw(DrawReason::NoProgress)));
    // Play that goes on past the rule: the same game under the rules without it.
    let on = game.under(rules.without(DrawReason::NoProgress));
    assert_eq!((on.outcome(), on.moves(), on.position()), (None, game.moves(), game.position()));
    assert_eq!(on.no_progress_plies(), game.no_progress_plies());
    let acf = Game::new(fen("B:WK32:BK1"), DrawRules::default());
    assert_eq!(acf.rules().no_progress_moves, 40);
}

#[test]
fn ply_cap_draws() {
    let rules = DrawRules { repetitions: 0, no_progress_moves: 0, max_plies: 4 };
    let mut game = Game::new(draughts::Position::start(), rules);
    play_all(&mut game, &["11-15", "23-19", "8-11"]);
    assert_eq!(game.outcome(), None);
    play_all(&mut game, &["22-17"]);
    assert_eq!(game.outcome(), Some(Outcome::Draw(DrawReason::PlyCap)));
}

#[test]
fn unique_perft_merges_only_capture_paths_to_one_position() {
    let start = draughts::Position::start();
    for depth in 1..=7 {
        assert_eq!(perft_unique(&start, depth), perft(&start, depth), "depth {depth}");
    }
    assert!(perft_unique(&start, 9) <= perft(&start, 9));
}

#[test]
fn a_move_of_another_position_is_refused_by_the_checked_forms() {
    let start = Position::start();
    let elsewhere = fen("W:W21,22:B1,2").legal_moves()[0];
    assert!(!start.legal_moves().contains(&elsewhere));
    assert_eq!(start.try_play(elsewhere), Err(IllegalMove { mv: elsewhere }));
    let legal = start.legal_moves()[0];
    assert_eq!(start.try_play(legal), Ok(start.play_unchecked(legal)));
    let panic = std::panic::catch_unwind(|| start.play(elsewhere)).unwrap_err();
    let message = panic.downcast_ref::<String>().expect("a formatted panic message");
    assert!(message.contains("is not a legal move"), "{message}");
}
