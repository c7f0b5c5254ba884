//! The train crate's error types: every failure names the file or field it is about; a cause is
//! the error's source, not repeated in its message.

use model::ModelError;
use shard::ShardError;
use std::path::PathBuf;

/// Why training could not go on.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A setting of `[train]` out of range (its field dotted for nested tables, e.g. `window.min`).
    #[error(transparent)]
    Config(#[from] support::Invalid),
    /// Reading or writing a file or folder failed.
    #[error("{path}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// A log of the run could not be read (not a regular file, too big, unreadable).
    #[error(transparent)]
    Run(#[from] rundata::RunDirError),
    /// A shard could not be read or written.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// A checkpoint could not be read or written.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A checkpoint that loads as a net but lacks the trainer's own data, or holds it damaged.
    #[error("{path}: not a training state")]
    BadState {
        /// The state file.
        path: PathBuf,
        /// What is missing or wrong.
        #[source]
        problem: StateError,
    },
    /// The checkpoint `train.init` names could not start the net (missing, damaged, or of
    /// another architecture).
    #[error("`train.init` = {path}: cannot start from this net")]
    Init {
        /// The checkpoint.
        path: PathBuf,
        /// Why not.
        #[source]
        source: Box<TrainError>,
    },
    /// Too many steps in a row had a non-finite loss or gradient.
    #[error("training stopped at step {step}: {count} non-finite losses in a row (last: loss {loss}, gradient norm {grad_norm}); the last good checkpoint is untouched: {checkpoint}")]
    NonFinite {
        /// The step reached.
        step: u64,
        /// Bad steps in a row.
        count: u32,
        /// The last bad step's loss.
        loss: f64,
        /// The last bad step's gradient norm (NaN when the loss was not finite).
        grad_norm: f64,
        /// The last checkpoint written, or `none yet`.
        checkpoint: String,
    },
    /// A step was asked for while the replay window holds no position.
    #[error("the replay window is empty: no batch to train on")]
    EmptyWindow,
    /// The thread that assembles batches ahead could not be started.
    #[error("cannot start the batch thread")]
    Thread(#[source] std::io::Error),
    /// libtorch failed.
    #[error("libtorch")]
    Torch(#[from] tch::TchError),
}

/// What is wrong with the trainer's data in a state file.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// A metadata entry is missing.
    #[error("no `{key}` entry")]
    MissingEntry {
        /// The entry's key.
        key: &'static str,
    },
    /// A counter is not a number.
    #[error("`{key}` is `{text}`, not a number")]
    NotANumber {
        /// The entry's key.
        key: &'static str,
        /// Its text.
        text: String,
    },
    /// The list of shards in the window is not a JSON list of names.
    #[error("`train.shards` is not a list of shard names")]
    Shards(#[source] serde_json::Error),
    /// An optimizer buffer is missing.
    #[error("optimizer buffer `{name}` is missing")]
    MissingBuffer {
        /// The buffer's tensor name.
        name: String,
    },
    /// An optimizer buffer does not have its variable's shape.
    #[error("optimizer buffer `{name}` has shape {found:?}, its variable {expected:?}")]
    BufferShape {
        /// The buffer's tensor name.
        name: String,
        /// The stored shape.
        found: Vec<i64>,
        /// The variable's shape.
        expected: Vec<i64>,
    },
    /// The state holds some of an auxiliary head's variables (`aux.*`) or of the averaged
    /// weights (`ema.*`) but not this one.
    #[error("variable `{name}` is missing")]
    MissingVariable {
        /// The variable's tensor name.
        name: String,
    },
    /// An auxiliary head's or the average's variable does not have the shape this net needs.
    #[error("variable `{name}` has shape {found:?}, this net needs {expected:?}")]
    VariableShape {
        /// The variable's tensor name.
        name: String,
        /// The stored shape.
        found: Vec<i64>,
        /// The shape for this net.
        expected: Vec<i64>,
    },
    /// The averaged weights could not be built.
    #[error("the averaged weights: {0}")]
    Average(#[source] ModelError),
}

impl TrainError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> TrainError {
        TrainError::Io { path: path.into(), source }
    }
}
