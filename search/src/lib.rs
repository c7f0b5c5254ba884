//! Search for checkers-zero: PUCT Monte-Carlo tree search over step decisions with batched
//! evaluation, a self-play game driver that records training data, and an alpha-beta engine as
//! a fixed baseline opponent.
//!
//! The MCTS talks to a net only through [`Evaluator`]; nothing here knows tch.
//! Its actions are [`draughts::Step`]s: a multi-jump is several decisions by the same side.
//!
//! A self-play worker keeps many [`SelfPlayGame`]s in flight; per round it calls each game's
//! `select_leaves(k, &mut requests)`, remembers how many each appended, evaluates all requests in
//! one [`Evaluator::evaluate`] call, and hands each game its slice with `apply`. A game whose
//! `select_leaves` appends nothing has ended: take its [`GameRecord`] with `into_record`.
//! Players use [`Search`] directly: `run` with a [`Budget`], `result`, `choose_step(0.0)`,
//! `advance` / `advance_move` to keep the tree between moves.

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
mod resign;
mod result;
mod search;
mod selfplay_game;
mod server;
mod solver;
mod tables;
mod tree;

#[cfg(test)]
mod egdb_tests;
#[cfg(test)]
mod test_positions;
#[cfg(test)]
mod tests;

pub use cache::{CacheStats, CachedEvaluator};
pub use config::{
    Budget, ConfigError, MctsConfig, PlayoutCap, Resignation, TemperatureSchedule, PLAYER_SETTINGS,
};
pub use control::{MoveBudget, Progress, Score, SearchControl, ThinkRequest};
pub use error::SearchError;
pub use evaluator::{
    priors_from_logits, BoxedEvaluator, EvalError, EvalRequest, Evaluation, Evaluator, LoadedNet,
    NetLoader, Priors, ScriptedEvaluator, UniformEvaluator,
};
pub use record::{DecisionRecord, GameEnd, GameRecord, ResignationRecord};
pub use result::{RootStep, SearchResult};
pub use search::Search;
pub use selfplay_game::SelfPlayGame;
pub use server::{Batching, InferenceServer, Served, ServerClient};
pub use tables::{table_probe, table_value, table_winner};
