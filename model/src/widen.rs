//! Widening a trained sparse net's accumulator without changing what it computes (as KataGo
//! widens a net mid-run instead of starting over): the new accumulator units get a fresh layer's
//! random incoming weights and bias, and zero outgoing weights (their columns in the first hidden
//! layer, the policy head, and with no hidden layer the value heads), so the wider net's outputs
//! are the narrow net's while gradients still reach the new units' outgoing weights.
//!
//! ```text
//! accumulator.weight [A, 203] -> [N, 203]   rows A.. random (the layer's initialisation)
//! accumulator.bias   [A]      -> [N]        entries A.. random
//! hidden.0.weight    [H, A]   -> [H, N]     columns A.. zero
//! policy.weight      [128, A] -> [128, N]   columns A.. zero (wdl, moves_left alike when layers = 0)
//! every other variable copied
//! ```
//!
//! A net of one value stack also grows into one of K stacks, one per bucket of material
//! ([`split_value_stacks`]): every stack a copy of the one it had, so each bucket computes what
//! the net computed, and training then lets them part.
//!
//! ```text
//! hidden.{i}.weight [H, in] -> [K·H, in]   (and every hidden.{i}.bias, wdl.*, moves_left.*)
//! ```

use crate::error::ModelError;
use crate::net::PolicyValueNet;
use netfile::{NetConfig, SparseConfig};
use support::Invalid;

/// The sizes of `net`, a sparse net; an error naming `net.kind` for a ResNet, which cannot `verb`.
fn sparse_sizes<'a>(net: &'a PolicyValueNet, verb: &str) -> Result<&'a SparseConfig, ModelError> {
    match net.config() {
        NetConfig::Sparse(sizes) => Ok(sizes),
        NetConfig::Resnet(_) => {
            Err(Invalid::new("net.kind", "resnet", &format!("sparse: only a sparse net {verb}"))
                .into())
        }
    }
}

/// `net` (a sparse net) with an accumulator of `accumulator` units, computing the same outputs.
/// The new units' incoming weights come from libtorch's generator (`tch::manual_seed` fixes
/// them). An error for a ResNet, or a width not above the net's.
pub fn widen_accumulator(
    net: &PolicyValueNet,
    accumulator: usize,
) -> Result<PolicyValueNet, ModelError> {
    let narrow = sparse_sizes(net, "widens")?;
    if accumulator <= narrow.accumulator {
        let expected = format!("above the net's {}", narrow.accumulator);
        return Err(Invalid::new("net.accumulator", accumulator, &expected).into());
    }
    let config = NetConfig::Sparse(SparseConfig { accumulator, ..narrow.clone() });
    let wide = PolicyValueNet::new(&config, net.device())?;
    let old = net.var_store().variables();
    tch::no_grad(|| -> Result<(), ModelError> {
        for (name, mut var) in wide.var_store().variables() {
            let src = &old[&name];
            if !name.starts_with("accumulator.") {
                let _ = var.f_zero_()?;
            }
            let mut block = var.shallow_clone();
            for (dim, &size) in src.size().iter().enumerate() {
                block = block.f_narrow(dim as i64, 0, size)?;
            }
            block.f_copy_(src)?;
        }
        Ok(())
    })?;
    Ok(wide)
}

/// Whether a variable is part of the value stack (stacked once per bucket).
fn in_value_stack(name: &str) -> bool {
    ["hidden.", "wdl.", "moves_left."].iter().any(|prefix| name.starts_with(prefix))
}

/// `net` (a sparse net of one value stack) with `buckets` copies of it, one per bucket of
/// material: the same outputs. An error for a ResNet, a net already of several stacks, or a
/// count not in 2..=8.
pub fn split_value_stacks(
    net: &PolicyValueNet,
    buckets: usize,
) -> Result<PolicyValueNet, ModelError> {
    let one = sparse_sizes(net, "splits")?;
    if one.buckets != 1 {
        let expected = "a net of one value stack (it has several)";
        return Err(Invalid::new("net.buckets", one.buckets, expected).into());
    }
    let config = NetConfig::Sparse(SparseConfig { buckets, ..one.clone() });
    config.validate()?;
    if buckets == 1 {
        return Err(Invalid::new("net.buckets", 1, "above the net's 1").into());
    }
    let split = PolicyValueNet::new(&config, net.device())?;
    let old = net.var_store().variables();
    tch::no_grad(|| -> Result<(), ModelError> {
        for (name, mut var) in split.var_store().variables() {
            let src = &old[&name];
            let value = if in_value_stack(&name) {
                let mut times = vec![1; src.dim()];
                times[0] = buckets as i64;
                src.f_repeat(&times)?
            } else {
                src.shallow_clone()
            };
            var.f_copy_(&value)?;
        }
        Ok(())
    })?;
    Ok(split)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::Input;
    use tch::nn::ModuleT;
    use tch::{Device, Kind, Tensor};

    fn sparse(accumulator: usize, layers: usize) -> NetConfig {
        NetConfig::Sparse(SparseConfig { accumulator, hidden: 8, layers, buckets: 1 })
    }

    /// The dense features of positions from random games.
    fn inputs(config: &NetConfig) -> Tensor {
        Input::of(config).encode_batch(&crate::sample::random_observations(64, 3))
    }

    /// The largest difference between the outputs of `a` and `b` on `xs`.
    fn max_difference(a: &PolicyValueNet, b: &PolicyValueNet, xs: &Tensor) -> f64 {
        (a.forward_t(xs, false) - b.forward_t(xs, false)).abs().max().double_value(&[])
    }

    #[test]
    fn the_wider_net_computes_the_same_outputs_and_its_new_units_get_gradients() {
        for layers in [0, 2] {
            tch::manual_seed(7);
            let net = PolicyValueNet::new(&sparse(16, layers), Device::Cpu).unwrap();
            let wide = widen_accumulator(&net, 40).unwrap();
            assert_eq!(wide.config(), &sparse(40, layers));
            let xs = inputs(net.config());
            let diff = max_difference(&net, &wide, &xs);
            assert!(diff < 1e-5, "layers {layers}: outputs differ by {diff}");
            // The new units are alive (random inputs) and their outgoing weights learn.
            let out = wide.forward_heads(&xs, true);
            let active = out.trunk.narrow(1, 16, 24).sum(Kind::Float).double_value(&[]);
            assert!(active > 0.0, "layers {layers}: no new unit is active");
            (out.policy.sum(Kind::Float) + out.wdl.sum(Kind::Float)).backward();
            let policy = &wide.var_store().variables()["policy.weight"];
            let grad = policy.grad().narrow(1, 16, 24).abs().sum(Kind::Float).double_value(&[]);
            assert!(grad > 0.0, "layers {layers}: no gradient reaches the new columns");
        }
    }

    #[test]
    fn the_split_net_computes_the_same_outputs_and_its_stacks_learn_apart() {
        for layers in [0, 2] {
            tch::manual_seed(8);
            let net = PolicyValueNet::new(&sparse(16, layers), Device::Cpu).unwrap();
            let split = split_value_stacks(&net, 4).unwrap();
            let NetConfig::Sparse(config) = split.config() else { unreachable!() };
            assert_eq!(config.buckets, 4);
            let xs = inputs(net.config());
            let diff = max_difference(&net, &split, &xs);
            assert!(diff < 1e-5, "layers {layers}: outputs differ by {diff}");
            // A batch of one bucket's positions moves only that bucket's rows.
            let out = split.forward_heads(&xs.narrow(0, 0, 1), true);
            out.wdl.sum(Kind::Float).backward();
            let wdl = &split.var_store().variables()["wdl.weight"];
            let moved: Vec<bool> = (0..4)
                .map(|b| {
                    wdl.grad().narrow(0, 3 * b, 3).abs().sum(Kind::Float).double_value(&[]) > 0.0
                })
                .collect();
            assert_eq!(moved.iter().filter(|&&m| m).count(), 1, "layers {layers}: {moved:?}");
        }
    }

    #[test]
    fn only_a_net_of_one_stack_splits() {
        let net = PolicyValueNet::new(&sparse(16, 1), Device::Cpu).unwrap();
        let split = split_value_stacks(&net, 2).unwrap();
        let err = split_value_stacks(&split, 4).unwrap_err().to_string();
        assert!(err.contains("net.buckets") && err.contains("one value stack"), "{err}");
        let err = split_value_stacks(&net, 9).unwrap_err().to_string();
        assert!(err.contains("buckets"), "{err}");
    }

    #[test]
    fn only_a_wider_sparse_net_is_made() {
        let net = PolicyValueNet::new(&sparse(16, 1), Device::Cpu).unwrap();
        let err = widen_accumulator(&net, 16).unwrap_err().to_string();
        assert!(err.contains("net.accumulator") && err.contains("above the net's 16"), "{err}");
    }
}
