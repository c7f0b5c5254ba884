//! The train crate with libtorch: training on generated trajectories, exact resume, damaged
//! checkpoints, non-finite losses, TensorBoard files read by TensorBoard, the benchmark, averaged
//! weights and a net widened at resume.

mod resume;
pub mod tensorboard;
mod training;
mod widen;

use model::NetConfig;
use runconfig::TrainConfig;
use rundata::CachedRun;
use shard::{write_shard, ShardHeader};
use std::path::Path;
use tch::Device;
use train::synthetic::synthetic_samples;
use train::{TrainPaths, Trainer};

/// The trainer's folders under `root`, with `positions` generated samples written as shards
/// (each sample linked to the next one of the other side in its shard, as the opponent's reply).
fn run_with_shards(root: &Path, positions: usize) -> TrainPaths {
    let paths = TrainPaths {
        shards: root.join("shards"),
        states: root.join("train"),
        nets: root.join("nets"),
        tb: root.join("tb/train"),
    };
    std::fs::create_dir_all(&paths.shards).unwrap();
    for (i, chunk) in synthetic_samples(positions, 5).chunks_mut(500).enumerate() {
        train::synthetic::link_replies(chunk);
        write_shard(&paths.shards, &ShardHeader::now(i as u64, None), chunk).unwrap();
    }
    paths
}

fn small_net() -> NetConfig {
    NetConfig::new(2, 16)
}

/// A quick config: small batches, no warm-up, a checkpoint every `checkpoint_every` steps.
fn quick_config(checkpoint_every: u64) -> TrainConfig {
    TrainConfig {
        batch_size: 32,
        min_positions: 32,
        warmup_steps: 0,
        learning_rate: 0.02,
        checkpoint_every,
        log_every: 5,
        seed: 9,
        ..TrainConfig::default()
    }
}

fn open(paths: &TrainPaths, config: TrainConfig) -> (Trainer, train::Opened) {
    Trainer::open(paths.clone(), &small_net(), config, Device::Cpu).unwrap()
}

/// Trains as a run's trainer does (`run`'s follow loop, every shard of the run at `root` already
/// in): up to step `limit` or as far as the data pays for, with a checkpoint each time one is due
/// and one at the end. Returns the steps trained.
fn train_to(root: &Path, trainer: &mut Trainer, limit: u64) -> u64 {
    let cached = CachedRun::open(root.to_str().unwrap(), None, "trainer").unwrap();
    let start = trainer.step();
    let until = run::train::follow::Until {
        limit,
        stop: &|| false,
        data_ended: &|| true,
        trained: &|_| {},
        budget_spent: &|| None,
    };
    run::train::follow::follow(&cached, trainer, &until).unwrap();
    trainer.step() - start
}
