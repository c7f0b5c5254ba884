//! The MCTS with endgame tables: table positions are leaves of exact value, never evaluated; a
//! self-play game may be adjudicated at the first of them.

use crate::{
    Budget, EvalError, EvalRequest, Evaluation, Evaluator, GameEnd, MctsConfig, PlayoutCap, Search,
    SelfPlayGame, UniformEvaluator,
};
use draughts::{Color, DrawRules, Game, Position, Turn};
use egdb::{Tables, Wdl};
use std::sync::Arc;

/// Tables for up to 3 pieces, built once for the whole test run.
fn tables() -> Arc<Tables> {
    crate::test_positions::tables_up_to(3)
}

/// The uniform evaluator, counting the positions it is asked about.
#[derive(Default)]
struct Counting {
    requests: usize,
}

impl Evaluator for Counting {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        self.requests += requests.len();
        UniformEvaluator.evaluate(requests)
    }
}

fn searched(fen: &str, visits: u32, evaluator: &mut impl Evaluator) -> Search {
    let game = Game::new(Position::from_fen(fen).unwrap(), DrawRules::default());
    let config = MctsConfig { dirichlet_fraction: 0.0, ..MctsConfig::default() };
    let mut search = Search::new(&config, &game, 1).unwrap().with_tables(Some(tables()));
    search.run(evaluator, Budget { visits, root_noise: false }).unwrap();
    search
}

/// The position after the root's most visited step, which must complete a move.
fn after_best(search: &Search, fen: &str) -> Position {
    let pos = Position::from_fen(fen).unwrap();
    let step = search.result().best_step().unwrap();
    let mv = Turn::new(pos).take(step).unwrap().expect("a one-step move");
    pos.play_unchecked(mv)
}

/// Black's two kings against White's king: a win in 21 plies by the tables.
const WON: &str = "B:WK32:BK14,K15";
/// King against king: a draw.
const DRAWN: &str = "B:WK32:BK10";

#[test]
fn a_won_table_position_is_worth_a_win_in_few_visits() {
    let tables = tables();
    assert_eq!(tables.probe(&Position::from_fen(WON).unwrap()), Some(Wdl::Win));
    let mut evaluator = Counting::default();
    let search = searched(WON, 100, &mut evaluator);
    let result = search.result();
    assert!(result.value > 0.9, "{result:?}");
    // Every move from the root reaches the tables: only the root is evaluated.
    assert_eq!(evaluator.requests, 1);
    assert_eq!(tables.probe(&after_best(&search, WON)), Some(Wdl::Loss), "{result:?}");
}

#[test]
fn a_drawn_table_position_stays_a_draw() {
    assert_eq!(tables().probe(&Position::from_fen(DRAWN).unwrap()), Some(Wdl::Draw));
    let mut evaluator = Counting::default();
    let search = searched(DRAWN, 100, &mut evaluator);
    let result = search.result();
    assert!(result.value.abs() < 0.05, "{result:?}");
    assert_eq!(evaluator.requests, 1);
}

#[test]
fn without_tables_the_evaluator_is_asked() {
    let game = Game::new(Position::from_fen(WON).unwrap(), DrawRules::default());
    let config = MctsConfig { dirichlet_fraction: 0.0, ..MctsConfig::default() };
    let mut search = Search::new(&config, &game, 1).unwrap().with_tables(None);
    let mut evaluator = Counting::default();
    search.run(&mut evaluator, Budget { visits: 100, root_noise: false }).unwrap();
    assert!(evaluator.requests > 50, "{}", evaluator.requests);
}

#[test]
fn advancing_into_a_table_leaf_searches_from_it() {
    let mut search = searched(WON, 100, &mut UniformEvaluator);
    let step = search.result().best_step().unwrap();
    // The child is a leaf of the tables, with no edges; the new root must have its moves.
    search.advance(step).unwrap();
    assert!(search.root_steps().len() > 0);
    let mut evaluator = Counting::default();
    search.run(&mut evaluator, Budget { visits: 100, root_noise: false }).unwrap();
    let result = search.result();
    assert_eq!(result.visits, 100);
    assert!(result.value < -0.9, "White is lost: {result:?}");
    assert_eq!(evaluator.requests, 1);
}

/// Plays a self-play game from `fen` with the tables (16 visits a decision, at most 20 plies).
fn self_played(fen: &str, adjudicate: bool) -> crate::GameRecord {
    let rules = DrawRules { max_plies: 20, ..DrawRules::default() };
    let game = Game::new(Position::from_fen(fen).unwrap(), rules);
    let cap = PlayoutCap { full_visits: 16, cheap_visits: 16, full_probability: 1.0 };
    let config = MctsConfig { playout_cap: cap, ..MctsConfig::default() };
    let game = SelfPlayGame::with_tables(&config, game, 5, Some(tables()), adjudicate).unwrap();
    game.play(&mut UniformEvaluator).unwrap()
}

#[test]
fn self_play_ends_at_the_first_table_position_with_its_result() {
    // Already in the tables: over before a move.
    let record = self_played(WON, true);
    assert_eq!(record.end, GameEnd::Tables { winner: Some(Color::Black) });
    assert!(record.moves.is_empty() && record.decisions.is_empty());
    // Four pieces: Black's forced 14x23 reaches the tables, which give their result.
    let record = self_played("B:W18,K32:B14,K1", true);
    assert_eq!(record.moves.len(), 1, "{record:?}");
    let GameEnd::Tables { winner } = record.end else { panic!("{record:?}") };
    let after = Position::from_fen("B:W18,K32:B14,K1").unwrap().play(record.moves[0]);
    assert_eq!(Some(winner), crate::table_winner(&tables(), &after));
}

#[test]
fn self_play_without_adjudication_plays_on_by_the_rules() {
    let record = self_played(WON, false);
    assert!(matches!(record.end, GameEnd::Played(_)), "{record:?}");
    assert!(!record.moves.is_empty());
    // Every searched decision of the winner saw its win.
    let black =
        record.decisions.iter().filter(|d| d.observation.position.side_to_move() == Color::Black);
    assert!(black.clone().count() > 0);
    assert!(black.clone().all(|d| d.search_value > 0.5), "{:?}", record.decisions);
}

#[test]
fn the_solver_proves_a_table_position_from_its_children() {
    let game = Game::new(Position::from_fen(WON).unwrap(), DrawRules::default());
    let config = MctsConfig { dirichlet_fraction: 0.0, solver: true, ..MctsConfig::default() };
    let mut search = Search::new(&config, &game, 1).unwrap().with_tables(Some(tables()));
    search.run(&mut UniformEvaluator, Budget { visits: 100, root_noise: false }).unwrap();
    let result = search.result();
    assert_eq!(result.value, 1.0, "one child loses for White by the tables: {result:?}");
    assert_eq!(tables().probe(&after_best(&search, WON)), Some(Wdl::Loss), "{result:?}");
}
