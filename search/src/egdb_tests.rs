//! The MCTS with endgame tables: table positions are leaves of exact value, never evaluated.

use crate::{
    Budget, EvalError, EvalRequest, Evaluation, Evaluator, MctsConfig, Search, UniformEvaluator,
};
use draughts::{DrawRules, Game, Position, Turn};
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
