//! The sparse net's weights, read from a checkpoint of the sparse family and laid out for the
//! forward pass: the accumulator's columns contiguous per feature, every dense layer row-major.
//!
//! Variable names in the checkpoint (those of the tch net that trains them; linear weights are
//! `[out, in]`, `y = W x + b`):
//!
//! ```text
//! accumulator.weight [A, 203]  accumulator.bias [A]       A = accumulator
//! hidden.{i}.weight  [H, in]   hidden.{i}.bias  [H]       i in 0..layers, in = A for i = 0 else H
//! policy.weight      [128, A]  policy.bias      [128]
//! wdl.weight         [3, V]    wdl.bias         [3]       V = H, or A when layers = 0
//! moves_left.weight  [1, V]    moves_left.bias  [1]
//! ```
//!
//! With `buckets` = K above one, the value stack (`hidden.*`, `wdl`, `moves_left`) is there K
//! times, stacked along the outputs: `hidden.{i}.weight` is `[K·H, in]`, `wdl.weight` `[K·3, V]`,
//! `moves_left.weight` `[K, V]`, bucket b's rows at `b·outputs..`; bucket b's layer i reads bucket
//! b's layer i - 1 (the first reads the shared accumulator).

use crate::features::FEATURES;
use crate::NativeError;
use draughts::Step;
use netfile::EXTRA_TENSOR_PREFIX;
use netfile::{CheckpointError, CheckpointFile, CheckpointMeta, NetConfig, SparseConfig};
use std::path::Path;

/// Outputs of the policy head: one logit per step index.
pub const POLICY_SIZE: usize = Step::INDEX_COUNT;

/// A fully connected layer, row-major: `weight[o * inputs + i]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    /// Inputs.
    pub inputs: usize,
    /// Outputs.
    pub outputs: usize,
    /// `[outputs, inputs]`.
    pub weight: Vec<f32>,
    /// `[outputs]`.
    pub bias: Vec<f32>,
}

impl Dense {
    /// The weights of output `o`.
    #[inline]
    pub fn row(&self, o: usize) -> &[f32] {
        &self.weight[o * self.inputs..(o + 1) * self.inputs]
    }

    /// Part `p` of the layer cut into `parts` layers of equal outputs (its rows `p·n..(p+1)·n`).
    fn part(&self, p: usize, parts: usize) -> Dense {
        let outputs = self.outputs / parts;
        Dense {
            inputs: self.inputs,
            outputs,
            weight: self.weight[p * outputs * self.inputs..(p + 1) * outputs * self.inputs]
                .to_vec(),
            bias: self.bias[p * outputs..(p + 1) * outputs].to_vec(),
        }
    }
}

/// The value path of one bucket of material: the dense layers after the accumulator and the
/// value heads.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueStack {
    /// The dense layers after the accumulator.
    pub hidden: Vec<Dense>,
    /// WDL head, `[3, V]`.
    pub wdl: Dense,
    /// Moves-left head, `[1, V]`.
    pub moves_left: Dense,
}

/// Every weight of a sparse net.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseWeights {
    /// The sizes.
    pub config: SparseConfig,
    /// The accumulator's columns, one per feature: `columns[f * A + a]`.
    pub columns: Vec<f32>,
    /// The accumulator's bias, `[A]`.
    pub accumulator_bias: Vec<f32>,
    /// Policy head over the accumulator, `[128, A]`.
    pub policy: Dense,
    /// The value stacks, one per bucket of material ([`crate::features::bucket`]).
    pub stacks: Vec<ValueStack>,
}

/// The names of the net's variables and their shapes, for `config`, in the order above.
pub fn variables(config: &SparseConfig) -> Vec<(String, Vec<usize>)> {
    let (a, h, k) = (config.accumulator, config.hidden, config.buckets);
    let v = if config.layers == 0 { a } else { h };
    let mut out = vec![
        ("accumulator.weight".to_string(), vec![a, FEATURES]),
        ("accumulator.bias".to_string(), vec![a]),
    ];
    for i in 0..config.layers {
        let inputs = if i == 0 { a } else { h };
        out.push((format!("hidden.{i}.weight"), vec![k * h, inputs]));
        out.push((format!("hidden.{i}.bias"), vec![k * h]));
    }
    for (name, outputs, inputs) in
        [("policy", POLICY_SIZE, a), ("wdl", k * 3, v), ("moves_left", k, v)]
    {
        out.push((format!("{name}.weight"), vec![outputs, inputs]));
        out.push((format!("{name}.bias"), vec![outputs]));
    }
    out
}

impl SparseWeights {
    /// Loads the checkpoint at `path`, which must be of the sparse family; returns the weights
    /// and what the file says about itself.
    pub fn load(path: &Path) -> Result<(SparseWeights, CheckpointMeta), NativeError> {
        let file = CheckpointFile::read(path, None)?;
        let weights = SparseWeights::from_file(&file)?;
        Ok((weights, file.meta().clone()))
    }

    /// The weights of a checked checkpoint file of the sparse family. Every variable must be
    /// there with its shape, and nothing else but extras.
    pub fn from_file(file: &CheckpointFile) -> Result<SparseWeights, NativeError> {
        let config = match &file.meta().config {
            NetConfig::Sparse(config) => config.clone(),
            other => {
                return Err(NativeError::Family {
                    path: file.path().to_path_buf(),
                    found: other.family(),
                })
            }
        };
        let expected = variables(&config);
        if let Some(name) = file.tensors().keys().find(|name| {
            !name.starts_with(EXTRA_TENSOR_PREFIX) && !expected.iter().any(|(n, _)| n == *name)
        }) {
            return Err(CheckpointError::Tensor {
                path: file.path().to_path_buf(),
                name: name.clone(),
                problem: "is not a variable of this architecture".into(),
            }
            .into());
        }
        let tensor = |name: &str| -> Result<Vec<f32>, CheckpointError> {
            let shape = &expected.iter().find(|(n, _)| n == name).expect("a listed variable").1;
            file.f32_tensor(name, shape)
        };
        let dense = |name: &str| -> Result<Dense, CheckpointError> {
            let shape = &expected
                .iter()
                .find(|(n, _)| *n == format!("{name}.weight"))
                .expect("a listed variable")
                .1;
            Ok(Dense {
                outputs: shape[0],
                inputs: shape[1],
                weight: tensor(&format!("{name}.weight"))?,
                bias: tensor(&format!("{name}.bias"))?,
            })
        };
        let a = config.accumulator;
        let stored = tensor("accumulator.weight")?;
        let mut columns = vec![0.0; a * FEATURES];
        for (row, weights) in stored.chunks_exact(FEATURES).enumerate() {
            for (f, &w) in weights.iter().enumerate() {
                columns[f * a + row] = w;
            }
        }
        let k = config.buckets;
        let hidden: Vec<Dense> =
            (0..config.layers).map(|i| dense(&format!("hidden.{i}"))).collect::<Result<_, _>>()?;
        let (wdl, moves_left) = (dense("wdl")?, dense("moves_left")?);
        let stacks = (0..k)
            .map(|b| ValueStack {
                hidden: hidden.iter().map(|layer| layer.part(b, k)).collect(),
                wdl: wdl.part(b, k),
                moves_left: moves_left.part(b, k),
            })
            .collect();
        Ok(SparseWeights {
            columns,
            accumulator_bias: tensor("accumulator.bias")?,
            policy: dense("policy")?,
            stacks,
            config,
        })
    }
}
