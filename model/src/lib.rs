//! The policy-value network of checkers-zero: input encoding, policy index, the tch net,
//! batched inference, checkpoints and export for other engines.
//!
//! ```text
//! Observation --encoding--> [B, PLANES, 8, 8] --PolicyValueNet--> [B, 132] --> NetEval
//!                                                 policy logits 0..128 (policy index = Step::index_for),
//!                                                 WDL logits 128..131, moves left 131
//! ```

mod autocast;
pub mod checkpoint;
mod config;
mod device;
pub mod encoding;
mod error;
pub mod export;
mod guard;
mod inference;
mod layers;
mod net;
pub mod policy;
pub mod sample;

pub use autocast::autocast_bf16;
pub use checkpoint::{Checkpoint, CheckpointMeta, Extras};
pub use config::NetConfig;
pub use device::{resolve_device, set_cpu_threads, share_cpu_threads};
pub use error::ModelError;
pub use export::ExportFormat;
pub use inference::{Inference, NetEval};
pub use net::{NetOutput, PolicyValueNet, MOVES_LEFT_OFFSET, OUTPUT_SIZE, WDL_OFFSET};
pub use policy::POLICY_SIZE;
pub use support::DeviceSpec;
