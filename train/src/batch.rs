//! A training batch: replay records turned into the net's inputs (its family's) and targets, assembled in host
//! buffers reused across steps, then made tensors in host memory (page-locked when the batch is
//! for CUDA, so that its copy to the device can overlap the work queued before it) and copied to
//! the device in one go per tensor.

use crate::replay::ReplayBuffer;
use model::encoding::Input;
use model::policy::POLICY_SIZE;
use shard::RecordView;
use support::SplitMix64;
use tch::{Device, Tensor};

/// Host-side buffers of a batch being assembled.
#[derive(Debug, Default)]
pub struct HostBatch {
    /// `[B, ...]` the encoded positions (see [`Input`]).
    inputs: Vec<f32>,
    /// `[B, 128]` the visit distribution, normalised; 0 off its support.
    policy: Vec<f32>,
    /// `[B, 128]` the legal steps (the policy's support).
    legal: Vec<bool>,
    /// `[B]` 1 for full-search samples with a visit distribution, else 0.
    policy_weight: Vec<f32>,
    /// `[B, 3]` target (win, draw, loss) for the mover.
    wdl: Vec<f32>,
    /// `[B]` 1 for samples that are value targets, else 0 (see [`ValueTargets::quiet_only`]).
    value_weight: Vec<f32>,
    /// `[B]` plies to the end.
    moves_left: Vec<f32>,
    /// `[B, 128]` the opponent's reply's visit distribution, normalised; 0 off its support.
    reply_policy: Vec<f32>,
    /// `[B, 128]` the reply's legal steps (its policy's support).
    reply_legal: Vec<bool>,
    /// `[B]` 1 for samples whose reply is known and had a full search, else 0.
    reply_weight: Vec<f32>,
}

/// A batch of tensors, in host memory ([`HostBatch::to_tensors`]) or on the device
/// ([`Batch::to_device`]). Shapes as in [`HostBatch`].
#[derive(Debug)]
pub struct Batch {
    /// Float `[B, PLANES, 8, 8]` or `[B, FEATURES]` encoded observations.
    pub inputs: Tensor,
    /// Float `[B, 128]` visit distributions, normalised, 0 off the legal steps.
    pub policy: Tensor,
    /// Bool `[B, 128]`.
    pub legal: Tensor,
    /// Float `[B]`: 1 for samples that are policy targets (full searches), else 0.
    pub policy_weight: Tensor,
    /// Float `[B, 3]` (win, draw, loss) targets for the mover.
    pub wdl: Tensor,
    /// Float `[B]`: 1 for samples that are value targets, else 0.
    pub value_weight: Tensor,
    /// Float `[B]` decision points to the end of the game.
    pub moves_left: Tensor,
    /// Float `[B, 128]` the opponent's reply's visit distributions, normalised, 0 off its legal
    /// steps (in the opponent's frame).
    pub reply_policy: Tensor,
    /// Bool `[B, 128]` the reply's legal steps.
    pub reply_legal: Tensor,
    /// Float `[B]`: 1 for samples whose reply is a target (known, with a full search), else 0.
    pub reply_weight: Tensor,
}

/// What a sample's value target is made of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueTargets {
    /// The search value's share in the target (see [`wdl_target`]).
    pub search_weight: f32,
    /// Only positions without a capture pending are value targets (GuiNN's trainer): in the
    /// others the material about to change hands makes the position's value a poor lesson.
    pub quiet_only: bool,
}

/// The WDL target of a game result (1, 0, -1) mixed with the search value `v` (as
/// `[max(v, 0), 1 - |v|, max(-v, 0)]`) at weight `search_weight`.
pub fn wdl_target(result: i8, search_value: f32, search_weight: f32) -> [f32; 3] {
    let outcome = match result {
        1 => [1.0, 0.0, 0.0],
        -1 => [0.0, 0.0, 1.0],
        _ => [0.0, 1.0, 0.0],
    };
    let v = search_value.clamp(-1.0, 1.0);
    let search = [v.max(0.0), 1.0 - v.abs(), (-v).max(0.0)];
    std::array::from_fn(|i| (1.0 - search_weight) * outcome[i] + search_weight * search[i])
}

/// Appends a row of 128 to `policy` and `legal`: `record`'s visit distribution, normalised, and
/// its support (zeros without a record). Returns the sum of the stored probabilities.
fn push_policy(
    policy: &mut Vec<f32>,
    legal: &mut Vec<bool>,
    record: Option<RecordView<'_>>,
) -> f32 {
    let at = policy.len();
    policy.resize(at + POLICY_SIZE, 0.0);
    legal.resize(at + POLICY_SIZE, false);
    let mut total = 0.0;
    for (index, p) in record.iter().flat_map(|r| r.policy()) {
        policy[at + index as usize] = p;
        legal[at + index as usize] = true;
        total += p;
    }
    if total > 0.0 {
        policy[at..].iter_mut().for_each(|p| *p /= total);
    }
    total
}

impl HostBatch {
    /// Empties the buffers, keeping their capacity.
    pub fn clear(&mut self) {
        self.legal.clear();
        self.reply_legal.clear();
        for buf in [
            &mut self.inputs,
            &mut self.policy,
            &mut self.policy_weight,
            &mut self.wdl,
            &mut self.value_weight,
            &mut self.moves_left,
            &mut self.reply_policy,
            &mut self.reply_weight,
        ] {
            buf.clear();
        }
    }

    /// Samples in the batch so far (`B`).
    pub fn len(&self) -> usize {
        self.moves_left.len()
    }

    /// Whether no sample was added yet.
    pub fn is_empty(&self) -> bool {
        self.moves_left.is_empty()
    }

    /// Appends one position, encoded as `input`, with its targets; `reply` is the record of the
    /// opponent's reply, if known (see `shard::Records::reply`).
    pub fn push(
        &mut self,
        record: RecordView<'_>,
        reply: Option<RecordView<'_>>,
        input: Input,
        values: ValueTargets,
    ) {
        let at = self.inputs.len();
        self.inputs.resize(at + input.size(), 0.0);
        let observation = record.observation();
        input.encode_into(&observation, &mut self.inputs[at..]);
        let total = push_policy(&mut self.policy, &mut self.legal, Some(record));
        self.policy_weight.push(f32::from(u8::from(record.full_search() && total > 0.0)));
        let reply = reply.filter(|r| r.full_search());
        let total = push_policy(&mut self.reply_policy, &mut self.reply_legal, reply);
        self.reply_weight.push(f32::from(u8::from(total > 0.0)));
        self.wdl.extend(wdl_target(record.result(), record.search_value(), values.search_weight));
        let quiet = || observation.moving_piece.is_none() && !observation.position.has_capture();
        self.value_weight.push(f32::from(u8::from(!values.quiet_only || quiet())));
        self.moves_left.push(f32::from(record.plies_to_end()));
    }

    /// The batch (encoded as `input`) as tensors in host memory, page-locked when `device` (the
    /// one it is for) is CUDA.
    pub fn to_tensors(&self, input: Input, device: Device) -> Batch {
        let b = self.len() as i64;
        let put = |t: Tensor, shape: &[i64]| {
            let t = t.view(shape);
            // `at::_pin_memory`: `pin_memory` itself warns, each call, that its device argument is
            // deprecated (and without one it would look for the default accelerator).
            if device.is_cuda() {
                t.internal_pin_memory(device)
            } else {
                t
            }
        };
        Batch {
            inputs: put(
                input.tensor(&self.inputs),
                &[b].into_iter().chain(input.dims()).collect::<Vec<_>>(),
            ),
            policy: put(Tensor::from_slice(&self.policy), &[b, POLICY_SIZE as i64]),
            legal: put(Tensor::from_slice(&self.legal), &[b, POLICY_SIZE as i64]),
            policy_weight: put(Tensor::from_slice(&self.policy_weight), &[b]),
            wdl: put(Tensor::from_slice(&self.wdl), &[b, 3]),
            value_weight: put(Tensor::from_slice(&self.value_weight), &[b]),
            moves_left: put(Tensor::from_slice(&self.moves_left), &[b]),
            reply_policy: put(Tensor::from_slice(&self.reply_policy), &[b, POLICY_SIZE as i64]),
            reply_legal: put(Tensor::from_slice(&self.reply_legal), &[b, POLICY_SIZE as i64]),
            reply_weight: put(Tensor::from_slice(&self.reply_weight), &[b]),
        }
    }
}

impl Batch {
    /// The batch on `device`: for CUDA each tensor is copied without the host waiting for the
    /// copy (from page-locked memory it runs in order with the device's other work); on the CPU
    /// the tensors themselves.
    pub fn to_device(&self, device: Device) -> Batch {
        let put = |t: &Tensor| t.to_device_(device, t.kind(), true, false);
        Batch {
            inputs: put(&self.inputs),
            policy: put(&self.policy),
            legal: put(&self.legal),
            policy_weight: put(&self.policy_weight),
            wdl: put(&self.wdl),
            value_weight: put(&self.value_weight),
            moves_left: put(&self.moves_left),
            reply_policy: put(&self.reply_policy),
            reply_legal: put(&self.reply_legal),
            reply_weight: put(&self.reply_weight),
        }
    }
}

/// How batches are drawn from the replay window: their size, what their value targets are, and
/// the device they are for.
#[derive(Clone, Copy, Debug)]
pub struct Sampler {
    /// Positions per batch.
    pub batch_size: usize,
    /// The net's input.
    pub input: Input,
    /// The value targets.
    pub values: ValueTargets,
    /// Whether the opponents' replies are read into the batch (only an opponent's-reply head
    /// learns them; without one their rows stay zeros).
    pub replies: bool,
    /// Where the batch will be trained ([`HostBatch::to_tensors`] pins its memory for CUDA).
    pub device: Device,
}

impl Sampler {
    /// Draws one batch uniformly from `replay` (which must not be empty) with `rng`, assembled
    /// in `host` (reused across calls), as host tensors.
    pub fn draw(&self, replay: &ReplayBuffer, rng: &mut SplitMix64, host: &mut HostBatch) -> Batch {
        host.clear();
        for _ in 0..self.batch_size {
            let (record, reply) = replay.sample(rng);
            host.push(record, reply.filter(|_| self.replies), self.input, self.values);
        }
        host.to_tensors(self.input, self.device)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wdl_targets_mix_result_and_search_value() {
        assert_eq!(wdl_target(1, -1.0, 0.0), [1.0, 0.0, 0.0]);
        assert_eq!(wdl_target(-1, 0.5, 0.0), [0.0, 0.0, 1.0]);
        assert_eq!(wdl_target(0, 0.5, 1.0), [0.5, 0.5, 0.0]);
        let mixed = wdl_target(1, -0.5, 0.5);
        assert_eq!(mixed, [0.5, 0.25, 0.25]);
    }

    #[test]
    fn the_opponents_reply_is_a_target_where_it_had_a_full_search() {
        let mut samples = crate::synthetic::synthetic_samples(8, 3);
        crate::synthetic::link_replies(&mut samples);
        let records =
            shard::Records::parse(shard::Records::encode_all(&samples).unwrap(), samples.len())
                .unwrap();
        let values = ValueTargets { search_weight: 0.0, quiet_only: false };
        let mut host = HostBatch::default();
        for i in 0..records.len() {
            host.push(records.get(i), records.reply(i), Input::Features, values);
        }
        for (i, &weight) in host.reply_weight.iter().enumerate() {
            let reply = records.reply(i).filter(|r| r.full_search());
            assert_eq!(weight, f32::from(u8::from(reply.is_some())), "sample {i}");
            let row = &host.reply_policy[i * POLICY_SIZE..(i + 1) * POLICY_SIZE];
            let legal = &host.reply_legal[i * POLICY_SIZE..(i + 1) * POLICY_SIZE];
            match reply {
                Some(reply) => {
                    assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
                    let support: Vec<usize> =
                        reply.policy().map(|(index, _)| index as usize).collect();
                    let marked: Vec<usize> = (0..POLICY_SIZE).filter(|&k| legal[k]).collect();
                    assert_eq!(marked, support, "the reply's own legal steps");
                }
                None => assert!(row.iter().all(|&p| p == 0.0) && !legal.contains(&true)),
            }
        }
        assert!(host.reply_weight.contains(&1.0) && host.reply_weight.contains(&0.0));
    }

    #[test]
    fn quiet_value_targets_leave_out_the_positions_with_a_capture_pending() {
        let samples = crate::synthetic::synthetic_samples(400, 5);
        let records =
            shard::Records::parse(shard::Records::encode_all(&samples).unwrap(), samples.len())
                .unwrap();
        let quiet: Vec<bool> = samples
            .iter()
            .map(|s| s.observation.moving_piece.is_none() && !s.observation.position.has_capture())
            .collect();
        assert!(quiet.contains(&true) && quiet.contains(&false), "both kinds among the samples");
        for quiet_only in [false, true] {
            let mut host = HostBatch::default();
            let values = ValueTargets { search_weight: 0.0, quiet_only };
            for record in records.iter() {
                host.push(record, None, Input::Features, values);
            }
            let expected: Vec<f32> =
                quiet.iter().map(|&q| f32::from(u8::from(q || !quiet_only))).collect();
            assert_eq!(host.value_weight, expected, "quiet_only = {quiet_only}");
        }
    }
}
