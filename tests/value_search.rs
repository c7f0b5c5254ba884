//! Self-play's search values as value targets. From the alpha-beta engine
//! (`selfplay.value_search_nodes`): every decision with a winning move is written with the won
//! value the engine proves, which the few visits of the tiny config's MCTS do not give. As
//! λ-returns over the game (`selfplay.value_lambda`): at λ = 1 every decision's is its result.

use crate::helpers::{arg, shipped_config, succeed, write_config};
use runconfig::SelfPlayConfig;
use shard::{list_shards, read_shard, Sample};
use std::path::Path;

/// The samples of 100 self-play games of `configs/tiny-sparse.toml`, played to their end, with
/// `nodes` alpha-beta nodes a decision for the value target.
fn self_play_samples(dir: &Path, nodes: u64) -> Vec<Sample> {
    self_play_samples_with(dir, &format!("nodes-{nodes}"), |selfplay| {
        selfplay.value_search_nodes = nodes;
    })
}

/// The samples of 100 self-play games of `configs/tiny-sparse.toml`, played to their end, with
/// `edit` made to its `[selfplay]` section; `name` names the run's files in `dir`.
fn self_play_samples_with(
    dir: &Path,
    name: &str,
    edit: impl FnOnce(&mut SelfPlayConfig),
) -> Vec<Sample> {
    let mut config = shipped_config("tiny-sparse.toml");
    config.selfplay.draw.max_plies = 300;
    config.selfplay.mcts.resignation.enabled = false;
    edit(&mut config.selfplay);
    let config_file = write_config(dir, &format!("config-{name}.toml"), &config);
    let run = dir.join(format!("run-{name}"));
    succeed(&["selfplay", "--config", arg(&config_file), "--run-dir", arg(&run), "--games", "100"]);
    let shards = list_shards(&run.join("shards")).unwrap();
    let records = shards.iter().map(|shard| read_shard(shard).unwrap().records);
    records.flat_map(|records| records.iter().map(|r| r.to_sample()).collect::<Vec<_>>()).collect()
}

/// The search values of the decisions at the start of a move whose mover then wins at once.
fn values_before_a_win(samples: &[Sample]) -> Vec<f32> {
    samples
        .iter()
        .filter(|s| s.observation.moving_piece.is_none() && s.plies_to_end == 1 && s.result == 1)
        .map(|s| s.search_value)
        .collect()
}

#[test]
fn self_play_with_value_search_writes_the_values_the_engine_proves() {
    let dir = tempfile::tempdir().unwrap();
    let searched = values_before_a_win(&self_play_samples(dir.path(), 400));
    assert!(!searched.is_empty(), "no game was won by a move chosen among several");
    assert!(searched.iter().all(|&v| v == 1.0), "{searched:?}");
    let rooted = values_before_a_win(&self_play_samples(dir.path(), 0));
    assert!(rooted.iter().any(|&v| v < 1.0), "{rooted:?}");
}

#[test]
fn self_play_at_lambda_one_writes_each_result_as_the_search_value() {
    let dir = tempfile::tempdir().unwrap();
    let samples = self_play_samples_with(dir.path(), "lambda-1", |selfplay| {
        selfplay.value_lambda = 1.0;
    });
    assert!(samples.iter().all(|s| s.search_value == f32::from(s.result)));
    assert!(samples.iter().any(|s| s.result != 0), "every game was drawn");
}
