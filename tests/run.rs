//! End to end: `checkers-zero run` on the tiny config produces every artifact of a run, valid,
//! and a second call resumes the run instead of starting over.

use selfplay::run_dir::RunDir;
use selfplay::shard::{list_shards, read_shard};
use std::path::Path;
use std::process::Command;

fn checkers_zero(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_checkers-zero"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "checkers-zero {args:?} failed:\n{text}");
    text
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn tiny_run_writes_every_artifact_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let run_arg = run_dir.to_str().unwrap();
    checkers_zero(&["run", "--config", "configs/tiny.toml", "--run-dir", run_arg]);

    let run = RunDir::existing(&run_dir).unwrap();
    let shards = list_shards(&run.shards_dir()).unwrap();
    assert!(!shards.is_empty(), "no shards");
    for shard in &shards {
        assert!(!read_shard(shard).unwrap().records.is_empty());
    }
    let candidates: Vec<String> = files_in(&run.nets_dir()).into_iter().filter(|n| n != "step-0000000000.safetensors").collect();
    assert!(!candidates.is_empty(), "no candidate net in {:?}", run.nets_dir());
    let gates = std::fs::read_to_string(run.gates_file()).unwrap();
    let record: arena::GateRecord = serde_json::from_str(gates.lines().next().unwrap()).unwrap();
    assert!(record.games > 0);
    assert!(files_in(&run.tb_dir().join("train")).iter().any(|n| n.contains("tfevents")), "no TensorBoard events");
    let best = run.best_checkpoint().unwrap().expect("a best net");
    model::checkpoint::load(&best, None, tch::Device::Cpu).expect("the best net loads");
    assert!(run.config_file().exists());

    // The budget is spent: the same command resumes, finds nothing left to do, and keeps everything.
    let again = checkers_zero(&["run", "--run-dir", run_arg]);
    assert!(again.contains("budget reached"), "{again}");
    assert_eq!(list_shards(&run.shards_dir()).unwrap(), shards);

    // A bigger budget goes on from where the run was.
    let more = checkers_zero(&["run", "--run-dir", run_arg, "--selfplay-games", "24"]);
    assert!(more.contains("resumed training at step"), "{more}");
    assert!(list_shards(&run.shards_dir()).unwrap().len() > shards.len());
    let ladder = checkers_zero(&["ladder", run_arg]);
    assert!(ladder.contains("Elo"), "{ladder}");
}

#[test]
fn a_different_config_for_an_existing_run_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run_arg = dir.path().join("run");
    let run_arg = run_arg.to_str().unwrap();
    checkers_zero(&["selfplay", "--config", "configs/tiny.toml", "--run-dir", run_arg, "--games", "1"]);
    let out = Command::new(env!("CARGO_BIN_EXE_checkers-zero"))
        .args(["run", "--config", "configs/default.toml", "--run-dir", run_arg])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("different config"), "{err}");
}
