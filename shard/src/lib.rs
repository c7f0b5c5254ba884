//! Trajectory shards: versioned, checksummed files of [`Sample`]s that many self-play writers
//! (threads and processes) produce at once without clobbering each other, and that training
//! reads. No tch: the format is plain bytes.
//!
//! A shard is written whole under a unique name (`<unix-millis>-<pid>-<random>.shard`) through a
//! temporary file and a rename, so a reader sees a complete shard or none. A reader checks the
//! magic, the format version, the length and a CRC32 before it trusts a byte, and every error
//! names the file. See [`file`] for the byte layout and [`record`] for one sample's encoding.

pub mod file;
pub mod record;
pub mod sample;
pub mod scan;

pub use file::{
    read_shard, write_shard, EncodedShard, Shard, ShardHeader, FORMAT_VERSION, MAGIC,
    MAX_SHARD_BYTES, OLDEST_READ_VERSION,
};
pub use record::{RecordError, RecordView, Records};
pub use sample::Sample;
pub use scan::{list_shards, scan_shards, ScanReport, SHARD_EXTENSION};

use std::io;
use std::path::PathBuf;

/// Why a shard could not be written or read. Read errors name the file.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    /// Reading the shard failed.
    #[error("{path}")]
    Io {
        /// The shard file.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// Writing the shard into the run directory failed.
    #[error("writing a shard")]
    Write {
        /// The failed write, naming the file.
        #[from]
        source: support::WriteError,
    },
    /// The file does not start with [`MAGIC`].
    #[error("{path}: not a trajectory shard (wrong magic)")]
    Foreign {
        /// The file.
        path: PathBuf,
    },
    /// A shard of another format version.
    #[error("{path}: shard format version {version} is not supported (this build reads versions {} to {supported})", file::OLDEST_READ_VERSION)]
    UnsupportedVersion {
        /// The shard file.
        path: PathBuf,
        /// The version the file states.
        version: u16,
        /// The version this build reads ([`FORMAT_VERSION`]).
        supported: u16,
    },
    /// The file's length is not the one its header states.
    #[error("{path}: damaged shard: {len} bytes on disk, the header says {expected} (truncated or extended)")]
    Length {
        /// The shard file.
        path: PathBuf,
        /// Bytes on disk.
        len: u64,
        /// Bytes the header states.
        expected: u64,
    },
    /// The file is over [`MAX_SHARD_BYTES`]; it is not read.
    #[error("{path}: shard of {len} bytes is larger than the limit of {max} bytes")]
    TooLarge {
        /// The shard file.
        path: PathBuf,
        /// Bytes on disk.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// The CRC32 of the contents is not the stored one.
    #[error("{path}: damaged shard: checksum mismatch (stored {stored:#010x}, computed {computed:#010x})")]
    Checksum {
        /// The shard file.
        path: PathBuf,
        /// The CRC32 the file holds.
        stored: u32,
        /// The CRC32 of its contents.
        computed: u32,
    },
    /// The header states more samples than the payload can hold.
    #[error("{path}: damaged shard: the header claims {count} samples, more than {payload_len} payload bytes can hold")]
    AbsurdCount {
        /// The shard file.
        path: PathBuf,
        /// Samples the header states.
        count: u32,
        /// Bytes of payload.
        payload_len: u64,
    },
    /// A record of the payload is malformed.
    #[error("{path}: damaged shard: sample {index}")]
    BadRecord {
        /// The shard file.
        path: PathBuf,
        /// Index of the first bad record (the sample count, for bytes after the last one).
        index: usize,
        /// What is wrong with it.
        source: RecordError,
    },
    /// A sample cannot be encoded.
    #[error("cannot write sample {index} into a shard")]
    BadSample {
        /// Index of the sample among those to write.
        index: usize,
        /// What makes it unwritable.
        source: RecordError,
    },
    /// More samples than one shard's count field holds.
    #[error("cannot write {count} samples into one shard (at most {max})")]
    TooManySamples {
        /// Samples to write.
        count: usize,
        /// The most one shard holds.
        max: usize,
    },
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
