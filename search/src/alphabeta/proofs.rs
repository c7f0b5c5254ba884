//! The full engine against known results: wins the endgame tables prove with long lines, found
//! by search alone with their exact length; shots (a man given up so that a multi-jump takes
//! more back) found in positions of random games; and, with the tables, their answers.

use super::{AlphaBeta, AlphaBetaConfig, Limit, WIN, WON};
use draughts::{Bitboard, Color, DrawRules, Game, Move, Position, Square};
use egdb::{Tables, Wdl};
use std::sync::Arc;
use support::SplitMix64;

/// Tables for up to 4 pieces, built once for the whole test run.
fn tables() -> Arc<Tables> {
    crate::test_positions::tables_up_to(4)
}

fn full_engine() -> AlphaBeta {
    AlphaBeta::new(&AlphaBetaConfig::full(18))
}

/// A random legal position of four pieces (two a side, men or kings), Black or White to move.
fn random_four(rng: &mut SplitMix64) -> Option<Position> {
    let mut squares: Vec<u8> = (1..=32).collect();
    let mut pick = || squares.swap_remove(rng.below(squares.len() as u64) as usize);
    let (b, w): (Vec<u8>, Vec<u8>) =
        ((0..2).map(|_| pick()).collect(), (0..2).map(|_| pick()).collect());
    let board = |s: &[u8]| s.iter().map(|&n| Square::from_pdn(n).unwrap()).collect::<Bitboard>();
    // A man on the row where it would be crowned is a king.
    let crowned = (board(&b) & Position::crown_row(Color::Black))
        | (board(&w) & Position::crown_row(Color::White));
    let kings = (Bitboard(rng.next_u64() as u32) & (board(&b) | board(&w))) | crowned;
    let side = if rng.below(2) == 0 { Color::Black } else { Color::White };
    Position::new(board(&b), board(&w), kings, side).ok()
}

/// The full engine without late-move reductions or pruning: every line to the depth asked, so a
/// win is found at exactly its length.
fn unreduced_engine() -> AlphaBeta {
    let mut config = AlphaBetaConfig::full(18);
    config.features.reductions = false;
    config.features.verified_pruning = 0;
    AlphaBeta::new(&config)
}

/// Positions of four pieces that the tables say are won in 9 to 13 plies, with that distance.
fn deep_table_wins(tables: &Tables, seed: u64) -> impl Iterator<Item = (Position, u32)> + '_ {
    let mut rng = SplitMix64::new(seed);
    std::iter::from_fn(move || loop {
        let Some(position) = random_four(&mut rng) else { continue };
        if position.legal_moves().len() < 2 || tables.probe(&position) != Some(Wdl::Win) {
            continue;
        }
        let Some(distance) = tables.distance(&position).map(u32::from) else { continue };
        if (9..=13).contains(&distance) {
            return Some((position, distance));
        }
    })
}

/// `engine`'s answer to a position won in `distance` plies, searched `extra` plies deeper, is
/// a win at most `extra` plies longer whose move keeps it.
fn keeps_the_win(engine: &mut AlphaBeta, tables: &Tables, position: &Position, distance: u32) {
    let extra = 6;
    let best = engine.best_move_in(position, Limit::Depth(distance + extra)).unwrap();
    assert!(best.score >= WIN - (distance + extra) as i32, "{position}: {}", best.score);
    assert_eq!(tables.probe(&position.play(best.mv)), Some(Wdl::Loss), "{position}");
}

#[test]
fn the_search_alone_proves_deep_table_wins_with_their_exact_length() {
    let tables = tables();
    let mut longest = 0;
    for (position, distance) in deep_table_wins(&tables, 46).take(100) {
        let best = unreduced_engine().best_move_in(&position, Limit::Depth(distance)).unwrap();
        assert_eq!(best.score, WIN - distance as i32, "{position}: a win in {distance} plies");
        let after = position.play(best.mv);
        assert_eq!(tables.probe(&after), Some(Wdl::Loss), "{position}: {} keeps the win", best.mv);
        assert_eq!(tables.distance(&after).map(u32::from), Some(distance - 1), "{position}");
        // With reductions the win is still found and kept, perhaps a little longer.
        keeps_the_win(&mut full_engine(), &tables, &position, distance);
        longest = longest.max(distance);
    }
    assert_eq!(longest, 13);
}

/// Men of `color` less the opponent's, after `position` (kings count as men here).
fn material(position: &Position, color: Color) -> i32 {
    position.pieces(color).count() as i32 - position.pieces(color.other()).count() as i32
}

/// The least material the mover of `position` gains by playing `mv` (a quiet move), the
/// opponent's every capture reply and the mover's best multi-jump then, after which the opponent
/// has no capture: the gain of a shot; `None` when `mv` is not one.
fn shot_gain(position: &Position, mv: Move) -> Option<i32> {
    let mover = position.side_to_move();
    let after = position.play(mv);
    let replies = after.legal_moves();
    if mv.is_capture() || replies.is_empty() || !replies[0].is_capture() {
        return None;
    }
    replies
        .iter()
        .map(|&reply| {
            let back = after.play(reply);
            let recaptures = back.legal_moves();
            recaptures
                .iter()
                .filter(|r| r.jump_count() >= 2)
                .map(|&r| back.play(r))
                .filter(|end| end.legal_moves().first().is_none_or(|m| !m.is_capture()))
                .map(|end| material(&end, mover) - material(position, mover))
                .max()
        })
        .try_fold(i32::MAX, |worst, gain| Some(worst.min(gain?)))
}

#[test]
fn the_engine_finds_shots_where_a_man_given_up_wins_more_by_a_multi_jump() {
    let mut rng = SplitMix64::new(4646);
    let mut found = 0;
    for _ in 0..4000 {
        if found == 25 {
            break;
        }
        let mut game = Game::new(Position::start(), DrawRules::default());
        for _ in 0..(10 + rng.below(40)) {
            let moves = game.position().legal_moves();
            if moves.is_empty() || game.outcome().is_some() {
                break;
            }
            game.play(moves[rng.below(moves.len() as u64) as usize]).unwrap();
        }
        let position = *game.position();
        let moves = position.legal_moves();
        let shots = moves.iter().filter(|&&mv| shot_gain(&position, mv).is_some_and(|g| g >= 1));
        if moves.len() < 2 || moves[0].is_capture() || shots.count() == 0 {
            continue;
        }
        // The engine plays a shot, or sees a man's worth or more elsewhere.
        let best = full_engine().best_move(&game, Limit::Depth(8)).unwrap();
        let gain = shot_gain(&position, best.mv).unwrap_or(0);
        assert!(gain >= 1 || best.score >= 100, "{position}: {} misses the shot", best.mv);
        found += 1;
    }
    assert_eq!(found, 25, "shot positions found");
}

#[test]
fn with_the_tables_a_covered_root_gets_their_move_and_proven_value() {
    let tables = tables();
    let mut engine = full_engine().with_tables(Some(Arc::clone(&tables)));
    let mut rng = SplitMix64::new(7);
    let mut checked = 0;
    while checked < 200 {
        let Some(position) = random_four(&mut rng) else { continue };
        let Some(probe) = crate::table_probe(&tables, &position) else { continue };
        let best = engine.best_move_in(&position, Limit::Depth(4)).unwrap();
        assert_eq!(Some(best.mv), probe.best, "{position}");
        let expected = match probe.wdl {
            Wdl::Win => 1,
            Wdl::Draw => 0,
            Wdl::Loss => -1,
        };
        assert_eq!(best.score.signum(), expected, "{position}");
        assert!(best.score == 0 || best.score.abs() >= WON, "{position}: a proven value");
        checked += 1;
    }
}

#[test]
fn table_positions_inside_the_search_are_scored_by_the_tables() {
    // Five pieces: the root is not covered, every capture leads into the 4-piece tables.
    let tables = tables();
    let mut rng = SplitMix64::new(9);
    let mut checked = 0;
    for _ in 0..20_000 {
        if checked == 30 {
            break;
        }
        let Some(four) = random_four(&mut rng) else { continue };
        let free: Vec<Square> = Square::all().filter(|&s| !four.occupied().contains(s)).collect();
        let extra = Bitboard::from_square(free[rng.below(free.len() as u64) as usize]);
        let mover = four.side_to_move();
        let (black, white) = match mover {
            Color::Black => (four.pieces(Color::Black) | extra, four.pieces(Color::White)),
            Color::White => (four.pieces(Color::Black), four.pieces(Color::White) | extra),
        };
        let crowned = (black & Position::crown_row(Color::Black))
            | (white & Position::crown_row(Color::White));
        let kings = four.kings(Color::Black) | four.kings(Color::White) | crowned;
        let Ok(position) = Position::new(black, white, kings, mover) else { continue };
        let moves = position.legal_moves();
        if moves.is_empty() || !moves.iter().all(|m| m.is_capture()) {
            continue;
        }
        // Every move captures into the tables: the best is the best of their values.
        let value = |mv: &Move| match tables.probe(&position.play(*mv)) {
            Some(Wdl::Loss) => 1,
            Some(Wdl::Draw) => 0,
            Some(Wdl::Win) => -1,
            None => panic!("{}: a 4-piece position is covered", position.play(*mv)),
        };
        let expected = moves.iter().map(value).max().unwrap();
        let mut engine = full_engine().with_tables(Some(Arc::clone(&tables)));
        let best = engine.best_move_in(&position, Limit::Depth(1)).unwrap();
        assert_eq!(value(&best.mv), expected, "{position}");
        assert_eq!(best.score.signum(), expected, "{position}");
        checked += 1;
    }
    assert_eq!(checked, 30);
}

#[test]
fn on_three_threads_the_engine_still_finds_and_keeps_deep_table_wins() {
    let tables = tables();
    let mut config = AlphaBetaConfig::full(18);
    config.features.threads = 3;
    let mut engine = AlphaBeta::new(&config);
    assert_eq!(engine.threads(), 3);
    for (position, distance) in deep_table_wins(&tables, 47).take(30) {
        keeps_the_win(&mut engine, &tables, &position, distance);
    }
}
