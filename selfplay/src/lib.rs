//! Self-play: many games per worker with their search leaves evaluated in one batch (through
//! `model::NetEvaluator`), parallel workers, writing trajectory shards (the `shard` crate).

pub mod session;
pub mod worker;

pub use session::{Session, SessionError, SessionReport, SessionTotals, ShardWritten};
