//! The trainer's auxiliary heads: policy heads on the net's trunk that learn targets the net
//! itself does not predict, so that the shared body learns from more than the main targets.
//!
//! - soft policy (KataGo): the visit distribution raised to the power 1/4, renormalised, on the
//!   full-search samples: the body also learns to rank the moves the search barely visits;
//! - opponent's reply (KataGo's paper): the visit distribution of the opponent's next decision
//!   (in the opponent's frame), where that decision had a full search.
//!
//! Each head has its own var store and optimizer; its variables and buffers are stored in the
//! training state beside the net's (tensors `aux.<head>.*` and `optim.<i>.aux.<head>.*`, metadata
//! `train.aux.<head>.updates`), never in a net checkpoint: exports and play see the net unchanged.
//! A head is built when its loss weight is above 0; one the state does not hold starts fresh.

use crate::error::StateError;
use crate::optim::Optimizer;
use model::{AuxPolicyHead, Extras, NetConfig};
use runconfig::TrainConfig;
use tch::{nn, Device, Tensor};

/// The power the visit distribution is raised to for the soft-policy target.
pub const SOFT_POLICY_POWER: f64 = 0.25;

/// What an auxiliary head learns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuxTarget {
    /// The visit distribution to the power [`SOFT_POLICY_POWER`] (`train.soft_policy_weight`).
    SoftPolicy,
    /// The opponent's reply's visit distribution (`train.reply_policy_weight`).
    ReplyPolicy,
}

impl AuxTarget {
    const ALL: [AuxTarget; 2] = [AuxTarget::SoftPolicy, AuxTarget::ReplyPolicy];

    /// The head's name in variable names, metadata and TensorBoard.
    pub fn name(self) -> &'static str {
        match self {
            AuxTarget::SoftPolicy => "soft_policy",
            AuxTarget::ReplyPolicy => "reply_policy",
        }
    }

    /// The weight of its loss in `config`.
    pub fn weight(self, config: &TrainConfig) -> f32 {
        match self {
            AuxTarget::SoftPolicy => config.soft_policy_weight,
            AuxTarget::ReplyPolicy => config.reply_policy_weight,
        }
    }

    /// The metadata key of its optimizer's update count.
    fn updates_key(self) -> &'static str {
        match self {
            AuxTarget::SoftPolicy => "train.aux.soft_policy.updates",
            AuxTarget::ReplyPolicy => "train.aux.reply_policy.updates",
        }
    }
}

/// One head with its variables and optimizer.
#[derive(Debug)]
struct AuxHead {
    target: AuxTarget,
    vs: nn::VarStore,
    layers: AuxPolicyHead,
    optimizer: Optimizer,
}

/// The auxiliary heads the config trains.
#[derive(Debug)]
pub struct AuxHeads {
    heads: Vec<AuxHead>,
}

/// The heads' logits for a batch, `[B, 128]` each (illegal steps not masked).
#[derive(Debug, Default)]
pub struct AuxLogits {
    /// The soft-policy head's.
    pub soft_policy: Option<Tensor>,
    /// The opponent's-reply head's.
    pub reply_policy: Option<Tensor>,
}

impl AuxHeads {
    /// Fresh heads for a net of `net_config`, or `None` when `config` trains no auxiliary target.
    pub fn of(net_config: &NetConfig, config: &TrainConfig, device: Device) -> Option<AuxHeads> {
        let heads: Vec<AuxHead> = AuxTarget::ALL
            .into_iter()
            .filter(|target| target.weight(config) > 0.0)
            .map(|target| {
                let vs = nn::VarStore::new(device);
                let layers = AuxPolicyHead::new(&(vs.root() / "aux" / target.name()), net_config);
                let optimizer = Optimizer::new(&vs, &config.optimizer, config.weight_decay);
                AuxHead { target, vs, layers, optimizer }
            })
            .collect();
        (!heads.is_empty()).then_some(AuxHeads { heads })
    }

    /// The targets of the heads, in order.
    pub fn targets(&self) -> impl Iterator<Item = AuxTarget> + '_ {
        self.heads.iter().map(|h| h.target)
    }

    /// Each head's logits from the net's trunk (`train` as for the net's forward pass).
    pub fn logits(&self, trunk: &Tensor, train: bool) -> AuxLogits {
        let mut logits = AuxLogits::default();
        for head in &self.heads {
            let out = Some(head.layers.forward_t(trunk, train));
            match head.target {
                AuxTarget::SoftPolicy => logits.soft_policy = out,
                AuxTarget::ReplyPolicy => logits.reply_policy = out,
            }
        }
        logits
    }

    /// Zeroes the heads' gradients.
    pub fn zero_grad(&mut self) {
        self.heads.iter_mut().for_each(|h| h.optimizer.zero_grad());
    }

    /// Clips each head's gradient to `max_norm` on its own (as [`Optimizer::clip_grad_norm`]);
    /// returns the norm over all heads before clipping.
    pub fn clip_grad_norm(&mut self, max_norm: f64) -> f64 {
        let squares: f64 =
            self.heads.iter_mut().map(|h| h.optimizer.clip_grad_norm(max_norm).powi(2)).sum();
        squares.sqrt()
    }

    /// One update of every head at learning rate `lr`.
    pub fn step(&mut self, lr: f64) {
        self.heads.iter_mut().for_each(|h| h.optimizer.step(lr));
    }

    /// What a training state stores for the heads: tensors (their variables by name, `aux.*`,
    /// and their optimizer buffers, `optim.<i>.aux.*`) and metadata (update counts).
    pub fn state(&self) -> Extras {
        let mut extras = Extras::default();
        for head in &self.heads {
            extras.tensors.extend(head.optimizer.state());
            extras.tensors.extend(head.vs.variables());
            extras
                .meta
                .insert(head.target.updates_key().into(), head.optimizer.updates().to_string());
        }
        extras
    }

    /// Takes each head's variables, optimizer buffers and update count from a training state's
    /// extras. A head the state has none of stays fresh; the fresh heads are returned. A head
    /// stored in part, or in another shape, is an error.
    pub fn restore(&mut self, stored: &Extras) -> Result<Vec<AuxTarget>, StateError> {
        let mut fresh = Vec::new();
        for head in &mut self.heads {
            let variables = head.vs.variables();
            if !variables.keys().any(|name| stored.tensors.contains_key(name)) {
                fresh.push(head.target);
                continue;
            }
            for (name, var) in &variables {
                let Some(tensor) = stored.tensors.get(name) else {
                    return Err(StateError::MissingVariable { name: name.clone() });
                };
                if tensor.size() != var.size() {
                    return Err(StateError::VariableShape {
                        name: name.clone(),
                        found: tensor.size(),
                        expected: var.size(),
                    });
                }
            }
            let key = head.target.updates_key();
            let text = stored.meta.get(key).ok_or(StateError::MissingEntry { key })?;
            let updates =
                text.parse().map_err(|_| StateError::NotANumber { key, text: text.clone() })?;
            head.optimizer.load_state(&stored.tensors, updates)?;
            tch::no_grad(|| {
                for (name, mut var) in variables {
                    var.copy_(&stored.tensors[&name].to_kind(var.kind()).to_device(var.device()));
                }
            });
        }
        Ok(fresh)
    }
}

/// The soft-policy target of visit distributions `policy` (`[B, 128]`, normalised, 0 off the
/// legal steps): each share to the power [`SOFT_POLICY_POWER`], renormalised. A row of zeros
/// (no policy target) stays zeros.
pub fn soft_policy_target(policy: &Tensor) -> Tensor {
    let soft = policy.clamp_min(0.0).pow_tensor_scalar(SOFT_POLICY_POWER);
    let total = soft.sum_dim_intlist(-1, true, tch::Kind::Float).clamp_min(1e-12);
    soft / total
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::SparseConfig;

    fn sparse() -> NetConfig {
        NetConfig::Sparse(SparseConfig { accumulator: 8, hidden: 4, layers: 1, buckets: 1 })
    }

    fn config(soft: f32, reply: f32) -> TrainConfig {
        TrainConfig {
            soft_policy_weight: soft,
            reply_policy_weight: reply,
            ..TrainConfig::default()
        }
    }

    #[test]
    fn the_soft_target_flattens_the_visits_and_keeps_the_support() {
        let policy =
            Tensor::from_slice(&[0.81f32, 0.01, 0.0, 0.18, 0.0, 0.0, 0.0, 0.0]).view([2, 4]);
        let soft = Vec::<f32>::try_from(soft_policy_target(&policy).view([-1])).unwrap();
        let roots = [0.81f32.powf(0.25), 0.01f32.powf(0.25), 0.0, 0.18f32.powf(0.25)];
        let total: f32 = roots.iter().sum();
        for (got, root) in soft[..4].iter().zip(roots) {
            assert!((got - root / total).abs() < 1e-5, "{soft:?}");
        }
        assert!(soft[1] > 0.01 * 5.0, "a barely visited step gets a real share: {soft:?}");
        assert_eq!(soft[2], 0.0, "an unvisited step stays at 0");
        assert_eq!(&soft[4..], &[0.0; 4], "a sample without a policy target stays without");
    }

    #[test]
    fn a_head_for_each_weight_above_zero() {
        let targets = |soft, reply| {
            AuxHeads::of(&sparse(), &config(soft, reply), Device::Cpu)
                .map(|heads| heads.targets().collect::<Vec<_>>())
        };
        assert_eq!(targets(0.0, 0.0), None);
        assert_eq!(targets(1.0, 0.0), Some(vec![AuxTarget::SoftPolicy]));
        assert_eq!(targets(0.0, 0.2), Some(vec![AuxTarget::ReplyPolicy]));
        assert_eq!(targets(1.0, 0.2).unwrap().len(), 2);
    }

    #[test]
    fn the_heads_round_trip_and_a_head_the_state_lacks_starts_fresh() {
        tch::manual_seed(1);
        let heads = AuxHeads::of(&sparse(), &config(1.0, 0.0), Device::Cpu).unwrap();
        let state = heads.state();
        let names: Vec<&String> = state.tensors.keys().collect();
        assert!(
            names.iter().all(|n| n.starts_with("aux.") || n.starts_with("optim.")),
            "{names:?}"
        );
        assert!(state.tensors.contains_key("aux.soft_policy.weight"), "{names:?}");
        tch::manual_seed(2);
        let mut both = AuxHeads::of(&sparse(), &config(1.0, 0.2), Device::Cpu).unwrap();
        let trunk = Tensor::ones([1, 8], (tch::Kind::Float, Device::Cpu));
        let soft = |h: &AuxHeads| h.logits(&trunk, false).soft_policy.unwrap();
        assert_ne!(soft(&both), soft(&heads));
        assert_eq!(both.restore(&state).unwrap(), [AuxTarget::ReplyPolicy]);
        assert_eq!(soft(&both), soft(&heads), "the stored head is restored");
        let mut partial = heads.state();
        partial.tensors.remove("aux.soft_policy.bias");
        assert!(matches!(both.restore(&partial), Err(StateError::MissingVariable { .. })));
    }
}
