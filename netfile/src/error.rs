//! Why a checkpoint file was refused: every variant names the file and what is wrong. A cause (an
//! I/O error) is the error's source, not repeated in its message.

use std::path::PathBuf;

/// A checkpoint that could not be read or trusted.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading the file failed.
    #[error("{path}")]
    Io {
        /// The file.
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
        /// Which version: the checkpoint format, or the family's input encoding.
        what: String,
        /// The version the file states, as written.
        found: String,
        /// The version this build reads.
        supported: u32,
    },
    /// The checkpoint holds another architecture (or family) than the one asked for.
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
}
