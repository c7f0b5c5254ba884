//! Training: a replay window over self-play samples, the losses and optimizer, checkpoints and
//! TensorBoard logs.
//!
//! ```text
//! RUN/shards/*.shard --ReplayBuffer (window, uniform sampling)--> HostBatch --> Batch (the family's input)
//!   (drawn ahead on the batch thread, in page-locked memory for CUDA) --copy to the device-->
//!   --PolicyValueNet (train mode, bf16 autocast on CUDA)--> losses --> backward --> clip
//!   --> Optimizer (SGD / AdamW, f32)
//!   (with train.ema_decay: the averaged weights follow each update)
//!   every K steps: RUN/nets/step-N.safetensors (the average, if kept), then
//!     RUN/train/state-N.safetensors (commit point)
//!   every L steps: RUN/tb/train/ events
//!   at each checkpoint, with endgame tables: the value head on a fixed set of table positions
//!     -> RUN/train/egdb_accuracy.jsonl and TensorBoard
//! ```

pub mod aux_heads;
pub mod average;
pub mod batch;
pub mod endgame;
mod error;
mod init;
pub mod loss;
pub mod optim;
mod prefetch;
pub mod replay;
pub mod schedule;
pub mod state;
pub mod synthetic;
pub mod tb;
mod trainer;

pub use endgame::{
    read_endgame_log, EndgameAccuracy, EndgameLog, EndgameSet, ENDGAME_LOG_FILE, ENDGAME_SET_SIZE,
};
pub use error::{StateError, TrainError};
pub use init::initial_net;
pub use replay::{Growth, Refresh, ReplayBuffer};
pub use tb::{EvalFigures, SelfPlayFigures, TbLogger};
pub use trainer::{candidate_path, Opened, StepOutcome, TrainPaths, Trainer};
