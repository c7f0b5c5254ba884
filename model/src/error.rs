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
    /// A checkpoint that could not be read or trusted, or does not fit the net.
    #[error(transparent)]
    Checkpoint(#[from] netfile::CheckpointError),
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
    /// What was asked of the checkpoint does not apply to its net.
    #[error("{}: {what}", path.display())]
    Unsupported {
        /// The checkpoint file.
        path: PathBuf,
        /// What does not apply.
        what: String,
    },
    /// A net whose weights are not all finite numbers: it would answer NaN.
    #[error("{}: weight `{variable}` holds values that are not finite numbers (NaN or infinite)", path.display())]
    NotFinite {
        /// The checkpoint file.
        path: PathBuf,
        /// The first such weight.
        variable: String,
    },
}

/// An atomic write (`support::replace_atomic`) that failed.
impl From<support::WriteError> for ModelError {
    fn from(error: support::WriteError) -> ModelError {
        ModelError::Io { path: error.path, source: error.source }
    }
}
