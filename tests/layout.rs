//! A run directory of the old layout, whose best-net pointer is the single `best.json`, still
//! loads: self-play plays its net, and nothing rewrites the pointer until the next promotion,
//! which starts the per-generation pointers of `best/`.

use crate::helpers::{arg, succeed};
use rundata::RunDir;

#[test]
fn a_run_of_the_old_layout_plays_with_the_net_its_best_json_names() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("run");
    let games = ["--config", "configs/tiny.toml", "--run-dir", arg(&root), "--games", "2"];
    succeed(&[&["selfplay"][..], &games].concat());
    let run = RunDir::existing(&root).unwrap();
    let best = run.best().unwrap().expect("the first net");
    // The old layout: the same pointer as best.json, without the folder of pointers.
    let old = rundata::BestNet { promoted_by: None, ..best };
    std::fs::remove_dir_all(root.join("best")).unwrap();
    std::fs::write(run.best_file(), serde_json::to_vec_pretty(&old).unwrap()).unwrap();
    let shards = || std::fs::read_dir(run.shards_dir()).unwrap().count();
    let before = shards();
    succeed(&["selfplay", "--run-dir", arg(&root), "--games", "2"]);
    assert_eq!(shards(), before + 2, "one shard per game in the tiny config");
    assert_eq!(run.best().unwrap(), Some(old));
    assert!(!root.join("best").exists(), "the pointer was rewritten without a promotion");
}
