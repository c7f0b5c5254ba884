//! Training samples/s through the real data pipeline (replay sampling, encoding, batching, copy,
//! train step), with the batches drawn ahead on the batch thread as training does and, for the
//! comparison, on the training thread; against raw train steps of the same net on one fixed batch
//! already on the device; the pipeline again with the auxiliary heads learning too; and the replay
//! window's memory per position.

use model::NetConfig;
use runconfig::TrainConfig;
use shard::{write_shard, ShardHeader};
use std::time::{Duration, Instant};
use tch::Device;
use train::synthetic::{link_replies, synthetic_samples};
use train::{TrainError, TrainPaths, Trainer};

/// Figures of one benchmark run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TrainBench {
    /// The measured net (`resnet 4x32`, `sparse 128-32x2`).
    pub net: String,
    /// Samples per training step.
    pub batch_size: usize,
    /// Batches the batch thread keeps ready (`train.prefetch_batches`; at least 1 here).
    pub prefetch_batches: usize,
    /// Training steps timed in each measurement.
    pub steps: u64,
    /// Samples/s of whole training steps through the replay window, batches drawn ahead.
    pub pipeline_samples_per_s: f64,
    /// The same with each batch assembled on the training thread when its step starts.
    pub sync_samples_per_s: f64,
    /// Samples/s of train steps on a batch already on the device.
    pub raw_samples_per_s: f64,
    /// `pipeline / raw`; 0.9 means the pipeline costs 10%.
    pub ratio: f64,
    /// Samples/s of the prefetched pipeline with both auxiliary heads learning too (the
    /// soft-policy target at [`AUX_WEIGHTS`]`.0`, the opponent's reply at `.1`).
    pub aux_samples_per_s: f64,
    /// Samples/s of the data pipeline alone (sampling, encoding, batching, copy to the device).
    pub assembly_samples_per_s: f64,
    /// Replay-window heap bytes per position (records and offsets).
    pub replay_bytes_per_position: f64,
}

/// The auxiliary heads' weights in the measurement with them (`train.soft_policy_weight`,
/// `train.reply_policy_weight`); their cost does not depend on the weights.
pub const AUX_WEIGHTS: (f32, f32) = (1.0, 0.15);

/// Times `steps` steps of each kind (prefetched pipeline, synchronous pipeline, raw, prefetched
/// pipeline with the auxiliary heads) and `steps`
/// batch assemblies, interleaved in rounds of 10 so that all see the same machine load, on
/// `positions` synthetic positions written as shards into a scratch folder, with the training
/// settings of `config` (its precision and prefetch depth; checkpoints and logs off).
pub fn bench_train(
    net_config: &NetConfig,
    config: &TrainConfig,
    steps: u64,
    positions: usize,
    device: Device,
) -> Result<TrainBench, TrainError> {
    super::in_scratch_dir("train", |scratch| -> Result<TrainBench, TrainError> {
        let shards = scratch.join("shards");
        std::fs::create_dir_all(&shards)
            .map_err(|source| TrainError::Io { path: shards.clone(), source })?;
        for chunk in synthetic_samples(positions, 1).chunks_mut(4096) {
            link_replies(chunk);
            write_shard(&shards, &ShardHeader::now(0, None), chunk)?;
        }
        let config = TrainConfig {
            min_positions: config.batch_size,
            checkpoint_every: u64::MAX,
            log_every: u64::MAX,
            prefetch_batches: config.prefetch_batches.max(1),
            ..config.clone()
        };
        let open = |name: &str, config: TrainConfig| -> Result<Trainer, TrainError> {
            let paths = TrainPaths {
                shards: shards.clone(),
                states: scratch.join(name).join("train"),
                nets: scratch.join(name).join("nets"),
                tb: scratch.join(name).join("tb"),
            };
            let (mut trainer, _) = Trainer::open(paths, net_config, config, device)?;
            trainer.refresh()?;
            trainer.train_step()?; // warm-up
            Ok(trainer)
        };
        let mut ahead = open("ahead", config.clone())?;
        let mut inline = open("inline", TrainConfig { prefetch_batches: 0, ..config.clone() })?;
        let (soft_policy_weight, reply_policy_weight) = AUX_WEIGHTS;
        let mut aux =
            open("aux", TrainConfig { soft_policy_weight, reply_policy_weight, ..config.clone() })?;
        let fixed = inline.assemble_batch()?;
        inline.apply(&fixed)?;
        let mut times = [Duration::ZERO; 5];
        let rounds = steps.div_ceil(10);
        for _ in 0..rounds {
            let t = Instant::now();
            for _ in 0..10 {
                inline.apply(&fixed)?;
            }
            times[0] += t.elapsed();
            let t = Instant::now();
            for _ in 0..10 {
                ahead.train_step()?;
            }
            times[1] += t.elapsed();
            let t = Instant::now();
            for _ in 0..10 {
                inline.train_step()?;
            }
            times[2] += t.elapsed();
            let t = Instant::now();
            for _ in 0..10 {
                drop(inline.assemble_batch()?);
            }
            times[3] += t.elapsed();
            let t = Instant::now();
            for _ in 0..10 {
                aux.train_step()?;
            }
            times[4] += t.elapsed();
        }
        let samples = (rounds * 10 * config.batch_size as u64) as f64;
        let [raw, pipeline, sync, assembly, with_aux] = times.map(|t| samples / t.as_secs_f64());
        let replay = ahead.replay();
        Ok(TrainBench {
            net: net_config.short_name(),
            batch_size: config.batch_size,
            prefetch_batches: config.prefetch_batches,
            steps: rounds * 10,
            pipeline_samples_per_s: pipeline,
            sync_samples_per_s: sync,
            raw_samples_per_s: raw,
            ratio: pipeline / raw,
            aux_samples_per_s: with_aux,
            assembly_samples_per_s: assembly,
            replay_bytes_per_position: replay.heap_bytes() as f64 / replay.held().max(1) as f64,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_benchmark_runs() {
        let config = TrainConfig { batch_size: 16, ..TrainConfig::default() };
        let figures = bench_train(&NetConfig::new(2, 16), &config, 10, 500, Device::Cpu).unwrap();
        assert!(figures.ratio > 0.0 && figures.sync_samples_per_s > 0.0, "{figures:?}");
        assert!(figures.aux_samples_per_s > 0.0, "{figures:?}");
        assert!(figures.replay_bytes_per_position > 27.0, "{figures:?}");
    }
}
