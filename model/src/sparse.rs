//! The sparse family's body in tch, for training (and for exports): the same net as
//! `sparsenet::forward` computes natively, over the dense 0/1 form of the features.
//!
//! ```text
//! input [B, 203] (sparsenet::features)
//!   accumulator: linear -> crelu                      -> [B, A]
//!   policy: linear                                    -> [B, 128] logits
//!   hidden: `layers` x (linear -> crelu)               -> [B, H]
//!   wdl: linear -> [B, 3] logits;  moves_left: linear -> [B, 1]
//! crelu(x) = clamp(x, 0, 1)
//! ```

use crate::net::NetOutput;
use crate::policy::POLICY_SIZE;
use netfile::SparseConfig;
use sparsenet::features::FEATURES;
use tch::nn;
use tch::Tensor;

/// The sparse net's layers, under the variable names `sparsenet::weights` reads.
#[derive(Debug)]
pub(crate) struct SparseBody {
    pub(crate) accumulator: nn::Linear,
    pub(crate) hidden: Vec<nn::Linear>,
    pub(crate) policy: nn::Linear,
    pub(crate) wdl: nn::Linear,
    pub(crate) moves_left: nn::Linear,
}

fn crelu(xs: &Tensor) -> Tensor {
    xs.clamp(0.0, 1.0)
}

impl SparseBody {
    /// Freshly initialised layers under `root`.
    pub(crate) fn new(root: &nn::Path, config: &SparseConfig) -> SparseBody {
        let (a, h) = (config.accumulator as i64, config.hidden as i64);
        let v = if config.layers == 0 { a } else { h };
        let linear = |path: nn::Path, inputs: i64, outputs: i64| {
            nn::linear(path, inputs, outputs, Default::default())
        };
        SparseBody {
            accumulator: linear(root / "accumulator", FEATURES as i64, a),
            hidden: (0..config.layers)
                .map(|i| linear(root / "hidden" / i, if i == 0 { a } else { h }, h))
                .collect(),
            policy: linear(root / "policy", a, POLICY_SIZE as i64),
            wdl: linear(root / "wdl", v, 3),
            moves_left: linear(root / "moves_left", v, 1),
        }
    }

    /// `xs`: `[B, FEATURES]`.
    pub(crate) fn forward_heads(&self, xs: &Tensor) -> NetOutput {
        let accumulator = crelu(&xs.apply(&self.accumulator));
        let hidden =
            self.hidden.iter().fold(accumulator.shallow_clone(), |x, layer| crelu(&x.apply(layer)));
        NetOutput {
            policy: accumulator.apply(&self.policy),
            wdl: hidden.apply(&self.wdl),
            moves_left: hidden.apply(&self.moves_left),
            trunk: accumulator,
        }
    }
}
