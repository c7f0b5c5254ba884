//! The averaged weights that the candidates are made of (`train.ema_decay`): an exponential
//! moving average of the net's variables (Polyak averaging), updated after every optimizer step,
//!
//! ```text
//! d = min(ema_decay, (1 + n) / (10 + n))     n: updates averaged so far
//! average = d * average + (1 - d) * weights
//! ```
//!
//! (the warm-up of `d` lets the first candidates follow the net instead of its random start). The
//! trainer goes on training the net itself; the average is what it writes as a candidate, so
//! what the gate plays and promotes. Batch-norm statistics are averaged like the weights. The
//! training state keeps it (tensors `ema.<variable>`, metadata `train.ema.updates`), so a resume
//! goes on with the same average; a state without it starts the average from the net.

use crate::error::StateError;
use model::{Extras, ModelError, PolicyValueNet};
use std::collections::BTreeMap;
use tch::Tensor;

/// Prefix of the average's tensors in a training state.
const PREFIX: &str = "ema.";
/// Metadata key of the updates averaged.
const UPDATES_KEY: &str = "train.ema.updates";

/// The average of a net's weights over its updates.
#[derive(Debug)]
pub struct WeightAverage {
    net: PolicyValueNet,
    decay: f64,
    updates: u64,
}

impl WeightAverage {
    /// An average that starts at `net`'s weights, for a decay of `decay`.
    pub fn start(net: &PolicyValueNet, decay: f64) -> Result<WeightAverage, ModelError> {
        let mut copy = PolicyValueNet::new(net.config(), net.device())?;
        copy.var_store_mut().copy(net.var_store())?;
        Ok(WeightAverage { net: copy, decay, updates: 0 })
    }

    /// The averaged net.
    pub fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    /// Updates averaged so far.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// The decay the next update uses: `ema_decay`, less during the first updates.
    pub fn next_decay(&self) -> f64 {
        let n = self.updates as f64;
        self.decay.min((1.0 + n) / (10.0 + n))
    }

    /// Moves the average towards `net`'s weights (the net it started from, after an update).
    pub fn update(&mut self, net: &PolicyValueNet) {
        let weight = 1.0 - self.next_decay();
        let weights = net.var_store().variables();
        tch::no_grad(|| {
            for (name, mut average) in self.net.var_store().variables() {
                let _ = average.lerp_(&weights[&name], weight);
            }
        });
        self.updates += 1;
    }

    /// The average's tensors and update count, for the training state.
    pub fn state(&self) -> Extras {
        let tensors: BTreeMap<String, Tensor> = self
            .net
            .var_store()
            .variables()
            .into_iter()
            .map(|(name, t)| (format!("{PREFIX}{name}"), t))
            .collect();
        let meta = BTreeMap::from([(UPDATES_KEY.to_string(), self.updates.to_string())]);
        Extras { meta, tensors }
    }

    /// The average stored in a training state's extras, for `net` (the net restored from it);
    /// `None` when the state holds no average. An average stored in part, or in another shape,
    /// is an error.
    pub fn restore(
        net: &PolicyValueNet,
        decay: f64,
        stored: &Extras,
    ) -> Result<Option<WeightAverage>, StateError> {
        if !stored.tensors.keys().any(|name| name.starts_with(PREFIX)) {
            return Ok(None);
        }
        let mut average = WeightAverage::start(net, decay).map_err(StateError::Average)?;
        let text =
            stored.meta.get(UPDATES_KEY).ok_or(StateError::MissingEntry { key: UPDATES_KEY })?;
        average.updates = text
            .parse()
            .map_err(|_| StateError::NotANumber { key: UPDATES_KEY, text: text.clone() })?;
        for (name, mut var) in average.net.var_store().variables() {
            let name = format!("{PREFIX}{name}");
            let Some(tensor) = stored.tensors.get(&name) else {
                return Err(StateError::MissingVariable { name });
            };
            if tensor.size() != var.size() {
                let (found, expected) = (tensor.size(), var.size());
                return Err(StateError::VariableShape { name, found, expected });
            }
            tch::no_grad(|| var.f_copy_(tensor)).map_err(|e| StateError::Average(e.into()))?;
        }
        Ok(Some(average))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{NetConfig, SparseConfig};
    use tch::Device;

    fn tiny_net(seed: i64) -> PolicyValueNet {
        tch::manual_seed(seed);
        let config =
            NetConfig::Sparse(SparseConfig { accumulator: 8, hidden: 4, layers: 1, buckets: 1 });
        PolicyValueNet::new(&config, Device::Cpu).unwrap()
    }

    fn variable(net: &PolicyValueNet, name: &str) -> Tensor {
        net.var_store().variables()[name].copy()
    }

    #[test]
    fn each_update_moves_the_average_by_one_minus_the_decay() {
        let (start, trained) = (tiny_net(1), tiny_net(2));
        let mut average = WeightAverage::start(&start, 0.9).unwrap();
        let name = "accumulator.weight";
        let (a0, w) = (variable(&start, name), variable(&trained, name));
        // The warm-up: the first decay is 1/10, then 2/11, ..., then 0.9.
        assert!((average.next_decay() - 0.1).abs() < 1e-12);
        average.update(&trained);
        let expected = &a0 * 0.1 + &w * 0.9;
        let a1 = variable(average.net(), name);
        assert!(a1.allclose(&expected, 1e-6, 1e-7, false));
        average.updates = 1000;
        assert_eq!(average.next_decay(), 0.9);
        average.update(&trained);
        let expected = &a1 * 0.9 + &w * 0.1;
        assert!(variable(average.net(), name).allclose(&expected, 1e-6, 1e-7, false));
        assert!(variable(&start, name).equal(&a0), "the net itself is not changed");
    }

    #[test]
    fn the_state_restores_the_same_average() {
        let (start, trained) = (tiny_net(3), tiny_net(4));
        let mut average = WeightAverage::start(&start, 0.99).unwrap();
        (0..3).for_each(|_| average.update(&trained));
        let again = WeightAverage::restore(&start, 0.99, &average.state()).unwrap().unwrap();
        assert_eq!(again.updates(), 3);
        for (name, t) in average.net().var_store().variables() {
            assert!(variable(again.net(), &name).equal(&t), "{name}");
        }
        assert!(WeightAverage::restore(&start, 0.99, &Extras::default()).unwrap().is_none());
        let mut partial = average.state();
        partial.tensors.remove("ema.policy.bias");
        let err = WeightAverage::restore(&start, 0.99, &partial).unwrap_err();
        assert!(err.to_string().contains("ema.policy.bias"), "{err}");
    }
}
