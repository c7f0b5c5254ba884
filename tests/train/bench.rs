//! The training benchmark (ignored by default: `cargo test --release --test integration
//! train::bench -- --ignored --nocapture` prints the figures).

use super::*;
use train::bench::bench_train;

#[test]
#[ignore]
fn training_pipeline_against_raw_steps() {
    let figures = bench_train(&NetConfig::new(4, 32), 256, 40, 100_000, Device::Cpu).unwrap();
    println!("{}", serde_json::to_string_pretty(&figures).unwrap());
}

#[test]
fn the_benchmark_runs() {
    let figures = bench_train(&small_net(), 16, 10, 500, Device::Cpu).unwrap();
    assert!(figures.ratio > 0.0 && figures.replay_bytes_per_position > 27.0, "{figures:?}");
}
