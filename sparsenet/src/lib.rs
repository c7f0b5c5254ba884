//! The sparse net family without libtorch. A position is a set of about 25 active features
//! ([`features`]: the pieces on the 32 dark squares in the mover's frame, a capture in progress,
//! the draw counters); the net is an accumulator (the sum of the active features' columns) read by
//! the policy head, then a few small dense layers read by the value heads ([`forward`]). Its
//! weights come from a checkpoint of the sparse family ([`weights`]), trained by the tch net of
//! the same shape in the `model` crate. [`SparseEvaluator`] is the search's evaluator over it and
//! [`NativeLoader`] the players' loader, so a sparse net plays without libtorch. For alpha-beta,
//! [`QuantisedNet`] holds the value path in integers and [`IncrementalNet`] keeps its
//! accumulators up to date move by move ([`quantised`], [`incremental`]).

pub mod evaluator;
pub mod features;
pub mod forward;
pub mod incremental;
pub mod loader;
pub mod quantised;
pub mod quantised_file;
pub mod weights;

pub use evaluator::SparseEvaluator;
pub use forward::{Scratch, ValueOutput};
pub use incremental::IncrementalNet;
pub use loader::{is_sparse, ByFamily, NativeLoader};
pub use quantised::QuantisedNet;
pub use weights::SparseWeights;

use netfile::{CheckpointError, Family};
use std::path::PathBuf;

/// Why a sparse net could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum NativeError {
    /// The file is not a checkpoint that can be trusted, or does not fit its architecture.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The checkpoint holds a net of another family.
    #[error("{path}: a {found} net: native inference runs only the sparse family (the {found} family needs the net library, libtorch)")]
    Family {
        /// The file.
        path: PathBuf,
        /// Its family.
        found: Family,
    },
}
