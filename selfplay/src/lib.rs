//! Self-play: one game driven step-wise with its search ([`SelfPlayGame`]: playout-cap
//! randomisation, resignation, endgame adjudication, the decisions recorded for training), from
//! the start position or an opening ballot ([`Openings`]), many games per worker with their
//! search leaves evaluated in one batch (through any `search::Evaluator`: the run gives each
//! worker a net's), parallel workers, value targets from the alpha-beta engine
//! ([`ValueSearch`]), results rescored by the endgame tables ([`table_results`]), search values
//! that look ahead in the game ([`lambda_returns`]), writing
//! trajectory shards (the `shard` crate). No libtorch: the caller makes the evaluators. The run's
//! self-play role (which nets play, the batches, the uploads) is `run/src/selfplay/`.

pub mod game;
pub mod lambda_returns;
pub mod openings;
mod resign;
pub mod session;
pub mod table_results;
#[cfg(test)]
mod test_tables;
pub mod value_search;
pub mod worker;

pub use game::SelfPlayGame;
pub use openings::Openings;
pub use session::{Session, SessionError, SessionReport, SessionTotals, ShardWritten};
pub use value_search::ValueSearch;
