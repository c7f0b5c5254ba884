//! Self-play: many games per worker with their search leaves evaluated in one batch (through any
//! `search::Evaluator`: the run gives each worker a net's), parallel workers, writing trajectory
//! shards (the `shard` crate). No libtorch: the caller makes the evaluators. Each game is
//! `search::SelfPlayGame`; the run's self-play role (which nets play, the batches, the uploads)
//! is `run/src/selfplay/`.

pub mod session;
pub mod worker;

pub use session::{Session, SessionError, SessionReport, SessionTotals, ShardWritten};
