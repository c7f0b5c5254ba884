//! The forward pass in plain f32, one position at a time (a batch of one costs what one position
//! of a large batch costs): the accumulator is the sum of the active features' columns, the
//! dense layers are dot products over contiguous rows, and the policy head computes only the
//! logits asked for (the legal steps'). The loops are written for the compiler to vectorise.
//!
//! ```text
//! a = crelu(accumulator.bias + sum of columns[f] for each active feature f)     [A]
//! k = bucket(pieces on the board)             (the value stack of its material)
//! h = a; for each of stack k's hidden layers: h = crelu(W h + b)               [H]
//! policy logits = policy.W a + policy.b   (only the rows asked for)             [128]
//! wdl logits = wdl_k.W h + wdl_k.b [3];  moves_left = moves_left_k.W h + b [1]
//! crelu(x) = min(max(x, 0), 1)
//! ```

use crate::features::{bucket, piece_count};
use crate::weights::{Dense, SparseWeights, ValueStack, POLICY_SIZE};

/// Buffers of one forward pass, kept across positions (no allocation per position).
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    accumulator: Vec<f32>,
    ping: Vec<f32>,
    pong: Vec<f32>,
}

/// The value heads' outputs of one position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueOutput {
    /// Win, draw, loss logits for the side to move.
    pub wdl_logits: [f32; 3],
    /// Predicted plies to the end of the game.
    pub moves_left: f32,
}

impl ValueOutput {
    /// Win minus loss probability (softmax of the WDL logits), in -1..=1.
    pub fn value(&self) -> f32 {
        let [w, _, l] = self.wdl();
        w - l
    }

    /// Win, draw and loss probabilities (the softmax of the WDL logits).
    pub fn wdl(&self) -> [f32; 3] {
        wdl_of_logits(self.wdl_logits)
    }
}

/// Win, draw and loss probabilities of WDL logits (their softmax).
pub fn wdl_of_logits(logits: [f32; 3]) -> [f32; 3] {
    let max = logits.into_iter().fold(f32::NEG_INFINITY, f32::max);
    let exp = logits.map(|x| (x - max).exp());
    let total: f32 = exp.iter().sum();
    exp.map(|x| x / total)
}

/// `min(max(x, 0), 1)` in place.
#[inline]
fn crelu(xs: &mut [f32]) {
    for x in xs {
        *x = x.clamp(0.0, 1.0);
    }
}

/// The dot product, in eight lanes the compiler keeps in vector registers.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    let mut lanes = [0.0f32; 8];
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a8.remainder().iter().zip(b8.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in a8.zip(b8) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// `out = layer(x)`, resized to the layer's outputs.
#[inline]
fn apply(layer: &Dense, x: &[f32], out: &mut Vec<f32>) {
    out.clear();
    out.extend((0..layer.outputs).map(|o| layer.bias[o] + dot(layer.row(o), x)));
}

impl SparseWeights {
    /// The value stack of a position with the (ascending) `active` features.
    pub fn stack(&self, active: &[u16]) -> &ValueStack {
        &self.stacks[bucket(piece_count(active), self.stacks.len())]
    }

    /// Fills the accumulator of `scratch` for the `active` features (ascending) and runs the
    /// value heads. Afterwards [`SparseWeights::policy_logits`] reads the same accumulator.
    pub fn forward(&self, active: &[u16], scratch: &mut Scratch) -> ValueOutput {
        let a = self.config.accumulator;
        let acc = &mut scratch.accumulator;
        acc.clear();
        acc.extend_from_slice(&self.accumulator_bias);
        for &f in active {
            let column = &self.columns[usize::from(f) * a..(usize::from(f) + 1) * a];
            for (x, w) in acc.iter_mut().zip(column) {
                *x += w;
            }
        }
        crelu(acc);
        let stack = self.stack(active);
        let (acc, ping, pong) = (&scratch.accumulator, &mut scratch.ping, &mut scratch.pong);
        for (i, layer) in stack.hidden.iter().enumerate() {
            apply(layer, if i == 0 { acc } else { ping }, pong);
            crelu(pong);
            std::mem::swap(ping, pong);
        }
        let input: &[f32] = if stack.hidden.is_empty() { acc } else { ping };
        let (wdl, moves_left) = (&stack.wdl, &stack.moves_left);
        ValueOutput {
            wdl_logits: std::array::from_fn(|o| wdl.bias[o] + dot(wdl.row(o), input)),
            moves_left: moves_left.bias[0] + dot(moves_left.row(0), input),
        }
    }

    /// The policy logits of the step indices `indices` (each in 0..128), in their order, for the
    /// position of the last [`SparseWeights::forward`] with `scratch`, appended to `out`.
    pub fn policy_logits(
        &self,
        scratch: &Scratch,
        indices: impl Iterator<Item = usize>,
        out: &mut impl Extend<f32>,
    ) {
        let acc = &scratch.accumulator;
        out.extend(indices.map(|i| self.policy.bias[i] + dot(self.policy.row(i), acc)));
    }

    /// The whole output row of one position, in the layout every export has: 128 policy logits,
    /// 3 WDL logits, moves left.
    pub fn output_row(&self, active: &[u16], scratch: &mut Scratch) -> Vec<f32> {
        let value = self.forward(active, scratch);
        let mut row = Vec::with_capacity(POLICY_SIZE + 4);
        self.policy_logits(scratch, 0..POLICY_SIZE, &mut row);
        row.extend(value.wdl_logits);
        row.push(value.moves_left);
        row
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_the_plain_sum_at_every_length() {
        for n in [0, 1, 7, 8, 9, 33] {
            let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 3.0).collect();
            let b: Vec<f32> = (0..n).map(|i| 1.0 - i as f32 * 0.25).collect();
            let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - plain).abs() < 1e-4, "n = {n}");
        }
    }

    #[test]
    fn value_is_win_minus_loss() {
        let out = ValueOutput { wdl_logits: [0.0, 0.0, 0.0], moves_left: 0.0 };
        assert!(out.value().abs() < 1e-6);
        let out = ValueOutput { wdl_logits: [50.0, 0.0, 0.0], moves_left: 0.0 };
        assert!((out.value() - 1.0).abs() < 1e-6);
    }
}
