//! Training samples/s through the real data pipeline (replay
//! sampling, encoding, batching, copy, train step) against raw train steps of the same net on
//! one fixed batch already on the device, and the replay window's memory per position.

use model::NetConfig;
use selfplay::shard::{write_shard, ShardHeader};
use std::time::{Duration, Instant};
use tch::Device;
use train::synthetic::synthetic_samples;
use train::{TrainConfig, TrainError, TrainPaths, Trainer};

/// Figures of one benchmark run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TrainBench {
    /// Residual blocks of the measured net.
    pub blocks: usize,
    /// Channels of the measured net.
    pub channels: usize,
    /// Samples per training step.
    pub batch_size: usize,
    /// Training steps timed in each of the two measurements.
    pub steps: u64,
    /// Samples/s of whole training steps through the replay window.
    pub pipeline_samples_per_s: f64,
    /// Samples/s of train steps on a batch already on the device.
    pub raw_samples_per_s: f64,
    /// `pipeline / raw`; 0.9 means the pipeline costs 10%.
    pub ratio: f64,
    /// Samples/s of the data pipeline alone (sampling, encoding, batching, copy to the device).
    pub assembly_samples_per_s: f64,
    /// Replay-window heap bytes per position (records and offsets).
    pub replay_bytes_per_position: f64,
}

/// Runs `steps` pipeline steps, `steps` raw steps and `steps` batch assemblies, interleaved in rounds of 10 so both see the
/// same machine load, on `positions` synthetic positions written as shards into a scratch folder.
pub fn bench_train(
    net_config: &NetConfig,
    batch_size: usize,
    steps: u64,
    positions: usize,
    device: Device,
) -> Result<TrainBench, TrainError> {
    super::in_scratch_dir("train", |scratch| -> Result<TrainBench, TrainError> {
        let paths = TrainPaths {
            shards: scratch.join("shards"),
            states: scratch.join("train"),
            nets: scratch.join("nets"),
            tb: scratch.join("tb"),
        };
        std::fs::create_dir_all(&paths.shards)
            .map_err(|source| TrainError::Io { path: paths.shards.clone(), source })?;
        for chunk in synthetic_samples(positions, 1).chunks(4096) {
            write_shard(&paths.shards, &ShardHeader::now(0, None), chunk)?;
        }
        let config = TrainConfig {
            batch_size,
            min_positions: batch_size,
            checkpoint_every: u64::MAX,
            log_every: u64::MAX,
            ..TrainConfig::default()
        };
        let (mut trainer, _) = Trainer::open(paths, net_config, config, device)?;
        trainer.refresh()?;
        trainer.train_step()?; // warm-up
        let fixed = trainer.assemble_batch();
        trainer.apply(&fixed)?;
        let (mut pipeline, mut raw, mut assembly) =
            (Duration::ZERO, Duration::ZERO, Duration::ZERO);
        let rounds = steps.div_ceil(10);
        for _ in 0..rounds {
            let t = Instant::now();
            for _ in 0..10 {
                trainer.apply(&fixed)?;
            }
            raw += t.elapsed();
            let t = Instant::now();
            for _ in 0..10 {
                trainer.train_step()?;
            }
            pipeline += t.elapsed();
            let t = Instant::now();
            for _ in 0..10 {
                drop(trainer.assemble_batch());
            }
            assembly += t.elapsed();
        }
        let samples = (rounds * 10 * batch_size as u64) as f64;
        let replay = trainer.replay();
        let pipeline_samples_per_s = samples / pipeline.as_secs_f64();
        let raw_samples_per_s = samples / raw.as_secs_f64();
        Ok(TrainBench {
            blocks: net_config.blocks,
            channels: net_config.channels,
            batch_size,
            steps: rounds * 10,
            pipeline_samples_per_s,
            raw_samples_per_s,
            ratio: pipeline_samples_per_s / raw_samples_per_s,
            assembly_samples_per_s: samples / assembly.as_secs_f64(),
            replay_bytes_per_position: replay.heap_bytes() as f64 / replay.held().max(1) as f64,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prints the figures: `cargo test --release --bin checkers-zero -- --ignored --nocapture
    /// training_pipeline`.
    #[test]
    #[ignore = "a measurement, not a check"]
    fn training_pipeline_against_raw_steps() {
        let figures = bench_train(&NetConfig::new(4, 32), 256, 40, 100_000, Device::Cpu).unwrap();
        println!("{}", serde_json::to_string_pretty(&figures).unwrap());
    }

    #[test]
    fn the_benchmark_runs() {
        let figures = bench_train(&NetConfig::new(2, 16), 16, 10, 500, Device::Cpu).unwrap();
        assert!(figures.ratio > 0.0 && figures.replay_bytes_per_position > 27.0, "{figures:?}");
    }
}
