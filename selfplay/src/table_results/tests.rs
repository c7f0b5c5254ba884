//! Rescoring by the tables: a won ending that self-play drew gets its win back, decisions before
//! the tables take the first table position's value, and a game outside the tables is untouched.

use super::rescore;
use crate::test_tables::{sixteen_visits, tables, WON};
use crate::SelfPlayGame;
use draughts::{Color, DrawRules, Game, Outcome, Position};
use search::{table_winner, GameEnd, GameRecord, MctsConfig, UniformEvaluator};

#[test]
fn a_won_ending_drawn_in_self_play_is_scored_a_win() {
    // 10 plies are too few for the 21-ply win: the game ends drawn by the ply limit.
    let rules = DrawRules { max_plies: 10, ..DrawRules::default() };
    let game = Game::new(Position::from_fen(WON).unwrap(), rules);
    let mut record = (0..32)
        .map(|seed| {
            let game = SelfPlayGame::new(&sixteen_visits(), game.clone(), seed).unwrap();
            game.play(&mut UniformEvaluator).unwrap()
        })
        .find(|record| matches!(record.end, GameEnd::Played(Outcome::Draw(_))))
        .expect("a seed where White's king survives ten plies");
    assert!(record.decisions.iter().all(|d| d.result == 0));
    let changed = rescore(&mut record, &tables());
    assert_eq!(changed, record.decisions.len());
    for decision in &record.decisions {
        let expected =
            if decision.observation.position.side_to_move() == Color::Black { 1 } else { -1 };
        assert_eq!(decision.result, expected, "{decision:?}");
        assert_eq!(decision.search_value, f32::from(expected), "{decision:?}");
    }
}

/// A game of four kings (one more than the tables hold) played on without tables until a capture
/// takes it into them, with searched decisions before that.
fn game_entering_the_tables() -> (GameRecord, usize) {
    let rules = DrawRules { max_plies: 80, ..DrawRules::default() };
    let config = sixteen_visits();
    let start = Position::from_fen("B:WK29,K32:BK1,K4").unwrap();
    for seed in 0..32 {
        let game = SelfPlayGame::new(&config, Game::new(start, rules), seed).unwrap();
        let record = game.play(&mut UniformEvaluator).unwrap();
        let first = first_table_ply(&record);
        if first.is_some_and(|first| record.decisions.iter().any(|d| (d.ply as usize) < first)) {
            return (record, first.unwrap());
        }
    }
    panic!("no seed took four kings into the tables after a decision");
}

/// The ply of the first position at the start of a move that the tables cover.
fn first_table_ply(record: &GameRecord) -> Option<usize> {
    let mut position = record.start;
    for (ply, &mv) in record.moves.iter().enumerate() {
        if table_winner(&tables(), &position).is_some() {
            return Some(ply);
        }
        position = position.play(mv);
    }
    table_winner(&tables(), &position).map(|_| record.moves.len())
}

#[test]
fn decisions_before_the_tables_take_the_first_table_positions_value() {
    let (mut record, first) = game_entering_the_tables();
    let before = record.clone();
    rescore(&mut record, &tables());
    let mut position = record.start;
    for &mv in &record.moves[..first] {
        position = position.play(mv);
    }
    let first_winner = table_winner(&tables(), &position).unwrap();
    let mut earlier = 0;
    for (old, new) in before.decisions.iter().zip(&record.decisions) {
        let mover = new.observation.position.side_to_move();
        if (new.ply as usize) < first {
            earlier += 1;
            assert_eq!(new.result, GameEnd::Tables { winner: first_winner }.score_for(mover));
            // The search's own value of a position outside the tables stays.
            assert_eq!(new.search_value, old.search_value);
        } else {
            let mut at = record.start;
            for &mv in &record.moves[..new.ply as usize] {
                at = at.play(mv);
            }
            let winner = table_winner(&tables(), &at).expect("fewer pieces stay in the tables");
            assert_eq!(new.result, GameEnd::Tables { winner }.score_for(mover));
        }
        assert_eq!((new.policy.clone(), new.ply), (old.policy.clone(), old.ply));
    }
    assert!(earlier > 0);
}

#[test]
fn a_game_that_never_reaches_the_tables_keeps_its_results() {
    let rules = DrawRules { max_plies: 6, ..DrawRules::default() };
    let game = SelfPlayGame::new(&MctsConfig::default(), Game::new(Position::start(), rules), 3);
    let mut record = game.unwrap().play(&mut UniformEvaluator).unwrap();
    let before = record.clone();
    assert_eq!(rescore(&mut record, &tables()), 0);
    assert_eq!(record, before);
}
