//! Search for checkers-zero: PUCT Monte-Carlo tree search over step decisions with batched
//! evaluation, the records of self-play games, and an alpha-beta engine as a fixed baseline
//! opponent. Self-play itself (the game driver, its workers) is the `selfplay` crate's.
//!
//! The MCTS talks to a net only through [`Evaluator`]; nothing here knows tch.
//! Its actions are [`draughts::Step`]s: a multi-jump is several decisions by the same side.
//!
//! A [`Search`] can be driven step-wise, so that a self-play worker keeps many in flight: `begin`
//! a decision with a [`Budget`], then per round `select_leaves(k, &mut requests)` on each search,
//! one [`Evaluator::evaluate`] call for all their requests, and each search's slice back with
//! `apply`; a search whose `select_leaves` appends nothing is complete: `result`,
//! `choose_step(temperature)`, `advance` to the next decision. Players use `run` with a
//! [`Budget`] in place of the rounds, `choose_step(0.0)`, and `advance` / `advance_move` to keep
//! the tree between moves.
//!
//! ```
//! use draughts::{DrawRules, Game, Position};
//! use search::alphabeta::{AlphaBeta, AlphaBetaConfig, Limit};
//! use search::{Budget, MctsConfig, Search, UniformEvaluator};
//!
//! let game = Game::new(Position::start(), DrawRules::default());
//!
//! // 200 playouts of MCTS, here with uniform priors and zero values in place of a net.
//! let mut search = Search::new(&MctsConfig::default(), &game, 7)?;
//! search.run(&mut UniformEvaluator, Budget { visits: 200, root_noise: false })?;
//! let result = search.result();
//! assert_eq!(result.visits, 200);
//! assert_eq!(result.steps.len(), 7); // the seven opening moves, one step each
//! let best = result.best_step().expect("a legal step");
//! assert!(result.steps.iter().any(|s| s.step == best));
//!
//! // The alpha-beta engine, to depth 6.
//! let mut engine = AlphaBeta::new(&AlphaBetaConfig::default());
//! let answer = engine.best_move(&game, Limit::Depth(6)).expect("a legal move");
//! assert!(game.position().legal_moves().contains(&answer.mv));
//! assert_eq!(answer.pv.first(), Some(&answer.mv));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod alphabeta;
mod cache;
mod config;
mod control;
mod decision;
mod error;
mod evaluator;
mod noise;
mod puct;
mod record;
mod result;
mod search;
mod server;
pub mod settings;
mod solver;
mod tables;
mod tree;

#[cfg(test)]
mod egdb_tests;
#[cfg(test)]
mod test_positions;
#[cfg(test)]
mod tests;

pub use cache::{CacheStats, CachedEvaluator, DEFAULT_EVAL_CACHE};
pub use config::{
    Budget, ConfigError, MctsConfig, PlayoutCap, Resignation, TemperatureSchedule, MOVE_TEMPERATURE,
};
pub use control::{
    clock_allowance, MoveBudget, Outlook, Progress, RootMove, Score, SearchControl, ThinkRequest,
};
pub use error::SearchError;
pub use evaluator::{
    priors_from_logits, BoxedEvaluator, EvalError, EvalRequest, Evaluation, Evaluator,
    LeafEvaluators, LoadedNet, NetLoader, Priors, ScriptedEvaluator, UniformEvaluator,
};
pub use record::{DecisionRecord, GameEnd, GameRecord, ResignationRecord};
pub use result::{RootStep, SearchResult};
pub use search::Search;
pub use server::{Batching, InferenceServer, Served, ServerClient};
pub use tables::{table_probe, table_value, table_winner};
pub use tree::{
    lower_tree_node_limit, tree_node_limit, tree_node_limit_is_configured, MAX_TREE_NODES,
    MAX_TREE_NODES_VAR, NODE_BYTES,
};
