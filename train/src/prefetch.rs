//! Batch assembly on a background thread, ahead of the training steps that use the batches, with
//! exactly the batches the training thread would draw itself.
//!
//! Between two refreshes the replay window is fixed, and batch `k` depends only on the window and
//! the sampling generator's state after batch `k - 1`. So one thread, given the window and the
//! generator's state, draws batch after batch in order into a bounded channel, each with the
//! generator's state after it; the trainer takes them in order and adopts that state. It checkpoints
//! the state after the last batch it used, whatever the thread drew beyond it, and a new thread
//! starts from there after a refresh: a resumed or synchronous run draws the same batches.

use crate::batch::{Batch, HostBatch, Sampler};
use crate::error::TrainError;
use crate::replay::ReplayBuffer;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;
use support::SplitMix64;

/// A batch drawn ahead, in host memory (pinned for CUDA).
pub(crate) struct Drawn {
    /// The batch.
    pub batch: Batch,
    /// The sampling generator's state after drawing it.
    pub rng_after: u64,
}

/// The thread drawing batches ahead, and the channel it fills. Dropping it stops the thread
/// (batches drawn but not taken are discarded).
pub(crate) struct Prefetcher {
    receiver: Option<Receiver<Drawn>>,
    thread: Option<JoinHandle<()>>,
}

impl Prefetcher {
    /// Starts drawing from `replay` (not empty) with a generator in state `rng`, keeping at most
    /// `depth` batches (at least 1) ready.
    pub fn start(
        replay: Arc<ReplayBuffer>,
        rng: u64,
        sampler: Sampler,
        depth: usize,
    ) -> Result<Prefetcher, TrainError> {
        let (sender, receiver) = sync_channel(depth.max(1));
        let thread = std::thread::Builder::new()
            .name("train-batches".into())
            .spawn(move || {
                let mut rng = SplitMix64::new(rng);
                let mut host = HostBatch::default();
                loop {
                    let batch = sampler.draw(&replay, &mut rng, &mut host);
                    if sender.send(Drawn { batch, rng_after: rng.state }).is_err() {
                        return; // the trainer stopped listening
                    }
                }
            })
            .map_err(TrainError::Thread)?;
        Ok(Prefetcher { receiver: Some(receiver), thread: Some(thread) })
    }

    /// The next batch, waiting for it if it is not drawn yet.
    pub fn next(&mut self) -> Drawn {
        if let Some(drawn) = self.receiver.as_ref().and_then(|r| r.recv().ok()) {
            return drawn;
        }
        // The thread only ends while the receiver lives by panicking: carry its panic over.
        let panic = self.thread.take().and_then(|thread| thread.join().err());
        std::panic::resume_unwind(panic.unwrap_or_else(|| Box::new("the batch thread ended")))
    }
}

impl Drop for Prefetcher {
    fn drop(&mut self) {
        // The thread's next send fails once the receiver is gone; then it ends.
        drop(self.receiver.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::ValueTargets;
    use crate::synthetic::synthetic_samples;
    use runconfig::WindowConfig;
    use shard::Records;
    use tch::{Device, Tensor};

    fn window(positions: usize) -> ReplayBuffer {
        let mut replay = ReplayBuffer::new(WindowConfig::default());
        for (i, chunk) in synthetic_samples(positions, 3).chunks(100).enumerate() {
            let records = Records::parse(Records::encode_all(chunk).unwrap(), chunk.len());
            replay.add(format!("{i}.shard"), records.unwrap());
        }
        replay
    }

    fn tensors(batch: &Batch) -> [&Tensor; 7] {
        [
            &batch.inputs,
            &batch.policy,
            &batch.legal,
            &batch.policy_weight,
            &batch.wdl,
            &batch.value_weight,
            &batch.moves_left,
        ]
    }

    #[test]
    fn the_thread_draws_the_batches_and_states_of_the_training_thread() {
        let replay = Arc::new(window(1000));
        let sampler = Sampler {
            batch_size: 24,
            input: model::encoding::Input::Planes,
            values: ValueTargets { search_weight: 0.3, quiet_only: true },
            replies: true,
            device: Device::Cpu,
        };
        let mut rng = SplitMix64::new(11);
        let mut host = HostBatch::default();
        let mut prefetcher = Prefetcher::start(replay.clone(), rng.state, sampler, 2).unwrap();
        for k in 0..12 {
            let expected = sampler.draw(&replay, &mut rng, &mut host);
            let drawn = prefetcher.next();
            assert_eq!(drawn.rng_after, rng.state, "generator after batch {k}");
            for (a, b) in tensors(&drawn.batch).into_iter().zip(tensors(&expected)) {
                assert_eq!((a.kind(), a.size()), (b.kind(), b.size()));
                assert!(a.equal(b), "batch {k} differs");
            }
        }
        drop(prefetcher);
        assert_eq!(Arc::strong_count(&replay), 1, "the stopped thread let go of the window");
    }
}
