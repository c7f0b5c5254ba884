//! Behaviour of the self-play game driver: seeded games are reproducible, playout-cap
//! randomisation, resignation, and adjudication by the endgame tables.

use super::SelfPlayGame;
use crate::test_tables::{self_played, tables, WON};
use draughts::{Color, DrawRules, Game, Position};
use search::{
    EvalError, EvalRequest, Evaluation, Evaluator, GameEnd, MctsConfig, PlayoutCap, Resignation,
    UniformEvaluator,
};

#[test]
fn a_seeded_self_play_game_is_reproducible() {
    let config = MctsConfig {
        playout_cap: PlayoutCap { full_visits: 48, cheap_visits: 12, full_probability: 0.5 },
        ..MctsConfig::default()
    };
    let rules = DrawRules { max_plies: 80, ..DrawRules::default() };
    let play = |seed| {
        SelfPlayGame::new(&config, Game::new(Position::start(), rules), seed)
            .unwrap()
            .play(&mut UniformEvaluator)
            .unwrap()
    };
    let first = play(11);
    assert_eq!(first, play(11));
    assert_ne!(first.moves, play(12).moves);
    let last = first.decisions.last().unwrap();
    assert_eq!(last.plies_to_end, first.moves.len() as u32 - last.ply);
    for decision in &first.decisions {
        assert_eq!(
            decision.result,
            first.end.score_for(decision.observation.position.side_to_move())
        );
        assert!((decision.policy.iter().map(|p| p.1).sum::<f32>() - 1.0).abs() < 1e-5);
    }
}

#[test]
fn playout_cap_randomisation_mixes_full_and_cheap_searches_as_configured() {
    let config = MctsConfig {
        playout_cap: PlayoutCap { full_visits: 16, cheap_visits: 4, full_probability: 0.3 },
        ..MctsConfig::default()
    };
    let rules = DrawRules { max_plies: 100, ..DrawRules::default() };
    let decisions: Vec<_> = (0..6)
        .flat_map(|seed| {
            let game =
                SelfPlayGame::new(&config, Game::new(Position::start(), rules), seed).unwrap();
            game.play(&mut UniformEvaluator).unwrap().decisions
        })
        .collect();
    let full = decisions.iter().filter(|d| d.full_search).count() as f64 / decisions.len() as f64;
    assert!(decisions.len() > 200, "{} decisions", decisions.len());
    assert!((full - 0.3).abs() < 0.08, "share of full searches {full}");
}

/// Values each position as if Black were lost: -0.99 for Black to move, 0.99 for White.
struct BlackIsLost;

impl Evaluator for BlackIsLost {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        let mut uniform = UniformEvaluator.evaluate(requests)?;
        for (evaluation, request) in uniform.iter_mut().zip(requests) {
            evaluation.value = if request.mover() == Color::Black { -0.99 } else { 0.99 };
        }
        Ok(uniform)
    }
}

#[test]
fn a_side_resigns_after_consecutive_hopeless_searches_unless_resignation_is_off() {
    let resign =
        Resignation { enabled: true, threshold: -0.9, consecutive: 2, disabled_share: 0.0 };
    let config = MctsConfig {
        resignation: resign.clone(),
        playout_cap: PlayoutCap { full_visits: 16, cheap_visits: 16, full_probability: 1.0 },
        ..MctsConfig::default()
    };
    let rules = DrawRules { max_plies: 30, ..DrawRules::default() };
    let record = SelfPlayGame::new(&config, Game::new(Position::start(), rules), 3)
        .unwrap()
        .play(&mut BlackIsLost)
        .unwrap();
    assert_eq!(record.end, GameEnd::Resigned { loser: Color::Black });
    assert!(
        record.moves.len() <= 4,
        "Black resigns at its second decision: {} plies",
        record.moves.len()
    );
    assert!(record.resignation.enabled);

    let config =
        MctsConfig { resignation: Resignation { disabled_share: 1.0, ..resign }, ..config };
    let record = SelfPlayGame::new(&config, Game::new(Position::start(), rules), 3)
        .unwrap()
        .play(&mut BlackIsLost)
        .unwrap();
    assert!(matches!(record.end, GameEnd::Played(_)), "{:?}", record.end);
    assert!(!record.resignation.enabled);
    assert_eq!(record.resignation.would_have_resigned.map(|(side, _)| side), Some(Color::Black));
    assert_eq!(
        record.resignation.false_positive(record.end),
        Some(record.end.score_for(Color::Black) >= 0)
    );
}

#[test]
fn self_play_ends_at_the_first_table_position_with_its_result() {
    // Already in the tables: over before a move.
    let record = self_played(WON, true, true);
    assert_eq!(record.end, GameEnd::Tables { winner: Some(Color::Black) });
    assert!(record.moves.is_empty() && record.decisions.is_empty());
    // Four pieces: Black's forced 14x23 reaches the tables, which give their result.
    let record = self_played("B:W18,K32:B14,K1", true, true);
    assert_eq!(record.moves.len(), 1, "{record:?}");
    let GameEnd::Tables { winner } = record.end else { panic!("{record:?}") };
    let after = Position::from_fen("B:W18,K32:B14,K1").unwrap().play(record.moves[0]);
    assert_eq!(Some(winner), search::table_winner(&tables(), &after));
}

#[test]
fn self_play_without_adjudication_plays_on_by_the_rules() {
    let record = self_played(WON, true, false);
    assert!(matches!(record.end, GameEnd::Played(_)), "{record:?}");
    assert!(!record.moves.is_empty());
    // Every searched decision of the winner saw its win.
    let black =
        record.decisions.iter().filter(|d| d.observation.position.side_to_move() == Color::Black);
    assert!(black.clone().count() > 0);
    assert!(black.clone().all(|d| d.search_value > 0.5), "{:?}", record.decisions);
}

#[test]
fn self_play_searching_without_the_tables_asks_the_net_in_their_positions() {
    // The uniform net values every position at 0: without the tables as leaves, the winner's
    // searches in a won ending do not all see the win.
    let record = self_played(WON, false, false);
    let black =
        record.decisions.iter().filter(|d| d.observation.position.side_to_move() == Color::Black);
    assert!(black.clone().count() > 0);
    assert!(black.clone().any(|d| d.search_value < 0.5), "{:?}", record.decisions);
}
