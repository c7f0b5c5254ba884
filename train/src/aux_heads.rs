//! The trainer's auxiliary heads: KataGo's soft-policy target, a second policy head on the net's
//! trunk that learns the visit distribution raised to the power 1/4 (renormalised), so that the
//! body also learns to tell apart the moves the search barely visits. The heads' variables and
//! optimizer buffers are stored in the training state beside the net's (tensors `aux.*` and
//! `optim.<i>.aux.*`, metadata `train.aux_updates`), never in a net checkpoint: exports and play
//! see the net unchanged. Built only when `train.soft_policy_weight` is above 0.

use crate::error::StateError;
use crate::optim::Optimizer;
use model::{AuxPolicyHead, NetConfig};
use runconfig::TrainConfig;
use std::collections::BTreeMap;
use tch::{nn, Device, Tensor};

/// The root of the heads' variable names.
const ROOT: &str = "aux";

/// The power the visit distribution is raised to for the soft-policy target.
pub const SOFT_POLICY_POWER: f64 = 0.25;

/// The auxiliary heads, their variables and their optimizer.
#[derive(Debug)]
pub struct AuxHeads {
    vs: nn::VarStore,
    soft_policy: AuxPolicyHead,
    optimizer: Optimizer,
}

impl AuxHeads {
    /// Fresh heads for a net of `net_config`, or `None` when `config` trains no auxiliary target.
    pub fn of(net_config: &NetConfig, config: &TrainConfig, device: Device) -> Option<AuxHeads> {
        if config.soft_policy_weight == 0.0 {
            return None;
        }
        let vs = nn::VarStore::new(device);
        let soft_policy = AuxPolicyHead::new(&(vs.root() / ROOT / "soft_policy"), net_config);
        let optimizer = Optimizer::new(&vs, &config.optimizer, config.weight_decay);
        Some(AuxHeads { vs, soft_policy, optimizer })
    }

    /// The soft-policy head's logits `[B, 128]` from the net's trunk (illegal steps not masked).
    pub fn soft_policy(&self, trunk: &Tensor, train: bool) -> Tensor {
        self.soft_policy.forward_t(trunk, train)
    }

    /// The heads' optimizer: it steps with the net's, at the same learning rate.
    pub fn optimizer_mut(&mut self) -> &mut Optimizer {
        &mut self.optimizer
    }

    /// Updates the heads' optimizer has applied (stored as `train.aux_updates`).
    pub fn updates(&self) -> u64 {
        self.optimizer.updates()
    }

    /// The tensors a training state stores for the heads: their variables by name (`aux.*`) and
    /// their optimizer buffers (`optim.<i>.aux.*`).
    pub fn state(&self) -> BTreeMap<String, Tensor> {
        let mut state = self.optimizer.state();
        state.extend(self.vs.variables());
        state
    }

    /// Takes the heads' variables and optimizer buffers from a training state's extra tensors.
    /// A state with none of them (saved without auxiliary heads) leaves the heads fresh and
    /// returns `false`; one with some but not all, or of another shape, is an error.
    pub fn restore(
        &mut self,
        tensors: &BTreeMap<String, Tensor>,
        updates: u64,
    ) -> Result<bool, StateError> {
        let variables = self.vs.variables();
        if !variables.keys().any(|name| tensors.contains_key(name)) {
            return Ok(false);
        }
        for (name, var) in &variables {
            let Some(stored) = tensors.get(name) else {
                return Err(StateError::MissingAuxVariable { name: name.clone() });
            };
            if stored.size() != var.size() {
                return Err(StateError::AuxVariableShape {
                    name: name.clone(),
                    found: stored.size(),
                    expected: var.size(),
                });
            }
        }
        self.optimizer.load_state(tensors, updates)?;
        tch::no_grad(|| {
            for (name, mut var) in variables {
                var.copy_(&tensors[&name].to_kind(var.kind()).to_device(var.device()));
            }
        });
        Ok(true)
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
        NetConfig::Sparse(SparseConfig { accumulator: 8, hidden: 4, layers: 1 })
    }

    fn config(weight: f32) -> TrainConfig {
        TrainConfig { soft_policy_weight: weight, ..TrainConfig::default() }
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
    fn no_heads_without_their_weight() {
        assert!(AuxHeads::of(&sparse(), &config(0.0), Device::Cpu).is_none());
        assert!(AuxHeads::of(&sparse(), &config(1.0), Device::Cpu).is_some());
    }

    #[test]
    fn the_heads_round_trip_through_their_state_and_a_state_without_them_keeps_them_fresh() {
        tch::manual_seed(1);
        let heads = AuxHeads::of(&sparse(), &config(1.0), Device::Cpu).unwrap();
        let state = heads.state();
        assert!(state.keys().all(|name| name.starts_with("aux.") || name.starts_with("optim.")));
        assert!(state.contains_key("aux.soft_policy.weight"), "{:?}", state.keys());
        tch::manual_seed(2);
        let mut other = AuxHeads::of(&sparse(), &config(1.0), Device::Cpu).unwrap();
        let trunk = Tensor::ones([1, 8], (tch::Kind::Float, Device::Cpu));
        assert_ne!(other.soft_policy(&trunk, false), heads.soft_policy(&trunk, false));
        assert!(!other.restore(&BTreeMap::new(), 0).unwrap(), "nothing stored: fresh heads");
        assert!(other.restore(&state, 3).unwrap());
        assert_eq!(other.soft_policy(&trunk, false), heads.soft_policy(&trunk, false));
        assert_eq!(other.updates(), 3);
        let mut partial = state;
        partial.remove("aux.soft_policy.bias");
        assert!(matches!(other.restore(&partial, 3), Err(StateError::MissingAuxVariable { .. })));
    }
}
