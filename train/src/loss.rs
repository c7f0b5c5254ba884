//! The losses of one batch and the figures reported beside them.
//!
//! - policy: cross-entropy of the net's policy, softmax over the legal steps only, against the
//!   visit distribution, averaged over the full-search samples (weighted by their surprise to the
//!   net when `policy_surprise_weight` is above 0);
//! - value: cross-entropy of the WDL head against the (result, search value) mix, averaged over
//!   the samples that are value targets;
//! - moves left: Huber loss on plies to the end, both divided by `moves_left_scale`;
//! - with the auxiliary heads (see [`crate::aux_heads`]): soft policy, the cross-entropy of its
//!   legal-step policy against the visit distribution to the power 1/4, weighted as the policy;
//!   opponent's reply, the cross-entropy of its policy over the reply's legal steps against the
//!   reply's visit distribution, averaged over the samples whose reply had a full search.
//!
//! L2 is applied by the optimizer as weight decay, not here.

use crate::aux_heads::{soft_policy_target, AuxLogits};
use crate::batch::Batch;
use model::NetOutput;
use runconfig::TrainConfig;
use tch::{Kind, Reduction, Tensor};

/// Logit given to illegal steps: far below any real logit, finite so `0 * log p` stays 0.
const ILLEGAL_LOGIT: f64 = -1e9;

/// The losses (scalar tensors; `total` carries the graph) and detached figures.
#[derive(Debug)]
pub struct Losses {
    /// Weighted sum of the losses, with its graph, for `backward`.
    pub total: Tensor,
    /// Cross-entropy of the net's legal-step policy against the visit distribution, over the full-search samples.
    pub policy: Tensor,
    /// Cross-entropy of the WDL head against the WDL target.
    pub value: Tensor,
    /// Huber loss of the moves-left head (both sides scaled by `moves_left_scale`).
    pub moves_left: Tensor,
    /// Cross-entropy of the soft-policy head against its target, when there is the head.
    pub soft_policy: Option<Tensor>,
    /// Cross-entropy of the opponent's-reply head against its target, when there is the head.
    pub reply_policy: Option<Tensor>,
    /// Mean entropy of the net's legal-step policy on the full-search samples.
    pub policy_entropy: Tensor,
    /// Share of the value targets whose most likely predicted outcome is the target's most likely
    /// one.
    pub value_accuracy: Tensor,
}

/// The policy weights of the samples: `base` (1 for a full-search sample, else 0), of which the
/// share `policy_surprise_weight` is handed out in proportion to each sample's surprise, the KL
/// divergence of its target from the net's policy (`cross_entropy` less the target's entropy),
/// over the mean surprise of the batch's full-search samples. The weights sum as `base` does.
fn surprise_weights(
    base: &Tensor,
    target: &Tensor,
    cross_entropy: &Tensor,
    config: &TrainConfig,
) -> Tensor {
    let share = f64::from(config.policy_surprise_weight);
    if share == 0.0 {
        return base.shallow_clone();
    }
    let target_entropy =
        -(target * target.clamp_min(1e-12).log()).sum_dim_intlist(-1, false, Kind::Float);
    let surprise = (cross_entropy.detach() - target_entropy).clamp_min(0.0) * base;
    let mean = surprise.sum(Kind::Float) / base.sum(Kind::Float).clamp_min(1.0);
    let relative = surprise / mean.clamp_min(1e-6);
    base * (1.0 - share) + relative * share
}

/// Log-probabilities of `logits` over the steps `legal`.
fn legal_log_softmax(logits: &Tensor, legal: &Tensor) -> Tensor {
    let logits = logits.to_kind(Kind::Float).masked_fill(&legal.logical_not(), ILLEGAL_LOGIT);
    logits.log_softmax(-1, Kind::Float)
}

/// Per sample, the cross-entropy of the log-probabilities `log_q` against `target`.
fn cross_entropy(target: &Tensor, log_q: &Tensor) -> Tensor {
    -(target * log_q).sum_dim_intlist(-1, false, Kind::Float)
}

/// The mean of the per-sample `values` weighted by `weights` (0 when the weights are all 0).
fn weighted_mean(values: &Tensor, weights: &Tensor) -> Tensor {
    (values * weights).sum(Kind::Float) / weights.sum(Kind::Float).clamp_min(1.0)
}

/// The losses of `out` (the net's heads on `batch.inputs`) and of `aux` (the auxiliary heads',
/// those there are) against `batch`'s targets.
pub fn losses(out: &NetOutput, aux: &AuxLogits, batch: &Batch, config: &TrainConfig) -> Losses {
    let log_p = legal_log_softmax(&out.policy, &batch.legal);
    let policy_cross_entropy = cross_entropy(&batch.policy, &log_p);
    let weights =
        &surprise_weights(&batch.policy_weight, &batch.policy, &policy_cross_entropy, config);
    let policy = weighted_mean(&policy_cross_entropy, weights);
    let policy_entropy = weighted_mean(&cross_entropy(&log_p.exp(), &log_p), weights).detach();

    let wdl = out.wdl.to_kind(Kind::Float);
    let value_weights = &batch.value_weight;
    let value =
        weighted_mean(&cross_entropy(&batch.wdl, &wdl.log_softmax(-1, Kind::Float)), value_weights);
    let hits = wdl.argmax(-1, false).eq_tensor(&batch.wdl.argmax(-1, false)).to_kind(Kind::Float);
    let value_accuracy = weighted_mean(&hits, value_weights).detach();

    let scale = f64::from(config.moves_left_scale);
    let predicted = out.moves_left.to_kind(Kind::Float).view([-1]) / scale;
    let moves_left = predicted.huber_loss(&(&batch.moves_left / scale), Reduction::Mean, 1.0);

    let soft_policy = aux.soft_policy.as_ref().map(|logits| {
        let log_q = legal_log_softmax(logits, &batch.legal);
        weighted_mean(&cross_entropy(&soft_policy_target(&batch.policy), &log_q), weights)
    });
    let reply_policy = aux.reply_policy.as_ref().map(|logits| {
        let log_q = legal_log_softmax(logits, &batch.reply_legal);
        weighted_mean(&cross_entropy(&batch.reply_policy, &log_q), &batch.reply_weight)
    });

    let mut total = &policy * f64::from(config.policy_weight)
        + &value * f64::from(config.value_weight)
        + &moves_left * f64::from(config.moves_left_weight);
    if let Some(soft) = &soft_policy {
        total += soft * f64::from(config.soft_policy_weight);
    }
    if let Some(reply) = &reply_policy {
        total += reply * f64::from(config.reply_policy_weight);
    }
    Losses {
        total,
        policy: policy.detach(),
        value: value.detach(),
        moves_left: moves_left.detach(),
        soft_policy: soft_policy.map(|soft| soft.detach()),
        reply_policy: reply_policy.map(|reply| reply.detach()),
        policy_entropy,
        value_accuracy,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surprise_weights_favour_the_surprising_targets_and_keep_their_sum() {
        // Two full-search samples, one not: the net puts 0.9 on step 0 in both; the first target
        // agrees, the second puts everything on step 1.
        let log_p = Tensor::from_slice(&[0.9f32, 0.1, 0.9, 0.1, 0.5, 0.5]).view([3, 2]).log();
        let target = Tensor::from_slice(&[0.9f32, 0.1, 0.0, 1.0, 0.5, 0.5]).view([3, 2]);
        let base = Tensor::from_slice(&[1.0f32, 1.0, 0.0]);
        let cross_entropy = -(&target * &log_p).sum_dim_intlist(-1, false, Kind::Float);
        let weights = |share: f32| {
            let config = TrainConfig { policy_surprise_weight: share, ..TrainConfig::default() };
            let w = surprise_weights(&base, &target, &cross_entropy, &config);
            Vec::<f32>::try_from(w).unwrap()
        };
        assert_eq!(weights(0.0), vec![1.0, 1.0, 0.0]);
        let w = weights(0.5);
        assert!((w[0] - 0.5).abs() < 1e-4 && (w[1] - 1.5).abs() < 1e-4, "{w:?}");
        assert_eq!(w[2], 0.0, "a sample without a policy target stays out");
        let w = weights(1.0);
        assert!((w.iter().sum::<f32>() - 2.0).abs() < 1e-4, "{w:?}");
    }
}
