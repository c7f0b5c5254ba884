//! The crate's one error type: every failure names the file or field it is about.

use std::path::PathBuf;

/// Errors of the model crate. Loading never panics on bad input: it returns one of these.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: std::io::Error },
    #[error("{path}: not a checkers-zero checkpoint: {reason}")]
    NotACheckpoint { path: PathBuf, reason: String },
    #[error("{path}: damaged checkpoint: {reason}")]
    Damaged { path: PathBuf, reason: String },
    #[error(
        "{path}: {what} version {found} is not supported (this build reads version {supported})"
    )]
    UnsupportedVersion { path: PathBuf, what: &'static str, found: String, supported: u32 },
    #[error("{path}: architecture {found} does not match the expected {expected}")]
    ArchitectureMismatch { path: PathBuf, expected: String, found: String },
    #[error("{path}: tensor `{name}`: {problem}")]
    Tensor { path: PathBuf, name: String, problem: String },
    #[error("net config: `{field}` {problem}")]
    Config { field: &'static str, problem: String },
    #[error("device `{spec}`: {problem}")]
    Device { spec: String, problem: String },
    #[error("{path}: cannot write checkpoint: {reason}")]
    Save { path: PathBuf, reason: String },
    #[error(transparent)]
    Torch(#[from] tch::TchError),
}

impl ModelError {
    pub(crate) fn io(path: impl Into<PathBuf>, error: std::io::Error) -> ModelError {
        ModelError::Io { path: path.into(), error }
    }
}
