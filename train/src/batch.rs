//! A training batch: replay records turned into input planes and targets, assembled in host
//! buffers reused across steps, then copied to the device in one go per tensor.

use model::encoding::{encode_into, INPUT_SIZE, PLANES};
use model::policy::POLICY_SIZE;
use selfplay::shard::RecordView;
use tch::{Device, Kind, Tensor};

/// Host-side buffers of a batch being assembled.
#[derive(Debug, Default)]
pub struct HostBatch {
    /// `[B, PLANES, 8, 8]`
    inputs: Vec<f32>,
    /// `[B, 128]` the visit distribution, normalised; 0 off its support.
    policy: Vec<f32>,
    /// `[B, 128]` 1 on the legal steps (the policy's support), else 0.
    legal: Vec<f32>,
    /// `[B]` 1 for full-search samples with a visit distribution, else 0.
    policy_weight: Vec<f32>,
    /// `[B, 3]` target (win, draw, loss) for the mover.
    wdl: Vec<f32>,
    /// `[B]` plies to the end.
    moves_left: Vec<f32>,
}

/// A batch on the device. Shapes as in [`HostBatch`].
#[derive(Debug)]
pub struct Batch {
    /// Float `[B, PLANES, 8, 8]` encoded observations.
    pub inputs: Tensor,
    /// Float `[B, 128]` visit distributions, normalised, 0 off the legal steps.
    pub policy: Tensor,
    /// Bool `[B, 128]`.
    pub legal: Tensor,
    /// Float `[B]`: 1 for samples that are policy targets (full searches), else 0.
    pub policy_weight: Tensor,
    /// Float `[B, 3]` (win, draw, loss) targets for the mover.
    pub wdl: Tensor,
    /// Float `[B]` decision points to the end of the game.
    pub moves_left: Tensor,
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

impl HostBatch {
    /// Empties the buffers, keeping their capacity.
    pub fn clear(&mut self) {
        for buf in [
            &mut self.inputs,
            &mut self.policy,
            &mut self.legal,
            &mut self.policy_weight,
            &mut self.wdl,
            &mut self.moves_left,
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

    /// Appends one position with its targets.
    pub fn push(&mut self, record: RecordView<'_>, search_value_weight: f32) {
        let at = self.inputs.len();
        self.inputs.resize(at + INPUT_SIZE, 0.0);
        encode_into(&record.observation(), &mut self.inputs[at..]);
        let at = self.policy.len();
        self.policy.resize(at + POLICY_SIZE, 0.0);
        self.legal.resize(at + POLICY_SIZE, 0.0);
        let mut total = 0.0;
        for (index, p) in record.policy() {
            self.policy[at + index as usize] = p;
            self.legal[at + index as usize] = 1.0;
            total += p;
        }
        if total > 0.0 {
            self.policy[at..].iter_mut().for_each(|p| *p /= total);
        }
        self.policy_weight.push(f32::from(u8::from(record.full_search() && total > 0.0)));
        self.wdl.extend(wdl_target(record.result(), record.search_value(), search_value_weight));
        self.moves_left.push(f32::from(record.plies_to_end()));
    }

    /// The batch as tensors on `device`.
    pub fn to_device(&self, device: Device) -> Batch {
        let b = self.len() as i64;
        let put =
            |data: &[f32], shape: &[i64]| Tensor::from_slice(data).view(shape).to_device(device);
        Batch {
            inputs: put(&self.inputs, &[b, PLANES as i64, 8, 8]),
            policy: put(&self.policy, &[b, POLICY_SIZE as i64]),
            legal: put(&self.legal, &[b, POLICY_SIZE as i64]).to_kind(Kind::Bool),
            policy_weight: put(&self.policy_weight, &[b]),
            wdl: put(&self.wdl, &[b, 3]),
            moves_left: put(&self.moves_left, &[b]),
        }
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
}
