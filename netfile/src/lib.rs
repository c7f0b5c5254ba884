//! The checkpoint file of checkers-zero, readable without libtorch: the two net families'
//! architectures ([`NetConfig`]), what a checkpoint says about itself ([`CheckpointMeta`]), and the
//! checks every reader runs before it trusts a byte (header size, format, versions, checksum).
//!
//! The `model` crate writes and reads checkpoints into tch nets through this crate; the native
//! inference of the sparse family (`sparsenet`) reads them with no libtorch at all.
//!
//! ```
//! use netfile::{Family, NetConfig};
//! let resnet: NetConfig = serde_json::from_str(r#"{"blocks": 4, "channels": 32}"#).unwrap();
//! assert_eq!(resnet.family(), Family::Resnet);
//! let sparse: NetConfig = serde_json::from_str(r#"{"kind": "sparse"}"#).unwrap();
//! assert_eq!(sparse.family(), Family::Sparse);
//! ```

mod config;
mod error;
mod file;

pub use config::{Family, NetConfig, ResNetConfig, SparseConfig};
pub use error::CheckpointError;
pub use file::{
    checksum, header_entries, read_header, CheckpointFile, CheckpointMeta, CRC_KEY,
    EXTRA_META_PREFIX, EXTRA_TENSOR_PREFIX, FORMAT, FORMAT_VERSION, MAX_HEADER_BYTES,
};

/// Version of the ResNet's input planes (`model::encoding`). Version 2: mid-capture, the piece
/// planes show the moving piece on its current square.
pub const PLANES_VERSION: u32 = 2;

/// Version of the sparse family's input features (`sparsenet::features`).
pub const SPARSE_FEATURES_VERSION: u32 = 1;
