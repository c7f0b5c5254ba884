//! SGD with momentum and AdamW written out on the var store's trainable tensors, so that their
//! buffers are ordinary named tensors a checkpoint can store and restore exactly (tch's
//! `nn::Optimizer` keeps its state out of reach).
//!
//! Weight decay applies to tensors of rank 2 and more (convolution kernels, fc weights), not to
//! biases and batch-norm scales.

use crate::error::StateError;
use runconfig::OptimizerConfig;
use std::collections::BTreeMap;
use tch::{nn::VarStore, Kind, Tensor};

#[derive(Debug)]
struct Param {
    name: String,
    var: Tensor,
    decay: bool,
    /// SGD: `[momentum]`; AdamW: `[first moment, second moment]`; each the shape of `var`.
    buffers: Vec<Tensor>,
}

/// The optimizer over one var store's trainable variables.
#[derive(Debug)]
pub struct Optimizer {
    config: OptimizerConfig,
    weight_decay: f64,
    params: Vec<Param>,
    /// Updates applied (AdamW's bias correction counts these).
    updates: u64,
}

impl Optimizer {
    /// Zeroed buffers for every trainable variable of `vs`, in name order.
    pub fn new(vs: &VarStore, config: &OptimizerConfig, weight_decay: f64) -> Optimizer {
        let buffer_count = match config {
            OptimizerConfig::Sgd { .. } => 1,
            OptimizerConfig::AdamW { .. } => 2,
        };
        let variables: BTreeMap<String, Tensor> =
            vs.variables().into_iter().filter(|(_, v)| v.requires_grad()).collect();
        let params = variables
            .into_iter()
            .map(|(name, var)| Param {
                buffers: (0..buffer_count).map(|_| var.zeros_like()).collect(),
                decay: var.dim() >= 2,
                name,
                var,
            })
            .collect();
        Optimizer { config: config.clone(), weight_decay, params, updates: 0 }
    }

    /// Updates applied so far (drives bias correction and the schedule).
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Sets every parameter's gradient to zero.
    pub fn zero_grad(&mut self) {
        for p in &mut self.params {
            p.var.zero_grad();
        }
    }

    /// The global gradient norm; when it is finite and above `max_norm` (> 0), scales the
    /// gradients down to `max_norm`. Returns the norm before clipping.
    pub fn clip_grad_norm(&mut self, max_norm: f64) -> f64 {
        let squares: Vec<Tensor> = self
            .params
            .iter()
            .map(|p| p.var.grad())
            .filter(Tensor::defined)
            .map(|g| g.square().sum(Kind::Float))
            .collect();
        if squares.is_empty() {
            return 0.0;
        }
        let norm = Tensor::stack(&squares, 0).sum(Kind::Float).sqrt().double_value(&[]);
        if max_norm > 0.0 && norm.is_finite() && norm > max_norm {
            let scale = max_norm / (norm + 1e-6);
            tch::no_grad(|| {
                for p in &self.params {
                    let _ = p.var.grad().g_mul_scalar_(scale);
                }
            });
        }
        norm
    }

    /// One update with learning rate `lr` from the gradients in the variables.
    pub fn step(&mut self, lr: f64) {
        self.updates += 1;
        let t = self.updates as i32;
        let wd = self.weight_decay;
        tch::no_grad(|| {
            for p in &mut self.params {
                let grad = p.var.grad();
                if !grad.defined() {
                    continue;
                }
                match self.config {
                    OptimizerConfig::Sgd { momentum, nesterov } => {
                        let d = if p.decay && wd > 0.0 { &grad + &p.var * wd } else { grad };
                        let buf = &mut p.buffers[0];
                        let _ = buf.g_mul_scalar_(momentum).g_add_(&d);
                        let direction =
                            if nesterov { d + &*buf * momentum } else { buf.shallow_clone() };
                        let _ = p.var.g_sub_(&(direction * lr));
                    }
                    OptimizerConfig::AdamW { beta1, beta2, eps } => {
                        if p.decay && wd > 0.0 {
                            let _ = p.var.g_mul_scalar_(1.0 - lr * wd);
                        }
                        let (m, v) = p.buffers.split_at_mut(1);
                        let _ = m[0].g_mul_scalar_(beta1).g_add_(&(&grad * (1.0 - beta1)));
                        let _ = v[0].g_mul_scalar_(beta2).addcmul_(&(&grad * (1.0 - beta2)), &grad);
                        let denom = (&v[0] / (1.0 - beta2.powi(t))).sqrt() + eps;
                        let _ = p.var.addcdiv_(&(&m[0] * (-lr / (1.0 - beta1.powi(t)))), &denom);
                    }
                }
            }
        });
    }

    /// The buffers by name: `optim.<buffer index>.<variable>`.
    pub fn state(&self) -> BTreeMap<String, Tensor> {
        let mut state = BTreeMap::new();
        for p in &self.params {
            for (i, b) in p.buffers.iter().enumerate() {
                state.insert(format!("optim.{i}.{}", p.name), b.shallow_clone());
            }
        }
        state
    }

    /// Restores the buffers saved by [`Optimizer::state`] and the update count; every buffer must
    /// be there with its variable's shape. On error the optimizer is unchanged.
    pub fn load_state(
        &mut self,
        state: &BTreeMap<String, Tensor>,
        updates: u64,
    ) -> Result<(), StateError> {
        let mut loaded = Vec::new();
        for p in &self.params {
            for (i, b) in p.buffers.iter().enumerate() {
                let name = format!("optim.{i}.{}", p.name);
                let Some(t) = state.get(&name) else {
                    return Err(StateError::MissingBuffer { name });
                };
                if t.size() != b.size() {
                    return Err(StateError::BufferShape {
                        name,
                        found: t.size(),
                        expected: b.size(),
                    });
                }
                loaded.push(t.to_kind(b.kind()).to_device(b.device()));
            }
        }
        let mut loaded = loaded.into_iter();
        tch::no_grad(|| {
            for b in self.params.iter_mut().flat_map(|p| p.buffers.iter_mut()) {
                b.copy_(&loaded.next().expect("one loaded tensor per buffer"));
            }
        });
        self.updates = updates;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{nn, Device};

    /// One variable `w` (rank 2, so decayed) with gradient `g` after `loss = sum(w * g)`.
    fn setup(config: OptimizerConfig, wd: f64) -> (VarStore, Tensor, Optimizer) {
        let vs = VarStore::new(Device::Cpu);
        let w = vs.root().var("w", &[1, 2], nn::Init::Const(1.0));
        let opt = Optimizer::new(&vs, &config, wd);
        (vs, w, opt)
    }

    fn backward(w: &Tensor, g: [f32; 2]) {
        (w * Tensor::from_slice(&g).view([1, 2])).sum(Kind::Float).backward();
    }

    #[test]
    fn sgd_matches_pytorchs_rule() {
        let (_vs, w, mut opt) = setup(OptimizerConfig::Sgd { momentum: 0.5, nesterov: false }, 0.1);
        for _ in 0..2 {
            opt.zero_grad();
            backward(&w, [1.0, -2.0]);
            opt.step(0.1);
        }
        // step 1: d = g + 0.1 w = (1.1, -1.9); w = (0.89, 1.19)
        // step 2: d = (1.089, -1.881); buf = 0.5 (1.1, -1.9) + d = (1.639, -2.831); w -= 0.1 buf
        let got: Vec<f32> = Vec::try_from(w.view([-1])).unwrap();
        assert!((got[0] - 0.7261).abs() < 1e-5 && (got[1] - 1.4731).abs() < 1e-5, "{got:?}");
    }

    #[test]
    fn adamw_first_step_moves_each_weight_by_lr() {
        let (_vs, w, mut opt) =
            setup(OptimizerConfig::AdamW { beta1: 0.9, beta2: 0.999, eps: 1e-8 }, 0.0);
        backward(&w, [3.0, -0.5]);
        opt.step(0.01);
        let got: Vec<f32> = Vec::try_from(w.view([-1])).unwrap();
        assert!((got[0] - 0.99).abs() < 1e-6 && (got[1] - 1.01).abs() < 1e-6, "{got:?}");
    }

    #[test]
    fn clipping_scales_the_gradient_to_the_limit() {
        let (_vs, w, mut opt) = setup(OptimizerConfig::default(), 0.0);
        backward(&w, [3.0, 4.0]);
        assert!((opt.clip_grad_norm(1.0) - 5.0).abs() < 1e-6);
        let g: Vec<f32> = Vec::try_from(w.grad().view([-1])).unwrap();
        assert!((g[0] - 0.6).abs() < 1e-5 && (g[1] - 0.8).abs() < 1e-5, "{g:?}");
    }

    #[test]
    fn state_round_trips_and_a_wrong_shape_is_refused() {
        let (_vs, w, mut opt) = setup(OptimizerConfig::default(), 0.0);
        backward(&w, [1.0, 1.0]);
        opt.step(0.1);
        let state = opt.state();
        let (_vs2, _w2, mut other) = setup(OptimizerConfig::default(), 0.0);
        other.load_state(&state, opt.updates()).unwrap();
        assert_eq!(other.state()["optim.0.w"], state["optim.0.w"]);
        let bad = BTreeMap::from([(
            "optim.0.w".to_string(),
            Tensor::zeros([3], (Kind::Float, Device::Cpu)),
        )]);
        assert!(matches!(other.load_state(&bad, 1), Err(StateError::BufferShape { .. })));
    }
}
