//! Checkpoints: the net's weights as safetensors, with everything needed to rebuild and trust them
//! in the header's `__metadata__` (the layout, metadata keys and checks are `netfile`'s), plus room
//! for the trainer's own tensors and metadata.

mod load;
mod save;
mod tensors;

pub use load::load;
pub use netfile::{CheckpointMeta, FORMAT, FORMAT_VERSION, MAX_HEADER_BYTES};
pub use save::save;

use crate::net::PolicyValueNet;
use std::collections::BTreeMap;
use tch::Tensor;

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
