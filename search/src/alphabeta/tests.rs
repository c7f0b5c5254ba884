//! The alpha-beta engine: forced wins, legality, determinism, and deeper beating shallower.

use super::{AlphaBeta, AlphaBetaConfig, Limit, WIN};
use crate::test_positions::{position, two_for_one_shot};
use draughts::{Color, DrawRules, Game, Outcome, Position};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::Duration;

fn engine() -> AlphaBeta {
    AlphaBeta::new(&AlphaBetaConfig { tt_bits: 14 })
}

#[test]
fn finds_the_two_for_one_shot() {
    let best = engine().best_move_in(&two_for_one_shot(), Limit::Depth(6)).unwrap();
    assert_eq!(best.mv.to_string(), "9-14");
    assert_eq!(best.score, WIN - 3, "a win in three plies");
    let pv: Vec<String> = best.pv.iter().map(ToString::to_string).collect();
    assert_eq!(pv, ["9-14", "17x10", "6x15x24"]);
}

#[test]
fn takes_the_jump_path_that_takes_most() {
    // The king on 1 jumps 6 and then either 14 (1x10x17) or 15 and 23 (1x10x19x26).
    let pos = position(&[1], &[6, 14, 15, 23], &[1], Color::Black);
    let best = engine().best_move_in(&pos, Limit::Depth(4)).unwrap();
    assert_eq!(best.mv.to_string(), "1x10x19x26");
    assert!(best.score > 0);
}

#[test]
fn same_depth_same_answer() {
    let mut rng = StdRng::seed_from_u64(17);
    let game = random_game(&mut rng, 12);
    let mut a = engine();
    let first = a.best_move(&game, Limit::Depth(5)).unwrap();
    let _ = a.best_move(&random_game(&mut rng, 20), Limit::Depth(5));
    assert_eq!(a.best_move(&game, Limit::Depth(5)).unwrap(), first);
    assert_eq!(engine().best_move(&game, Limit::Depth(5)).unwrap(), first);
}

#[test]
fn never_plays_an_illegal_move() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut ab = engine();
    for _ in 0..150 {
        let plies = rng.random_range(0..60);
        let game = random_game(&mut rng, plies);
        let legal = game.position().legal_moves();
        match ab.best_move(&game, Limit::Depth(3)) {
            Some(best) => {
                assert!(legal.contains(&best.mv), "{} in\n{}", best.mv, game.position());
                let mut line = game.clone();
                for &mv in &best.pv {
                    line.play(mv).expect("the principal variation is legal");
                }
            }
            None => assert!(legal.is_empty()),
        }
    }
}

#[test]
fn a_time_limit_returns_a_legal_move() {
    let game = Game::new(Position::start(), DrawRules::default());
    let best = engine().best_move(&game, Limit::Time(Duration::from_millis(30))).unwrap();
    assert!(game.position().legal_moves().contains(&best.mv));
    assert!(best.depth >= 1);
}

#[test]
fn deeper_search_beats_shallower() {
    let mut rng = StdRng::seed_from_u64(23);
    let (mut deep_points, mut games) = (0.0, 0);
    for _ in 0..4 {
        let opening = random_game(&mut rng, 4);
        for deep_side in [Color::Black, Color::White] {
            let outcome = play_out(opening.clone(), deep_side, 4, 1);
            deep_points += (outcome.score_for(deep_side) as f64 + 1.0) / 2.0;
            games += 1;
        }
    }
    assert!(
        deep_points / games as f64 > 0.6,
        "depth 4 scored {deep_points} of {games} against depth 1"
    );
}

/// Plays `game` to its end: `deep_side` searches `deep` plies, the other `shallow`.
fn play_out(mut game: Game, deep_side: Color, deep: u32, shallow: u32) -> Outcome {
    let mut engines = [engine(), engine()];
    loop {
        if let Some(outcome) = game.outcome() {
            return outcome;
        }
        let side = game.position().side_to_move();
        let depth = if side == deep_side { deep } else { shallow };
        let best = engines[side.index()].best_move(&game, Limit::Depth(depth)).unwrap();
        game.play(best.mv).unwrap();
    }
}

/// A game of `plies` random moves from the start (fewer if it ends), with a short ply cap.
fn random_game(rng: &mut StdRng, plies: usize) -> Game {
    let mut game =
        Game::new(Position::start(), DrawRules { max_plies: 160, ..DrawRules::default() });
    for _ in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let moves = game.position().legal_moves();
        game.play(moves[rng.random_range(0..moves.len())]).unwrap();
    }
    game
}
