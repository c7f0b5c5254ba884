//! λ-returns: the ends of the range keep the root values or give the results, and between them
//! each value is the discounted sum of the later root values and the result, a multi-jump's
//! decisions (the same side twice running) included.

use super::apply;
use crate::test_tables::sixteen_visits;
use crate::SelfPlayGame;
use draughts::{DrawRules, Game, Position};
use search::{GameRecord, UniformEvaluator};

/// A game from the start position (16 visits a decision, at most 60 plies) with a multi-jump in
/// it, so that one side makes two decisions running.
fn game_with_a_multi_jump() -> GameRecord {
    let rules = DrawRules { max_plies: 60, ..DrawRules::default() };
    let config = sixteen_visits();
    (0..64)
        .map(|seed| {
            let game = Game::new(Position::start(), rules);
            SelfPlayGame::new(&config, game, seed).unwrap().play(&mut UniformEvaluator).unwrap()
        })
        .find(|record| {
            record.decisions.windows(2).any(|pair| {
                pair[0].observation.position.side_to_move()
                    == pair[1].observation.position.side_to_move()
            })
        })
        .expect("a seed with a multi-jump in its first 60 plies")
}

fn search_values(record: &GameRecord) -> Vec<f32> {
    record.decisions.iter().map(|d| d.search_value).collect()
}

#[test]
fn lambda_zero_keeps_the_root_values_and_one_gives_the_results() {
    let record = game_with_a_multi_jump();
    let mut kept = record.clone();
    apply(&mut kept, 0.0);
    assert_eq!(kept, record);
    let mut results = record.clone();
    apply(&mut results, 1.0);
    for decision in &results.decisions {
        assert_eq!(decision.search_value, f32::from(decision.result), "{decision:?}");
    }
}

#[test]
fn each_value_is_the_discounted_sum_of_later_root_values_and_the_result() {
    let record = game_with_a_multi_jump();
    let lambda = 0.6f32;
    let mut returns = record.clone();
    apply(&mut returns, lambda);
    let decisions = &record.decisions;
    for (i, decision) in decisions.iter().enumerate() {
        let mover = decision.observation.position.side_to_move();
        let sign = |d: &search::DecisionRecord| {
            if d.observation.position.side_to_move() == mover {
                1.0
            } else {
                -1.0
            }
        };
        let later = &decisions[i..];
        let searched: f32 = later
            .iter()
            .enumerate()
            .map(|(k, d)| (1.0 - lambda) * lambda.powi(k as i32) * sign(d) * d.search_value)
            .sum();
        let expected = searched + lambda.powi(later.len() as i32) * f32::from(decision.result);
        let got = returns.decisions[i].search_value;
        assert!((got - expected).abs() < 1e-5, "decision {i}: {got} against {expected}");
    }
    assert_ne!(search_values(&returns), search_values(&record));
}
