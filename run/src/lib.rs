//! The run: its three roles, a module each (self-play in `selfplay`, the trainer in [`train`],
//! the gatekeeper with the `[eval]` anchors in `gate`), the loop that drives them on one machine
//! (one after the other or at once), the budget, the run folder's state and logs, the store
//! retries of an S3 run, and the other commands that need the nets (export, widen, average,
//! ladder, the egdb accuracy of a net). Each command takes options of its own ([`commands`]); the
//! net library (`cli-torch/`, the libtorch half of the binary) fills them in from the command
//! line. The benchmark is the `bench` crate.

mod average;
mod budget;
mod egdb_accuracy;
mod export;
mod gate;
mod ladder;
mod logs;
mod run_loop;
mod run_state;
mod selfplay;
mod store_retry;
pub mod train;
mod train_store;
mod widen;

/// The commands of `checkers-zero` that need libtorch, one function each, taking the command's
/// options (plain structs: the command line's flags are the binary's, which fills these in).
pub mod commands {
    pub use crate::average::{average, AverageOptions};
    pub use crate::egdb_accuracy::{accuracy as egdb_accuracy, AccuracyOptions};
    pub use crate::export::{export, ExportOptions};
    pub use crate::gate::{run as gate, GateOptions};
    pub use crate::ladder::{ladder, LadderOptions};
    pub use crate::run_loop::{run, RunOptions};
    pub use crate::run_state::RunDirOptions;
    pub use crate::selfplay::{selfplay, SelfplayOptions};
    pub use crate::train::{train, TrainOptions};
    pub use crate::widen::{widen, WidenOptions};
}
