//! The train crate's one error type: every failure names the file or field it is about.

use model::ModelError;
use selfplay::shard::ShardError;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error("train config: `{field}` {problem}")]
    Config { field: &'static str, problem: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Shard(#[from] ShardError),
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("{path}: not a training state: {reason}")]
    BadState { path: PathBuf, reason: String },
    #[error("training stopped at step {step}: {count} non-finite losses in a row (last: {last}); the last good checkpoint is untouched: {checkpoint}")]
    NonFinite { step: u64, count: u32, last: String, checkpoint: String },
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
}

impl TrainError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> TrainError {
        TrainError::Io { path: path.into(), source }
    }
}
