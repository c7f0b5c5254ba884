//! Nets for players without libtorch: a sparse checkpoint loads natively; a checkpoint of
//! another family goes to the loader of the net library when the program has one.

use crate::evaluator::SparseEvaluator;
use crate::incremental::IncrementalNet;
use crate::quantised::QuantisedNet;
use crate::weights::SparseWeights;
use netfile::Family;
use search::{LoadedNet, NetLoader};
use std::path::Path;
use std::sync::Arc;
use support::DeviceSpec;

/// Whether the checkpoint at `checkpoint` says (in its header) that it holds a sparse net: what a
/// program decides by before it loads libtorch. A file that cannot be read says no (its loader
/// then names what is wrong).
pub fn is_sparse(checkpoint: &Path) -> bool {
    netfile::read_header(checkpoint).is_ok_and(|meta| meta.config.family() == Family::Sparse)
}

/// Loads sparse checkpoints natively (on the CPU, whatever the device asked for), each player
/// with its own evaluator over the shared weights.
#[derive(Clone, Copy, Debug, Default)]
pub struct NativeLoader;

impl NetLoader for NativeLoader {
    fn load(
        &self,
        checkpoint: &Path,
        _device: DeviceSpec,
    ) -> Result<LoadedNet, Box<dyn std::error::Error + Send + Sync>> {
        let (weights, meta) = SparseWeights::load(checkpoint)?;
        let quantised = Arc::new(QuantisedNet::new(&weights));
        let weights = Arc::new(weights);
        Ok(LoadedNet {
            step: meta.step,
            evaluators: Box::new(move || Box::new(SparseEvaluator::new(Arc::clone(&weights)))),
            leaves_per_batch: Some(1),
            leaf_evaluators: Some(Box::new(move || {
                Box::new(IncrementalNet::new(Arc::clone(&quantised)))
            })),
        })
    }
}

/// Loads each checkpoint by its family: sparse ones natively, the others with `other` (the net
/// library's libtorch loader), or, without it, an error naming the family.
#[derive(Clone, Debug, Default)]
pub struct ByFamily {
    other: Option<Arc<dyn NetLoader>>,
}

impl ByFamily {
    /// A loader that hands the checkpoints it cannot run natively to `other`.
    pub fn new(other: Option<Arc<dyn NetLoader>>) -> ByFamily {
        ByFamily { other }
    }
}

impl NetLoader for ByFamily {
    fn load(
        &self,
        checkpoint: &Path,
        device: DeviceSpec,
    ) -> Result<LoadedNet, Box<dyn std::error::Error + Send + Sync>> {
        match &self.other {
            Some(other) if !is_sparse(checkpoint) => other.load(checkpoint, device),
            _ => NativeLoader.load(checkpoint, device),
        }
    }

    fn set_cpu_threads(&self, threads: usize) {
        if let Some(other) = &self.other {
            other.set_cpu_threads(threads);
        }
    }
}
