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
//! The hidden layers and the WDL layer are those of the position's bucket of material (one
//! stack per bucket, [`crate::features::bucket`]).
//!
//! The accumulator of the pieces is kept up to date by the caller ([`crate::incremental`]); the
//! counters (no-progress bucket, repetitions) are added when a position is evaluated. Its value
//! stays within [`VALUE_ERROR_BOUND`] of the f32 forward pass's (the tests check it on the
//! positions of random games). The policy head stays in f32 and reads the pieces' accumulator
//! alone, for ordering a search's moves; the moves-left head is not part of this net.

use crate::features::{bucket, FEATURES, MAX_PIECES, PIECE_FEATURES};
use crate::forward::dot;
use crate::weights::{Dense, SparseWeights};

/// The quantised value never differs from the f32 net's by more than this on the positions of
/// real games (a value is in -1..=1; checked by the tests on random games).
pub const VALUE_ERROR_BOUND: f32 = 0.01;

/// Features that are not pieces (the no-progress buckets and the repetitions) at most on at once.
const MAX_COUNTERS: usize = 3;

/// Largest shift of the accumulator's scale: 2^10 steps per unit is far finer than the net needs.
const MAX_ACC_SHIFT: u32 = 10;

/// Largest shift of a dense layer's weights.
const MAX_WEIGHT_SHIFT: u32 = 14;

/// A dense layer in integers, its weights by pairs of inputs: for inputs `2p` and `2p + 1`,
/// each output's two weights side by side, so that one pair of inputs updates every output with
/// a widening multiply-add (the portable loop skips a pair of zero inputs, common after a crelu).
#[derive(Clone, Debug)]
pub(crate) struct IntDense {
    pub(crate) inputs: usize,
    pub(crate) outputs: usize,
    /// `[(inputs + 1) / 2, outputs, 2]`: `pairs[(p · outputs + o) · 2 + k]` is the weight of
    /// input `2p + k` in output `o` (0 past the last input), in units of `1 / 2^shift`.
    pairs: Vec<i16>,
    /// `[outputs]`, in units of `1 / (Q · 2^shift)`.
    pub(crate) bias: Vec<i32>,
    pub(crate) shift: u32,
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
        let quantise = |w: f32| (w * weight_scale).round().clamp(-32767.0, 32767.0) as i16;
        let (inputs, outputs) = (layer.inputs, layer.outputs);
        let mut pairs = vec![0; inputs.div_ceil(2) * outputs * 2];
        for o in 0..outputs {
            for (i, &w) in layer.row(o).iter().enumerate() {
                pairs[((i / 2) * outputs + o) * 2 + i % 2] = quantise(w);
            }
        }
        let bias_scale = weight_scale * q as f32;
        let bias = layer.bias.iter().map(|b| (b * bias_scale).round() as i32).collect();
        IntDense { inputs, outputs, pairs, bias, shift }
    }

    /// The weight of input `i` in output `o`.
    pub(crate) fn weight(&self, o: usize, i: usize) -> i16 {
        self.pairs[((i / 2) * self.outputs + o) * 2 + i % 2]
    }

    /// `out[o] = (W x + B)[o]` in units of `1 / (Q · 2^shift)`, for the first `outputs` of
    /// `out`: input pair by input pair, the portable loop skipping the pairs that are both zero;
    /// with AVX2 when `AVX2` (only instantiated where the CPU has it), every pair multiplied
    /// (cheaper than a branch the data decides).
    #[inline(always)]
    fn affine<const AVX2: bool>(&self, x: &[i16], out: &mut [i32]) {
        let out = &mut out[..self.outputs];
        out.copy_from_slice(&self.bias);
        #[cfg(target_arch = "x86_64")]
        if AVX2 && self.outputs % 8 == 0 {
            // SAFETY: `AVX2` is true only in code compiled for AVX2, run where the CPU has it.
            unsafe { self.add_products_avx2(x, out) };
            return;
        }
        for (pair, weights) in x.chunks(2).zip(self.pairs.chunks_exact(2 * self.outputs)) {
            let (a, b) = (i32::from(pair[0]), i32::from(pair.get(1).copied().unwrap_or(0)));
            if a == 0 && b == 0 {
                continue;
            }
            for (y, w) in out.iter_mut().zip(weights.chunks_exact(2)) {
                *y += a * i32::from(w[0]) + b * i32::from(w[1]);
            }
        }
    }

    /// `out += W x` with `outputs` a multiple of 8: blocks of up to 32 outputs, held in four
    /// 8-lane registers while every pair of inputs is broadcast and multiplied with the block's
    /// weight pairs by one widening multiply-add per 8 outputs.
    ///
    /// # Safety
    /// Only call on a CPU with AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn add_products_avx2(&self, x: &[i16], out: &mut [i32]) {
        use std::arch::x86_64::{
            __m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_madd_epi16, _mm256_set1_epi32,
            _mm256_setzero_si256, _mm256_storeu_si256,
        };
        const BLOCK: usize = 4;
        let chunks = self.outputs / 8;
        for first in (0..chunks).step_by(BLOCK) {
            let n = (chunks - first).min(BLOCK);
            let mut sums: [__m256i; BLOCK] = [_mm256_setzero_si256(); BLOCK];
            for (k, sum) in sums.iter_mut().enumerate().take(n) {
                // SAFETY: outputs `8 (first + k) ..` are 8 i32 (32 bytes) of `out`.
                *sum = _mm256_loadu_si256(out[8 * (first + k)..][..8].as_ptr().cast());
            }
            for (pair, weights) in x.chunks(2).zip(self.pairs.chunks_exact(2 * self.outputs)) {
                let (a, b) = (pair[0], pair.get(1).copied().unwrap_or(0));
                // Each 32-bit lane holds the pair: `a` in its low half, `b` in its high half.
                let both = _mm256_set1_epi32(i32::from(a as u16) | (i32::from(b) << 16));
                for (k, sum) in sums.iter_mut().enumerate().take(n) {
                    // SAFETY: the weight pairs of 8 outputs are 16 i16 (32 bytes) of `weights`.
                    let w = _mm256_loadu_si256(weights[16 * (first + k)..][..16].as_ptr().cast());
                    *sum = _mm256_add_epi32(*sum, _mm256_madd_epi16(both, w));
                }
            }
            for (k, sum) in sums.iter().enumerate().take(n) {
                // SAFETY: as for the loads above.
                _mm256_storeu_si256(out[8 * (first + k)..][..8].as_mut_ptr().cast(), *sum);
            }
        }
    }

    /// A hidden layer with its crelu: `out[o] = clamp((W x + B)[o] >> shift, 0, q)`.
    #[inline(always)]
    fn hidden<const AVX2: bool>(&self, x: &[i16], q: i16, sums: &mut [i32], out: &mut [i16]) {
        self.affine::<AVX2>(x, sums);
        for (y, &sum) in out.iter_mut().zip(sums.iter()).take(self.outputs) {
            *y = (sum >> self.shift).clamp(0, i32::from(q)) as i16;
        }
    }
}

/// One bucket's value path in integers: its hidden layers, then its WDL layer.
#[derive(Clone, Debug)]
pub(crate) struct IntStack {
    pub(crate) hidden: Vec<IntDense>,
    pub(crate) wdl: IntDense,
}

/// The value path of a sparse net in integers (see the module's header).
#[derive(Clone, Debug)]
pub struct QuantisedNet {
    accumulator: usize,
    /// Every feature's column, `[f * A + a]`, in units of `1 / 2^acc_shift`.
    pub(crate) columns: Vec<i16>,
    /// The accumulator's bias, `[A]`.
    bias: Vec<i16>,
    pub(crate) acc_shift: u32,
    /// The value stacks, one per bucket of material.
    pub(crate) stacks: Vec<IntStack>,
    /// The policy head, in f32.
    policy: Dense,
    /// Whether this CPU has AVX2 (the layers are then compiled for it).
    avx2: bool,
}

/// Buffers of one evaluation, kept across positions (sized on first use).
#[derive(Clone, Debug, Default)]
pub struct IntScratch {
    acc: Vec<i16>,
    ping: Vec<i16>,
    pong: Vec<i16>,
    sums: Vec<i32>,
    /// The crelu of the pieces' accumulator in f32, the policy head's input.
    policy_input: Vec<f32>,
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
            stacks: weights
                .stacks
                .iter()
                .map(|stack| IntStack {
                    hidden: stack.hidden.iter().map(|l| IntDense::new(l, acc_shift)).collect(),
                    wdl: IntDense::new(&stack.wdl, acc_shift),
                })
                .collect(),
            policy: weights.policy.clone(),
            avx2: has_avx2(),
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

    /// `new = old - the columns of removed + the columns of added`: a child's accumulator from
    /// its parent's, in one pass for the first change of each kind (with AVX2 where the CPU has
    /// it).
    #[inline]
    pub fn update(&self, old: &[i16], new: &mut [i16], removed: &[u16], added: &[u16]) {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is set only where the CPU has AVX2.
            return unsafe { self.update_avx2(old, new, removed, added) };
        }
        self.update_lanes(old, new, removed, added);
    }

    /// [`QuantisedNet::update_lanes`] compiled for AVX2.
    ///
    /// # Safety
    /// Only call on a CPU with AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn update_avx2(&self, old: &[i16], new: &mut [i16], removed: &[u16], added: &[u16]) {
        self.update_lanes(old, new, removed, added);
    }

    /// [`QuantisedNet::update`], written for the compiler to vectorise.
    #[inline(always)]
    fn update_lanes(&self, old: &[i16], new: &mut [i16], removed: &[u16], added: &[u16]) {
        let column = |f: &u16| self.column(usize::from(*f));
        let (mut removed, mut added) = (removed.iter().map(column), added.iter().map(column));
        match (removed.next(), added.next()) {
            (Some(out), Some(into)) => {
                for (((y, x), o), i) in new.iter_mut().zip(old).zip(out).zip(into) {
                    *y = x - o + i;
                }
            }
            (Some(out), None) => {
                for ((y, x), o) in new.iter_mut().zip(old).zip(out) {
                    *y = x - o;
                }
            }
            (None, Some(into)) => {
                for ((y, x), i) in new.iter_mut().zip(old).zip(into) {
                    *y = x + i;
                }
            }
            (None, None) => new.copy_from_slice(old),
        }
        for out in removed {
            for (y, o) in new.iter_mut().zip(out) {
                *y -= o;
            }
        }
        for into in added {
            for (y, i) in new.iter_mut().zip(into) {
                *y += i;
            }
        }
    }

    /// The WDL logits of a position of `material` pieces on the board whose accumulator of
    /// pieces (bias included) is `pieces`, with its counter features `counters` (indices from
    /// [`PIECE_FEATURES`] on) still to add.
    pub fn wdl_logits(
        &self,
        pieces: &[i16],
        counters: &[u16],
        material: usize,
        scratch: &mut IntScratch,
    ) -> [f32; 3] {
        let hidden = self.stacks[0].hidden.first();
        let width = self.accumulator.max(hidden.map_or(0, |l| l.outputs));
        let stack = &self.stacks[bucket(material, self.stacks.len())];
        if scratch.sums.len() < width {
            scratch.acc.resize(self.accumulator, 0);
            scratch.ping.resize(width, 0);
            scratch.pong.resize(width, 0);
            scratch.sums.resize(width, 0);
        }
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is set only where the CPU has AVX2.
            return unsafe { self.wdl_logits_avx2(pieces, counters, stack, scratch) };
        }
        self.wdl_logits_lanes::<false>(pieces, counters, stack, scratch)
    }

    /// The policy logits of the step indices `indices` (each in 0..128) of a position whose
    /// accumulator of pieces is `pieces`, appended to `out`. The counters are left out: the
    /// logits order a search's moves, they do not play them.
    pub fn policy_logits(
        &self,
        pieces: &[i16],
        indices: impl Iterator<Item = usize>,
        scratch: &mut IntScratch,
        out: &mut Vec<f32>,
    ) {
        let q = 1i16 << self.acc_shift;
        let unit = 1.0 / f32::from(q);
        let input = &mut scratch.policy_input;
        input.resize(pieces.len(), 0.0);
        for (x, &piece) in input.iter_mut().zip(pieces) {
            *x = f32::from(piece.clamp(0, q)) * unit;
        }
        out.extend(indices.map(|i| self.policy.bias[i] + dot(self.policy.row(i), input)));
    }

    /// [`QuantisedNet::wdl_logits_lanes`] compiled for AVX2.
    ///
    /// # Safety
    /// Only call on a CPU with AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn wdl_logits_avx2(
        &self,
        pieces: &[i16],
        counters: &[u16],
        stack: &IntStack,
        scratch: &mut IntScratch,
    ) -> [f32; 3] {
        self.wdl_logits_lanes::<true>(pieces, counters, stack, scratch)
    }

    /// The evaluation, written for the compiler to vectorise (the scratch buffers are sized).
    #[inline(always)]
    fn wdl_logits_lanes<const AVX2: bool>(
        &self,
        pieces: &[i16],
        counters: &[u16],
        stack: &IntStack,
        scratch: &mut IntScratch,
    ) -> [f32; 3] {
        let q = 1i16 << self.acc_shift;
        let acc = &mut scratch.acc[..self.accumulator];
        acc.copy_from_slice(pieces);
        for &f in counters {
            for (x, w) in acc.iter_mut().zip(self.column(usize::from(f))) {
                *x += w;
            }
        }
        for x in acc.iter_mut() {
            *x = (*x).clamp(0, q);
        }
        let (acc, ping, pong, sums) =
            (&scratch.acc, &mut scratch.ping, &mut scratch.pong, &mut scratch.sums);
        let mut width = self.accumulator;
        for (i, layer) in stack.hidden.iter().enumerate() {
            let input = if i == 0 { &acc[..width] } else { &ping[..width] };
            layer.hidden::<AVX2>(input, q, sums, pong);
            std::mem::swap(ping, pong);
            width = layer.outputs;
        }
        let input: &[i16] = if stack.hidden.is_empty() { acc } else { &ping[..width] };
        let mut logits = [0i32; 3];
        stack.wdl.affine::<AVX2>(input, &mut logits);
        let unit = 1.0 / ((1i64 << self.acc_shift) as f32 * (1i64 << stack.wdl.shift) as f32);
        logits.map(|l| l as f32 * unit)
    }
}

/// Whether this CPU has AVX2.
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::weights::SparseWeights;
    use std::path::Path;
    use support::SplitMix64;

    /// The four-hour default net, quantised.
    fn reference_net() -> QuantisedNet {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../docs/ab/2026-12-04-default-4h-best.safetensors");
        QuantisedNet::new(&SparseWeights::load(&path).unwrap().0)
    }

    #[test]
    fn the_portable_layers_compute_what_the_avx2_ones_do() {
        let net = reference_net();
        let mut rng = SplitMix64::new(3);
        let (mut portable, mut dispatched) = (IntScratch::default(), IntScratch::default());
        for _ in 0..500 {
            // Any accumulator of pieces: random columns summed onto the bias.
            let mut pieces = net.bias().to_vec();
            for _ in 0..rng.below(25) {
                let column = net.column(rng.below(PIECE_FEATURES as u64) as usize);
                for (x, w) in pieces.iter_mut().zip(column) {
                    *x += w;
                }
            }
            let counters = [192 + rng.below(9) as u16];
            let expected = net.wdl_logits(&pieces, &counters, 24, &mut dispatched);
            // Sizes the scratch as `wdl_logits` does, then runs the portable layers.
            let _ = net.wdl_logits(&pieces, &counters, 24, &mut portable);
            let portable =
                net.wdl_logits_lanes::<false>(&pieces, &counters, &net.stacks[0], &mut portable);
            assert_eq!(portable, expected);
        }
    }

    #[test]
    fn the_portable_update_computes_what_the_dispatched_one_does() {
        let net = reference_net();
        let mut rng = SplitMix64::new(5);
        let feature = |rng: &mut SplitMix64| rng.below(PIECE_FEATURES as u64) as u16;
        for _ in 0..200 {
            let removed: Vec<u16> = (0..rng.below(14)).map(|_| feature(&mut rng)).collect();
            let added: Vec<u16> = (0..rng.below(2)).map(|_| feature(&mut rng)).collect();
            let (mut dispatched, mut portable) =
                (vec![0; net.accumulator], vec![0; net.accumulator]);
            net.update(net.bias(), &mut dispatched, &removed, &added);
            net.update_lanes(net.bias(), &mut portable, &removed, &added);
            assert_eq!(portable, dispatched);
            let mut expected = net.bias().to_vec();
            for (f, sign) in removed.iter().map(|f| (f, -1)).chain(added.iter().map(|f| (f, 1))) {
                for (x, w) in expected.iter_mut().zip(net.column(usize::from(*f))) {
                    *x += sign * w;
                }
            }
            assert_eq!(portable, expected, "{removed:?} {added:?}");
        }
    }
}
