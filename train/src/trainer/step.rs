//! One training step of the trainer: a batch drawn (ahead on the batch thread, or here), the
//! losses, the update of the net, its auxiliary heads and averaged weights, a skipped step for a
//! non-finite loss or gradient, and the figures summed for TensorBoard.

use super::{StepOutcome, Trainer};
use crate::aux_heads::{AuxHeads, AuxTarget};
use crate::batch::{Batch, Sampler, ValueTargets};
use crate::error::TrainError;
use crate::loss::losses;
use crate::prefetch::Prefetcher;
use crate::schedule::learning_rate;
use std::time::Instant;
use support::SplitMix64;

/// Sums of the figures since the last TensorBoard point.
#[derive(Debug, Default)]
pub(super) struct Meter {
    pub(super) steps: u32,
    policy: f64,
    value: f64,
    moves_left: f64,
    soft_policy: f64,
    reply_policy: f64,
    total: f64,
    entropy: f64,
    accuracy: f64,
    grad_norm: f64,
}

impl Trainer {
    /// One step on a batch sampled from the window (an error when it is empty): drawn ahead on
    /// the batch thread, or here with `prefetch_batches = 0`. A non-finite loss or gradient
    /// skips the update; `max_bad_steps` of them in a row are an error.
    pub fn train_step(&mut self) -> Result<StepOutcome, TrainError> {
        let batch = self.next_batch()?;
        self.apply(&batch)
    }

    /// The next batch on the device, from the batch thread (started if need be).
    fn next_batch(&mut self) -> Result<Batch, TrainError> {
        let depth = self.config.prefetch_batches;
        if depth == 0 {
            return self.assemble_batch();
        }
        if self.replay.is_empty() {
            return Err(TrainError::EmptyWindow);
        }
        let sampler = self.sampler();
        let prefetch = match &mut self.prefetch {
            Some(prefetch) => prefetch,
            none => {
                none.insert(Prefetcher::start(self.replay.clone(), self.rng.state, sampler, depth)?)
            }
        };
        let drawn = prefetch.next();
        self.rng = SplitMix64::new(drawn.rng_after);
        Ok(drawn.batch.to_device(sampler.device))
    }

    /// Samples a batch from the window (an error when it is empty) on this thread and copies it
    /// to the device. The batch thread, if running, stops first: it drew ahead from the
    /// generator's state that this batch starts from.
    pub fn assemble_batch(&mut self) -> Result<Batch, TrainError> {
        if self.replay.is_empty() {
            return Err(TrainError::EmptyWindow);
        }
        self.prefetch = None;
        let sampler = self.sampler();
        Ok(sampler.draw(&self.replay, &mut self.rng, &mut self.host).to_device(sampler.device))
    }

    fn sampler(&self) -> Sampler {
        Sampler {
            batch_size: self.config.batch_size,
            input: model::encoding::Input::of(self.net.config()),
            values: ValueTargets {
                search_weight: self.config.search_value_weight,
                quiet_only: self.config.quiet_value_targets,
            },
            replies: self.config.reply_policy_weight > 0.0,
            device: self.net.device(),
        }
    }

    /// One step on a batch already on the device: forward, losses, backward, clip, update.
    pub fn apply(&mut self, batch: &Batch) -> Result<StepOutcome, TrainError> {
        let device = self.net.device();
        let forward = || {
            let out = self.net.forward_heads(&batch.inputs, true);
            let aux = self.aux.as_ref().map(|aux| aux.logits(&out.trunk, true));
            (out, aux.unwrap_or_default())
        };
        let (out, aux) = if self.config.autocast && device.is_cuda() {
            model::autocast_bf16(device, forward)
        } else {
            forward()
        };
        let l = losses(&out, &aux, batch, &self.config);
        let total = l.total.double_value(&[]);
        self.zero_grad();
        let clip = self.config.grad_clip_norm;
        // The net's gradient norm is the one reported; the heads' is clipped on its own, and
        // either one not finite skips the step.
        let grad_norm = if total.is_finite() {
            l.total.backward();
            let aux_norm = self.aux.as_mut().map_or(0.0, |aux| aux.clip_grad_norm(clip));
            let norm = self.optimizer.clip_grad_norm(clip);
            if aux_norm.is_finite() {
                norm
            } else {
                f64::NAN
            }
        } else {
            f64::NAN
        };
        if !grad_norm.is_finite() {
            return self.skip(total, grad_norm);
        }
        let lr = self.learning_rate();
        self.optimizer.step(lr);
        if let Some(aux) = &mut self.aux {
            aux.step(lr);
        }
        if let Some(average) = &mut self.average {
            average.update(&self.net);
        }
        self.step += 1;
        self.bad_in_row = 0;
        let m = &mut self.meter;
        m.steps += 1;
        m.total += total;
        m.policy += l.policy.double_value(&[]);
        m.value += l.value.double_value(&[]);
        m.moves_left += l.moves_left.double_value(&[]);
        let value_of =
            |loss: &Option<tch::Tensor>| loss.as_ref().map_or(0.0, |t| t.double_value(&[]));
        m.soft_policy += value_of(&l.soft_policy);
        m.reply_policy += value_of(&l.reply_policy);
        m.entropy += l.policy_entropy.double_value(&[]);
        m.accuracy += l.value_accuracy.double_value(&[]);
        m.grad_norm += grad_norm;
        if self.step % self.config.log_every == 0 {
            self.log()?;
        }
        Ok(StepOutcome::Trained { loss: total })
    }

    /// Zeroes the gradients of the net and of the auxiliary heads.
    fn zero_grad(&mut self) {
        self.optimizer.zero_grad();
        if let Some(aux) = &mut self.aux {
            aux.zero_grad();
        }
    }

    fn skip(&mut self, loss: f64, grad_norm: f64) -> Result<StepOutcome, TrainError> {
        self.zero_grad();
        self.skipped += 1;
        self.bad_in_row += 1;
        if self.bad_in_row >= self.config.max_bad_steps {
            return Err(TrainError::NonFinite {
                step: self.step,
                count: self.bad_in_row,
                loss,
                grad_norm,
                checkpoint: self
                    .last_checkpoint
                    .as_ref()
                    .map_or("none yet".into(), |p| p.display().to_string()),
            });
        }
        Ok(StepOutcome::Skipped { loss, grad_norm })
    }

    /// Writes the averages since the last point to TensorBoard.
    fn log(&mut self) -> Result<(), TrainError> {
        let m = std::mem::take(&mut self.meter);
        let n = f64::from(m.steps.max(1));
        let elapsed = self.since.elapsed().as_secs_f64();
        self.since = Instant::now();
        let samples_per_s = f64::from(m.steps) * self.config.batch_size as f64 / elapsed.max(1e-9);
        let step = self.step.saturating_sub(1);
        let lr = learning_rate(&self.config, step, self.replay.seen(), self.budget_spent);
        let points = [
            ("loss/policy", m.policy / n),
            ("loss/value", m.value / n),
            ("loss/moves_left", m.moves_left / n),
            ("loss/total", m.total / n),
            ("policy/entropy", m.entropy / n),
            ("value/accuracy", m.accuracy / n),
            ("train/learning_rate", lr),
            ("train/samples_per_s", samples_per_s),
            ("train/grad_norm", m.grad_norm / n),
            ("train/skipped_steps", self.skipped as f64),
            ("replay/window", self.replay.len() as f64),
            ("replay/seen", self.replay.seen() as f64),
            ("replay/reuse", self.reuse()),
        ];
        let aux = self.aux.iter().flat_map(AuxHeads::targets).map(|target| match target {
            AuxTarget::SoftPolicy => ("loss/soft_policy", m.soft_policy / n),
            AuxTarget::ReplyPolicy => ("loss/reply_policy", m.reply_policy / n),
        });
        let points: Vec<(&str, f32)> =
            points.into_iter().chain(aux).map(|(tag, v)| (tag, v as f32)).collect();
        self.tb.scalars(self.step, &points)
    }
}
