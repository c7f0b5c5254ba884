//! Trajectory shards: versioned, checksummed files of [`Sample`](crate::sample::Sample)s that
//! many self-play writers (threads and processes) produce at once without clobbering each other.
//!
//! A shard is written whole under a unique name (`<unix-millis>-<pid>-<random>.shard`) through a
//! temporary file and a rename, so a reader sees a complete shard or none. A reader checks the
//! magic, the format version, the length and a CRC32 before it trusts a byte, and every error
//! names the file. See [`file`] for the byte layout and [`record`] for one sample's encoding.

pub mod file;
pub mod record;
pub mod scan;

pub use file::{
    read_shard, write_shard, Shard, ShardHeader, FORMAT_VERSION, MAGIC, MAX_SHARD_BYTES,
};
pub use record::{RecordView, Records};
pub use scan::{list_shards, scan_shards, ScanReport, SHARD_EXTENSION};

use crate::run_dir::RunDirError;
use std::io;
use std::path::PathBuf;

/// Why a shard could not be written or read. Read errors name the file.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("writing a shard: {source}")]
    Write {
        #[from]
        source: RunDirError,
    },
    #[error("{path}: not a trajectory shard (wrong magic)")]
    Foreign { path: PathBuf },
    #[error("{path}: shard format version {version} is not supported (this build reads version {supported})")]
    UnsupportedVersion { path: PathBuf, version: u16, supported: u16 },
    #[error("{path}: damaged shard: {len} bytes on disk, the header says {expected} (truncated or extended)")]
    Length { path: PathBuf, len: u64, expected: u64 },
    #[error("{path}: shard of {len} bytes is larger than the limit of {max} bytes")]
    TooLarge { path: PathBuf, len: u64, max: u64 },
    #[error("{path}: damaged shard: checksum mismatch (stored {stored:#010x}, computed {computed:#010x})")]
    Checksum { path: PathBuf, stored: u32, computed: u32 },
    #[error("{path}: damaged shard: the header claims {count} samples, more than {payload_len} payload bytes can hold")]
    AbsurdCount { path: PathBuf, count: u32, payload_len: u64 },
    #[error("{path}: damaged shard: sample {index}: {reason}")]
    BadRecord { path: PathBuf, index: usize, reason: String },
    #[error("cannot write sample {index} into a shard: {reason}")]
    BadSample { index: usize, reason: String },
    #[error("cannot write {count} samples into one shard (at most {max})")]
    TooManySamples { count: usize, max: usize },
}

impl ShardError {
    /// The file this error is about, when it is about one.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            ShardError::Io { path, .. }
            | ShardError::Foreign { path }
            | ShardError::UnsupportedVersion { path, .. }
            | ShardError::Length { path, .. }
            | ShardError::TooLarge { path, .. }
            | ShardError::Checksum { path, .. }
            | ShardError::AbsurdCount { path, .. }
            | ShardError::BadRecord { path, .. } => Some(path),
            ShardError::Write { .. }
            | ShardError::BadSample { .. }
            | ShardError::TooManySamples { .. } => None,
        }
    }
}
