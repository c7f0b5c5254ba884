//! The sparse net's value path in integers, for an alpha-beta search that evaluates millions of
//! positions a second: the accumulator's columns and bias as `i16` in units of `1 / 2^acc_shift`,
//! each dense layer's weights as `i16` in units of `1 / 2^shift` (a shift per layer, the largest
//! that keeps the weights and the sums in range), sums in `i32`.
//!
//! ```text
//! acc      = bias + sum of the active features' columns                 (i16, scale Q = 2^acc_shift)
//! a        = clamp(acc, 0, Q)                                           (crelu, scale Q)
//! h        = clamp((W a + B) >> shift, 0, Q) for each hidden layer      (W scale 2^shift, B scale Q·2^shift)
//! wdl      = (W h + B) / (Q · 2^shift)                                  (f32 logits)
//! ```
//!
//! The accumulator of the pieces is kept up to date by the caller ([`crate::incremental`]); the
//! counters (no-progress bucket, repetitions) are added when a position is evaluated. The policy
//! and moves-left heads are not part of this path. Its value stays within [`VALUE_ERROR_BOUND`]
//! of the f32 forward pass's (the tests check it on the positions of random games).

use crate::features::FEATURES;
use crate::weights::{Dense, SparseWeights};

/// The quantised value never differs from the f32 net's by more than this on the positions of
/// real games (a value is in -1..=1; checked by the tests on random games).
pub const VALUE_ERROR_BOUND: f32 = 0.01;

/// Pieces on the board at most: the accumulator's range must hold the bias, this many piece
/// columns and the counters' columns.
const MAX_PIECES: usize = 24;

/// Features that are not pieces (the no-progress buckets and the repetitions) at most on at once.
const MAX_COUNTERS: usize = 3;

/// First feature that is not a piece on the board: 4 groups of 32 squares come first.
pub const PIECE_FEATURES: usize = 128;

/// Largest shift of the accumulator's scale: 2^10 steps per unit is far finer than the net needs.
const MAX_ACC_SHIFT: u32 = 10;

/// Largest shift of a dense layer's weights.
const MAX_WEIGHT_SHIFT: u32 = 14;

/// A dense layer in integers, row-major like [`Dense`].
#[derive(Clone, Debug)]
struct IntDense {
    inputs: usize,
    outputs: usize,
    /// `[outputs, inputs]`, in units of `1 / 2^shift`.
    weight: Vec<i16>,
    /// `[outputs]`, in units of `1 / (Q · 2^shift)`.
    bias: Vec<i32>,
    shift: u32,
}

impl IntDense {
    /// The layer quantised for inputs in `0..=q` (`q = 2^acc_shift`).
    fn new(layer: &Dense, acc_shift: u32) -> IntDense {
        let max_weight = layer.weight.iter().fold(0.0f32, |m, w| m.max(w.abs()));
        let q = (1i64 << acc_shift) as f64;
        // The weights fit in i16, and a whole row's sum of products fits in i32 with room to
        // spare for the bias.
        let shift = (0..=MAX_WEIGHT_SHIFT)
            .rev()
            .find(|&s| {
                let scaled = f64::from(max_weight) * (1u64 << s) as f64;
                scaled <= f64::from(i16::MAX) && scaled * q * layer.inputs as f64 <= 1.0e9
            })
            .unwrap_or(0);
        let weight_scale = (1u64 << shift) as f32;
        let weight = layer
            .weight
            .iter()
            .map(|w| (w * weight_scale).round().clamp(-32767.0, 32767.0) as i16)
            .collect();
        let bias_scale = weight_scale * q as f32;
        let bias = layer.bias.iter().map(|b| (b * bias_scale).round() as i32).collect();
        IntDense { inputs: layer.inputs, outputs: layer.outputs, weight, bias, shift }
    }

    fn row(&self, o: usize) -> &[i16] {
        &self.weight[o * self.inputs..(o + 1) * self.inputs]
    }

    /// `out[o] = clamp((W x + B)[o] >> shift, 0, q)`: a hidden layer with its crelu.
    fn hidden(&self, x: &[i16], q: i16, out: &mut Vec<i16>) {
        out.clear();
        out.extend((0..self.outputs).map(|o| {
            let sum = self.bias[o] + dot(self.row(o), x);
            (sum >> self.shift).clamp(0, i32::from(q)) as i16
        }));
    }
}

/// The dot product of two `i16` rows in `i32`, written for the compiler's widening multiply-add.
#[inline(always)]
fn dot_lanes(a: &[i16], b: &[i16]) -> i32 {
    a.iter().zip(b).map(|(&x, &y)| i32::from(x) * i32::from(y)).sum()
}

/// [`dot_lanes`] compiled for AVX2 (16 products an instruction).
///
/// # Safety
/// Only call on a CPU with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_avx2(a: &[i16], b: &[i16]) -> i32 {
    dot_lanes(a, b)
}

/// The dot product of two `i16` rows, with AVX2 where the CPU has it.
#[inline]
fn dot(a: &[i16], b: &[i16]) -> i32 {
    debug_assert_eq!(a.len(), b.len());
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { dot_avx2(a, b) };
    }
    dot_lanes(a, b)
}

/// The value path of a sparse net in integers (see the module's header).
#[derive(Clone, Debug)]
pub struct QuantisedNet {
    accumulator: usize,
    /// Every feature's column, `[f * A + a]`, in units of `1 / 2^acc_shift`.
    columns: Vec<i16>,
    /// The accumulator's bias, `[A]`.
    bias: Vec<i16>,
    acc_shift: u32,
    hidden: Vec<IntDense>,
    wdl: IntDense,
}

/// Buffers of one evaluation, kept across positions.
#[derive(Clone, Debug, Default)]
pub struct IntScratch {
    acc: Vec<i16>,
    ping: Vec<i16>,
    pong: Vec<i16>,
}

impl QuantisedNet {
    /// The net of `weights` in integers, at the finest scales whose sums cannot overflow.
    pub fn new(weights: &SparseWeights) -> QuantisedNet {
        let a = weights.config.accumulator;
        let column = |f: usize| &weights.columns[f * a..(f + 1) * a];
        // The largest |accumulator| any board can reach, unit by unit: the bias, the largest
        // piece columns and the largest counter columns.
        let bound = (0..a)
            .map(|unit| {
                let mut pieces: Vec<f32> =
                    (0..PIECE_FEATURES).map(|f| column(f)[unit].abs()).collect();
                pieces.sort_by(|x, y| y.total_cmp(x));
                let mut counters: Vec<f32> =
                    (PIECE_FEATURES..FEATURES).map(|f| column(f)[unit].abs()).collect();
                counters.sort_by(|x, y| y.total_cmp(x));
                weights.accumulator_bias[unit].abs()
                    + pieces.iter().take(MAX_PIECES).sum::<f32>()
                    + counters.iter().take(MAX_COUNTERS).sum::<f32>()
            })
            .fold(1.0f32, f32::max);
        let acc_shift = (0..=MAX_ACC_SHIFT)
            .rev()
            .find(|&s| bound * (1u32 << s) as f32 <= f32::from(i16::MAX))
            .unwrap_or(0);
        let scale = (1u32 << acc_shift) as f32;
        let quantise = |xs: &[f32]| -> Vec<i16> {
            xs.iter().map(|x| (x * scale).round().clamp(-32767.0, 32767.0) as i16).collect()
        };
        QuantisedNet {
            accumulator: a,
            columns: quantise(&weights.columns),
            bias: quantise(&weights.accumulator_bias),
            acc_shift,
            hidden: weights.hidden.iter().map(|l| IntDense::new(l, acc_shift)).collect(),
            wdl: IntDense::new(&weights.wdl, acc_shift),
        }
    }

    /// Accumulator units.
    pub fn accumulator(&self) -> usize {
        self.accumulator
    }

    /// The accumulator's bias, where every accumulator starts.
    pub fn bias(&self) -> &[i16] {
        &self.bias
    }

    /// Feature `f`'s column.
    #[inline]
    pub fn column(&self, f: usize) -> &[i16] {
        &self.columns[f * self.accumulator..(f + 1) * self.accumulator]
    }

    /// The WDL logits of a position whose accumulator of pieces (bias included) is `pieces`,
    /// with its counter features `counters` (indices from [`PIECE_FEATURES`] on) still to add.
    pub fn wdl_logits(
        &self,
        pieces: &[i16],
        counters: &[u16],
        scratch: &mut IntScratch,
    ) -> [f32; 3] {
        let q = 1i16 << self.acc_shift;
        let acc = &mut scratch.acc;
        acc.clear();
        acc.extend_from_slice(pieces);
        for &f in counters {
            for (x, w) in acc.iter_mut().zip(self.column(usize::from(f))) {
                *x += w;
            }
        }
        for x in acc.iter_mut() {
            *x = (*x).clamp(0, q);
        }
        let (acc, ping, pong) = (&scratch.acc, &mut scratch.ping, &mut scratch.pong);
        for (i, layer) in self.hidden.iter().enumerate() {
            layer.hidden(if i == 0 { acc } else { ping }, q, pong);
            std::mem::swap(ping, pong);
        }
        let input: &[i16] = if self.hidden.is_empty() { acc } else { ping };
        let unit = 1.0 / ((1i64 << self.acc_shift) as f32 * (1i64 << self.wdl.shift) as f32);
        std::array::from_fn(|o| (self.wdl.bias[o] + dot(self.wdl.row(o), input)) as f32 * unit)
    }
}

/// Win minus loss probability of WDL logits (their softmax), in -1..=1.
pub fn value_of_logits(logits: [f32; 3]) -> f32 {
    let max = logits.into_iter().fold(f32::NEG_INFINITY, f32::max);
    let [w, d, l] = logits.map(|x| (x - max).exp());
    (w - l) / (w + d + l)
}
