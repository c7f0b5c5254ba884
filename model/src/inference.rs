//! Batched evaluation for self-play and players: observations in, policy logits and WDL out, with
//! one host-to-device copy, one forward pass and one device-to-host copy per batch.

use crate::encoding::Input;
use crate::error::ModelError;
use crate::guard::{device_name, on_device};
use crate::net::{PolicyValueNet, MOVES_LEFT_OFFSET, OUTPUT_SIZE, WDL_OFFSET};
use crate::policy::POLICY_SIZE;
use draughts::{Color, Observation, Step};
use tch::nn::ModuleT;
use tch::{Device, Kind};

/// The net's verdict on one position.
#[derive(Clone, Debug, PartialEq)]
pub struct NetEval {
    /// Logits over the 128 step indices ([`Step::index_for`]); the caller masks illegal steps.
    pub policy_logits: [f32; POLICY_SIZE],
    /// Win, draw, loss probabilities from the mover's view (softmax of the WDL logits).
    pub wdl: [f32; 3],
    /// Predicted plies to the end of the game.
    pub moves_left: f32,
}

impl NetEval {
    /// One row of the net's output (`OUTPUT_SIZE` values: policy logits, WDL logits, moves left).
    pub fn from_output_row(row: &[f32]) -> NetEval {
        let logits: [f32; 3] =
            row[WDL_OFFSET..WDL_OFFSET + 3].try_into().expect("a row holds the WDL logits");
        let max = logits.into_iter().fold(f32::NEG_INFINITY, f32::max);
        let exp = logits.map(|l| (l - max).exp());
        let sum: f32 = exp.iter().sum();
        NetEval {
            policy_logits: row[..POLICY_SIZE].try_into().expect("a row holds the policy"),
            wdl: exp.map(|e| e / sum),
            moves_left: row[MOVES_LEFT_OFFSET],
        }
    }

    /// Expected score for the mover in -1..=1: win minus loss probability.
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }

    /// Priors over `steps` (the legal steps, in their order): softmax of their logits alone.
    pub fn priors(&self, steps: &[Step], mover: Color) -> Vec<f32> {
        let logits: Vec<f32> =
            steps.iter().map(|s| self.policy_logits[s.index_for(mover)]).collect();
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exp: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
        let sum: f32 = exp.iter().sum();
        exp.into_iter().map(|e| e / sum).collect()
    }
}

/// A net ready for inference: eval mode, no gradients, on its device, optionally in bf16.
///
/// `Send` but not `Sync` (tch tensors are not): give each inference thread its own, or share one
/// behind a mutex and batch across games.
#[derive(Debug)]
pub struct Inference {
    net: PolicyValueNet,
    kind: Kind,
    input: Input,
}

impl Inference {
    /// Takes the net over. With `bf16`, its weights are converted to bfloat16 and each batch runs in
    /// bf16 (for CUDA; it runs, slowly, on CPU too); outputs are returned as f32 either way.
    pub fn new(mut net: PolicyValueNet, bf16: bool) -> Inference {
        net.var_store_mut().freeze();
        let kind = if bf16 { Kind::BFloat16 } else { Kind::Float };
        if bf16 {
            net.var_store_mut().bfloat16();
        }
        let input = Input::of(net.config());
        Inference { net, kind, input }
    }

    /// The net that evaluates.
    pub fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    /// The input its net reads.
    pub fn input(&self) -> Input {
        self.input
    }

    /// The device the net runs on.
    pub fn device(&self) -> Device {
        self.net.device()
    }

    /// Evaluates a batch of observations (one forward pass).
    pub fn evaluate(&self, batch: &[Observation]) -> Result<Vec<NetEval>, ModelError> {
        let mut input = vec![0.0; batch.len() * self.input.size()];
        self.input.encode_batch_into(batch, &mut input);
        let output = self.forward_encoded(&input)?;
        Ok(output.chunks_exact(OUTPUT_SIZE).map(NetEval::from_output_row).collect())
    }

    /// The fast path: an encoded batch (`B * size` values, see [`Input::encode_batch_into`]) to the
    /// raw output rows (`B * OUTPUT_SIZE` values: policy logits, WDL logits, moves left). A
    /// failure on the device (e.g. out of memory) or an input that is not a whole number of
    /// positions is an error naming the device and the batch.
    pub fn forward_encoded(&self, input: &[f32]) -> Result<Vec<f32>, ModelError> {
        let (device, size) = (self.device(), self.input.size());
        let batch = input.len() / size;
        if input.len() % size != 0 {
            let message = format!("{} input values are not whole positions of {size}", input.len());
            return Err(ModelError::Forward { device: device_name(device), batch, message });
        }
        let mut out = vec![0.0; batch * OUTPUT_SIZE];
        if batch == 0 {
            return Ok(out);
        }
        on_device(device, batch, || {
            let xs = self.input.tensor(input).to_device(device).to_kind(self.kind);
            let ys = tch::no_grad(|| self.net.forward_t(&xs, false));
            ys.to_kind(Kind::Float)
                .to_device(Device::Cpu)
                .contiguous()
                .copy_data(&mut out, batch * OUTPUT_SIZE);
        })?;
        Ok(out)
    }
}
