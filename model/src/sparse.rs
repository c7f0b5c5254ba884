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
//!
//! With `buckets` = K above one, every bucket's value stack (hidden layers and value heads, their
//! variables stacked along the outputs as `sparsenet::weights` lays them out) runs on every
//! position, as `[B, K, ...]`, and each position keeps its own bucket's outputs: the bucket of
//! its piece count, the sum of its first 128 features (`sparsenet::features::bucket`).

use crate::net::NetOutput;
use crate::policy::POLICY_SIZE;
use netfile::SparseConfig;
use sparsenet::features::{FEATURES, MAX_PIECES, PIECE_FEATURES};
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
    /// Value stacks (`SparseConfig::buckets`).
    pub(crate) buckets: i64,
}

fn crelu(xs: &Tensor) -> Tensor {
    xs.clamp(0.0, 1.0)
}

impl SparseBody {
    /// Freshly initialised layers under `root`.
    pub(crate) fn new(root: &nn::Path, config: &SparseConfig) -> SparseBody {
        let (a, h, k) = (config.accumulator as i64, config.hidden as i64, config.buckets as i64);
        let v = if config.layers == 0 { a } else { h };
        let linear = |path: nn::Path, inputs: i64, outputs: i64| {
            nn::linear(path, inputs, outputs, Default::default())
        };
        SparseBody {
            accumulator: linear(root / "accumulator", FEATURES as i64, a),
            hidden: (0..config.layers)
                .map(|i| linear(root / "hidden" / i, if i == 0 { a } else { h }, k * h))
                .collect(),
            policy: linear(root / "policy", a, POLICY_SIZE as i64),
            wdl: linear(root / "wdl", v, k * 3),
            moves_left: linear(root / "moves_left", v, k),
            buckets: k,
        }
    }

    /// `xs`: `[B, FEATURES]`.
    pub(crate) fn forward_heads(&self, xs: &Tensor) -> NetOutput {
        let accumulator = crelu(&xs.apply(&self.accumulator));
        let (wdl, moves_left) = if self.buckets == 1 {
            let hidden = self
                .hidden
                .iter()
                .fold(accumulator.shallow_clone(), |x, layer| crelu(&x.apply(layer)));
            (hidden.apply(&self.wdl), hidden.apply(&self.moves_left))
        } else {
            self.bucketed_value_heads(xs, &accumulator)
        };
        NetOutput { policy: accumulator.apply(&self.policy), wdl, moves_left, trunk: accumulator }
    }

    /// Every bucket's value stack on every position, then each position's own bucket's WDL
    /// logits `[B, 3]` and moves left `[B, 1]`.
    fn bucketed_value_heads(&self, xs: &Tensor, accumulator: &Tensor) -> (Tensor, Tensor) {
        // No size of the batch is read: a traced export keeps every batch size.
        let k = self.buckets;
        // `[B, K, out]` from `[B, K, in]`: bucket k's rows of the stacked layer.
        let per_bucket = |x: &Tensor, layer: &nn::Linear| {
            let (outputs, inputs) = (layer.ws.size()[0] / k, layer.ws.size()[1]);
            let ws = layer.ws.view([k, outputs, inputs]);
            let bs = layer.bs.as_ref().expect("linear layers have a bias").view([1, k, outputs]);
            Tensor::einsum("bki,koi->bko", &[x, &ws], None::<&[i64]>) + bs
        };
        let start = accumulator.unsqueeze(1).expand([-1, k, -1], false);
        let hidden = self.hidden.iter().fold(start, |x, layer| crelu(&per_bucket(&x, layer)));
        let pieces = xs
            .narrow(1, 0, PIECE_FEATURES as i64)
            .sum_dim_intlist(1, false, tch::Kind::Float)
            .clamp_max(MAX_PIECES as f64);
        let bucket =
            (pieces * k as f64 / (MAX_PIECES + 1) as f64).floor().to_kind(tch::Kind::Int64);
        let pick = |x: Tensor| {
            let width = x.size()[2];
            x.gather(1, &bucket.view([-1, 1, 1]).expand([-1, 1, width], false), false)
                .squeeze_dim(1)
        };
        (pick(per_bucket(&hidden, &self.wdl)), pick(per_bucket(&hidden, &self.moves_left)))
    }
}
