//! Checkpoints: the net's weights as safetensors, with everything needed to rebuild and trust them
//! in the header's `__metadata__`, plus room for the trainer's own tensors and metadata.
//!
//! Metadata keys (all strings): `format` = `checkers-zero-checkpoint`, `format_version`,
//! `encoding_version`, `architecture` (the [`NetConfig`] as JSON), `step`, `parent` (absent for a
//! first net), `created_unix` (seconds), `crate_version`, `crc32` (see [`tensors::checksum`]),
//! and `extra.<key>` for each extra metadata entry. Net variables are stored under their var-store
//! names (`tower.0.conv1.weight`, f32); extra tensors under `extra/<name>`.

mod load;
mod save;
mod tensors;

pub use load::load;
pub use save::save;

use crate::config::NetConfig;
use crate::net::PolicyValueNet;
use std::collections::BTreeMap;
use tch::Tensor;

/// The value of the `format` metadata key.
pub const FORMAT: &str = "checkers-zero-checkpoint";
/// Bumped when the file layout or metadata keys change incompatibly.
pub const FORMAT_VERSION: u32 = 1;
/// A header longer than this is refused before it is read (ours are a few KiB; 16 MiB leaves room
/// for thousands of extra tensors).
pub const MAX_HEADER_BYTES: u64 = 16 << 20;

const EXTRA_META_PREFIX: &str = "extra.";
const EXTRA_TENSOR_PREFIX: &str = "extra/";

/// What a checkpoint says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointMeta {
    /// The architecture of the stored net (blocks, channels).
    pub config: NetConfig,
    /// Version of the checkpoint file layout (see [`FORMAT_VERSION`]).
    pub format_version: u32,
    /// Version of the input encoding the net was trained on (see [`crate::encoding::ENCODING_VERSION`]).
    pub encoding_version: u32,
    /// Training steps behind these weights.
    pub step: u64,
    /// The checkpoint these weights were trained from (a file name or id), if any.
    pub parent: Option<String>,
    /// When the file was written, seconds since the Unix epoch.
    pub created_unix: u64,
    /// Version of the crate that wrote the file.
    pub crate_version: String,
}

/// The trainer's own data stored beside the weights (optimizer state, RNG state, counters...).
#[derive(Debug, Default)]
pub struct Extras {
    /// Extra metadata; keys and values are free text.
    pub meta: BTreeMap<String, String>,
    /// Extra tensors by name (any name; kinds f32, f64, bf16, f16, i64, i32, i8, u8, bool).
    /// Loaded back on the CPU.
    pub tensors: BTreeMap<String, Tensor>,
}

/// A loaded checkpoint.
#[derive(Debug)]
pub struct Checkpoint {
    /// What the file says about itself.
    pub meta: CheckpointMeta,
    /// The net with the stored weights, on the device asked for.
    pub net: PolicyValueNet,
    /// The trainer's data stored beside the weights.
    pub extras: Extras,
}
