//! The policy-value network of checkers-zero: input encoding, policy index, the tch net,
//! batched inference, checkpoints and export for other engines.
//!
//! Two net families share the heads and the output: the ResNet over 8x8 planes (for GPU boxes)
//! and the sparse net over piece-square features (for CPUs; it also plays without libtorch, see
//! the `sparsenet` crate).
//!
//! ```text
//! Observation --encoding::Input--> [B, PLANES, 8, 8] or [B, FEATURES] --PolicyValueNet--> [B, 132] --> NetEval
//!                                                 policy logits 0..128 (policy index = Step::index_for),
//!                                                 WDL logits 128..131, moves left 131
//! ```

mod autocast;
mod aux_head;
pub mod checkpoint;
mod device;
pub mod encoding;
mod error;
pub mod export;
mod guard;
mod inference;
mod layers;
mod net;
pub mod net_evaluator;
pub mod policy;
mod resnet;
pub mod sample;
mod sparse;
mod widen;

pub use autocast::autocast_bf16;
pub use aux_head::AuxPolicyHead;
pub use checkpoint::{Checkpoint, CheckpointMeta, Extras};
pub use device::{configure_cpu_threads, resolve_device, set_cpu_threads, share_cpu_threads};
pub use error::ModelError;
pub use export::ExportFormat;
pub use inference::{Inference, NetEval};
pub use net::{NetOutput, PolicyValueNet, MOVES_LEFT_OFFSET, OUTPUT_SIZE, WDL_OFFSET};
pub use net_evaluator::{
    decision_requests, players_loader, served, NetEvaluator, TorchNetLoader, PLAYERS_MAX_BATCH,
};
pub use netfile::{CheckpointError, Family, NetConfig, ResNetConfig, SparseConfig};
pub use policy::POLICY_SIZE;
pub use support::DeviceSpec;
pub use widen::{split_value_stacks, widen_accumulator};
