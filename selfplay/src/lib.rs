//! Self-play: many games per worker with their search leaves evaluated in one batch, parallel
//! workers, writing trajectory shards (the `shard` crate).

pub mod net_evaluator;
pub mod session;
pub mod worker;

pub use net_evaluator::{
    decision_requests, players_loader, served, NetEvaluator, TorchNetLoader, PLAYERS_MAX_BATCH,
};
pub use session::{Session, SessionError, SessionReport, SessionTotals, ShardWritten};
