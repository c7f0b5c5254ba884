//! The losses of one batch and the figures reported beside them.
//!
//! - policy: cross-entropy of the net's policy, softmax over the legal steps only, against the
//!   visit distribution, averaged over the full-search samples;
//! - value: cross-entropy of the WDL head against the (result, search value) mix, averaged over
//!   the samples that are value targets;
//! - moves left: Huber loss on plies to the end, both divided by `moves_left_scale`.
//!
//! L2 is applied by the optimizer as weight decay, not here.

use crate::batch::Batch;
use model::NetOutput;
use runconfig::TrainConfig;
use tch::{Kind, Reduction, Tensor};

/// Logit given to illegal steps: far below any real logit, finite so `0 * log p` stays 0.
const ILLEGAL_LOGIT: f64 = -1e9;

/// The losses (scalar tensors; `total` carries the graph) and detached figures.
#[derive(Debug)]
pub struct Losses {
    /// Weighted sum of the three losses, with its graph, for `backward`.
    pub total: Tensor,
    /// Cross-entropy of the net's legal-step policy against the visit distribution, over the full-search samples.
    pub policy: Tensor,
    /// Cross-entropy of the WDL head against the WDL target.
    pub value: Tensor,
    /// Huber loss of the moves-left head (both sides scaled by `moves_left_scale`).
    pub moves_left: Tensor,
    /// Mean entropy of the net's legal-step policy on the full-search samples.
    pub policy_entropy: Tensor,
    /// Share of the value targets whose most likely predicted outcome is the target's most likely
    /// one.
    pub value_accuracy: Tensor,
}

/// The losses of `out` (the net's heads on `batch.inputs`) against `batch`'s targets.
pub fn losses(out: &NetOutput, batch: &Batch, config: &TrainConfig) -> Losses {
    let logits =
        out.policy.to_kind(Kind::Float).masked_fill(&batch.legal.logical_not(), ILLEGAL_LOGIT);
    let log_p = logits.log_softmax(-1, Kind::Float);
    let weights = &batch.policy_weight;
    let weight_sum = weights.sum(Kind::Float).clamp_min(1.0);
    let cross_entropy = -(&batch.policy * &log_p).sum_dim_intlist(-1, false, Kind::Float);
    let policy = (&cross_entropy * weights).sum(Kind::Float) / &weight_sum;
    let entropy = -(log_p.exp() * &log_p).sum_dim_intlist(-1, false, Kind::Float);
    let policy_entropy = ((entropy * weights).sum(Kind::Float) / &weight_sum).detach();

    let wdl = out.wdl.to_kind(Kind::Float);
    let value_weights = &batch.value_weight;
    let value_weight_sum = value_weights.sum(Kind::Float).clamp_min(1.0);
    let value_cross_entropy =
        -(&batch.wdl * wdl.log_softmax(-1, Kind::Float)).sum_dim_intlist(-1, false, Kind::Float);
    let value = (value_cross_entropy * value_weights).sum(Kind::Float) / &value_weight_sum;
    let hits = wdl.argmax(-1, false).eq_tensor(&batch.wdl.argmax(-1, false)).to_kind(Kind::Float);
    let value_accuracy = ((hits * value_weights).sum(Kind::Float) / &value_weight_sum).detach();

    let scale = f64::from(config.moves_left_scale);
    let predicted = out.moves_left.to_kind(Kind::Float).view([-1]) / scale;
    let moves_left = predicted.huber_loss(&(&batch.moves_left / scale), Reduction::Mean, 1.0);

    let total = &policy * f64::from(config.policy_weight)
        + &value * f64::from(config.value_weight)
        + &moves_left * f64::from(config.moves_left_weight);
    Losses {
        total,
        policy: policy.detach(),
        value: value.detach(),
        moves_left: moves_left.detach(),
        policy_entropy,
        value_accuracy,
    }
}
