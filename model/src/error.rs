//! The crate's one error type: every failure names the file or field it is about. A cause (an
//! I/O or safetensors error) is the error's [`source`](std::error::Error::source), not repeated
//! in its message, so a report that prints the chain says each thing once.

use std::path::PathBuf;

/// Errors of the model crate. Loading never panics on bad input: it returns one of these.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// Reading or writing a file failed.
    #[error("{path}")]
    Io {
        /// The file (for an atomic write, the file being replaced, not the temporary one).
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a safetensors file with checkers-zero metadata.
    #[error("{path}: not a checkers-zero checkpoint: {reason}")]
    NotACheckpoint {
        /// The file.
        path: PathBuf,
        /// What gave it away, e.g. a header that is not safetensors JSON.
        reason: String,
    },
    /// A checkers-zero checkpoint whose bytes do not add up (truncated, flipped bits, checksum).
    #[error("{path}: damaged checkpoint: {reason}")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// Which check failed.
        reason: String,
    },
    /// A checkpoint written by a build with another file layout or input encoding.
    #[error(
        "{path}: {what} version {found} is not supported (this build reads version {supported})"
    )]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// Which version: `format` or `encoding`.
        what: &'static str,
        /// The version the file states, as written.
        found: String,
        /// The version this build reads.
        supported: u32,
    },
    /// The checkpoint holds another architecture than the one asked for.
    #[error("{path}: architecture {found} does not match the expected {expected}")]
    ArchitectureMismatch {
        /// The file.
        path: PathBuf,
        /// The expected [`NetConfig`](crate::NetConfig) as JSON.
        expected: String,
        /// The file's [`NetConfig`](crate::NetConfig) as JSON.
        found: String,
    },
    /// A stored tensor does not fit the net: unknown, missing, or of the wrong dtype or shape.
    #[error("{path}: tensor `{name}`: {problem}")]
    Tensor {
        /// The file.
        path: PathBuf,
        /// The tensor's name, as stored.
        name: String,
        /// What does not fit, with the expected and found dtype or shape.
        problem: String,
    },
    /// A setting of `[net]` out of range.
    #[error(transparent)]
    Config(#[from] support::Invalid),
    /// A forward pass failed on its device (e.g. out of memory), or its input was malformed.
    #[error("forward pass of {batch} positions on {device}: {message}")]
    Forward {
        /// The device.
        device: String,
        /// Positions in the batch.
        batch: usize,
        /// libtorch's message.
        message: String,
    },
    /// A device that is not there.
    #[error("device `{spec}`: {problem}")]
    Device {
        /// The device as given.
        spec: String,
        /// How many CUDA devices libtorch sees.
        problem: String,
    },
    /// The tensors could not be serialised into a checkpoint.
    #[error("{path}: cannot write checkpoint")]
    Save {
        /// The checkpoint file.
        path: PathBuf,
        /// The serialiser's error.
        #[source]
        source: safetensors::SafeTensorError,
    },
    /// libtorch failed.
    #[error(transparent)]
    Torch(#[from] tch::TchError),
}

impl ModelError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> ModelError {
        ModelError::Io { path: path.into(), source }
    }
}

/// An atomic write (`rundata::replace_atomic`) that failed.
impl From<rundata::WriteError> for ModelError {
    fn from(error: rundata::WriteError) -> ModelError {
        ModelError::Io { path: error.path, source: error.source }
    }
}
