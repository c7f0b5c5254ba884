//! Self-play with value targets from the alpha-beta engine (`selfplay.value_search_nodes`): every
//! decision with a winning move is written with the won value the engine proves, which the few
//! visits of the tiny config's MCTS do not give.

use crate::helpers::{arg, shipped_config, succeed, write_config};
use shard::{list_shards, read_shard, Sample};
use std::path::Path;

/// The samples of 100 self-play games of `configs/tiny-sparse.toml`, played to their end, with
/// `nodes` alpha-beta nodes a decision for the value target.
fn self_play_samples(dir: &Path, nodes: u64) -> Vec<Sample> {
    let mut config = shipped_config("tiny-sparse.toml");
    config.selfplay.draw.max_plies = 300;
    config.selfplay.mcts.resignation.enabled = false;
    config.selfplay.value_search_nodes = nodes;
    let config_file = write_config(dir, &format!("config-{nodes}.toml"), &config);
    let run = dir.join(format!("run-{nodes}"));
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
