//! Damaged data in a run directory: truncated, bit-flipped and foreign shards and training
//! states are reported by file name and skipped, and the run goes on from the last good state;
//! with no good state left, or a damaged best net, the run refuses to go on, naming the file.

use super::{arg, assert_no_panic, run_to_end, tiny_run};
use crate::helpers::sorted_files;
use std::path::Path;

/// `path`'s bytes, changed by `damage`, written to `to`.
fn damaged_copy(path: &Path, to: &Path, damage: impl Fn(&mut Vec<u8>)) {
    let mut bytes = std::fs::read(path).unwrap();
    damage(&mut bytes);
    std::fs::write(to, bytes).unwrap();
}

fn truncate(bytes: &mut Vec<u8>) {
    bytes.truncate(bytes.len() * 2 / 3);
}

#[expect(clippy::ptr_arg, reason = "one signature with `truncate`, which needs the `Vec`")]
fn flip_a_bit(bytes: &mut Vec<u8>) {
    let at = bytes.len() / 2;
    bytes[at] ^= 0x10;
}

#[test]
fn damaged_shards_and_states_are_named_skipped_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    tiny_run(&run, 16);
    let shard = sorted_files(&run.join("shards")).remove(0);
    let shards = run.join("shards");
    damaged_copy(&shard, &shards.join("9000000000000-1-truncated.shard"), truncate);
    damaged_copy(&shard, &shards.join("9000000000000-1-flipped.shard"), flip_a_bit);
    std::fs::write(
        shards.join("9000000000000-1-foreign.shard"),
        b"PK\x03\x04 a zip file named like a shard",
    )
    .unwrap();
    let states = sorted_files(&run.join("train"));
    let good = states.last().unwrap();
    let step: u64 =
        good.file_stem().unwrap().to_string_lossy().trim_start_matches("state-").parse().unwrap();
    damaged_copy(good, &run.join("train/state-9999999998.safetensors"), truncate);
    damaged_copy(good, &run.join("train/state-9999999999.safetensors"), flip_a_bit);

    let (ok, out, err) = run_to_end(&["run", "--run-dir", arg(&run), "--selfplay-games", "24"]);
    assert!(ok, "{out}{err}");
    assert_no_panic(&err);
    for name in [
        "truncated.shard",
        "flipped.shard",
        "foreign.shard",
        "state-9999999998",
        "state-9999999999",
    ] {
        assert!(
            err.lines().any(|l| l.starts_with("warning: ") && l.contains(name)),
            "{name} not reported:\n{err}"
        );
    }
    assert!(
        err.contains(&format!("resumed training at step {step} ")),
        "did not resume from the last good state:\n{err}"
    );
}

#[test]
fn a_run_whose_states_are_all_damaged_refuses_to_start_training_over() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    tiny_run(&run, 16);
    let states = sorted_files(&run.join("train"));
    for state in &states {
        damaged_copy(state, state, flip_a_bit);
    }
    let before: Vec<Vec<u8>> = states.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let (ok, _, err) = run_to_end(&["run", "--run-dir", arg(&run), "--selfplay-games", "24"]);
    assert!(!ok, "trained over damaged states:\n{err}");
    assert_no_panic(&err);
    let last = err.lines().last().unwrap();
    assert!(last.starts_with("error: ") && last.contains("no training state"), "{err}");
    for state in &states {
        assert!(
            err.contains(&*state.file_name().unwrap().to_string_lossy()),
            "{state:?} not named:\n{err}"
        );
    }
    let after: Vec<Vec<u8>> = states.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(
        before == after && sorted_files(&run.join("train")) == states,
        "the damaged states were touched"
    );
}

#[test]
fn a_damaged_best_net_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    tiny_run(&run, 16);
    let best = rundata::RunDir::existing(&run).unwrap().best_checkpoint().unwrap().unwrap();
    damaged_copy(&best, &best, flip_a_bit);
    let (ok, _, err) = run_to_end(&["selfplay", "--run-dir", arg(&run), "--games", "2"]);
    assert!(!ok);
    assert_no_panic(&err);
    let last = err.lines().last().unwrap();
    assert!(
        last.starts_with("error: ") && last.contains(&*best.file_name().unwrap().to_string_lossy()),
        "{err}"
    );
    // A damaged pointer too (of the old layout, which is still read).
    std::fs::remove_dir_all(run.join("best")).unwrap();
    std::fs::write(run.join("best.json"), "{\"checkpoint\": \"nets/").unwrap();
    let (ok, _, err) = run_to_end(&["run", "--run-dir", arg(&run)]);
    assert!(!ok && err.lines().last().unwrap().contains("best.json"), "{err}");
    assert_no_panic(&err);
}

/// A crash can cut a log line inside a character (a player such as `mcts:réseau:8`): one byte
/// that was not UTF-8 in a `--record` file stopped `match --resume` for good. Now the line is
/// skipped with one warning and the match goes on from the others.
#[test]
fn a_match_resumes_past_a_record_line_cut_inside_a_character() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.jsonl");
    let base = ["match", "alphabeta:1", "random", "--record", arg(&record)];
    let (ok, _, stderr) = run_to_end(&[&base[..], &["--games", "2"]].concat());
    assert!(ok, "{stderr}");
    let mut bytes = std::fs::read(&record).unwrap();
    bytes.extend_from_slice("{\"ballot\":\"x\",\"black\":\"mcts:ré".as_bytes());
    bytes.truncate(bytes.len() - 1); // inside the `é`
    bytes.push(b'\n');
    std::fs::write(&record, bytes).unwrap();
    let (ok, stdout, stderr) = run_to_end(&[&base[..], &["--games", "4", "--resume"]].concat());
    assert!(ok, "{stderr}");
    assert_no_panic(&stderr);
    assert!(stdout.contains("resuming: 2 of the 4 games are in"), "{stdout}\n{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("record.jsonl:3") && warnings[0].contains("UTF-8"), "{stderr}");
    let read = rundata::read_json_lines::<arena::ResultRecord>(&record).unwrap();
    assert_eq!((read.records.len(), read.skipped.len()), (4, 1));
}

/// The same cut in a run's own logs: `run` resumes past a line of `gates.jsonl`,
/// `games/results.jsonl` and `eval.jsonl` cut inside a character, each with one warning naming the
/// file and line however often the run rereads the log, and goes on gating and evaluating.
#[test]
fn a_run_resumes_past_log_lines_cut_inside_a_character() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    tiny_run(&run, 16);
    let logs = ["gates.jsonl", "games/results.jsonl", "eval.jsonl"];
    let mut cut_at = Vec::new();
    for log in logs {
        let mut bytes = std::fs::read(run.join(log)).unwrap_or_else(|e| panic!("{log}: {e}"));
        cut_at.push(bytes.iter().filter(|&&b| b == b'\n').count() + 1);
        bytes.extend_from_slice("{\"black\":\"mcts:ré".as_bytes());
        bytes.pop(); // inside the `é`
        std::fs::write(run.join(log), bytes).unwrap();
    }
    let gates_before = rundata::read_json_lines::<arena::GateRecord>(&run.join(logs[0])).unwrap();
    let (ok, out, err) = run_to_end(&["run", "--run-dir", arg(&run), "--selfplay-games", "32"]);
    assert!(ok, "{out}{err}");
    assert_no_panic(&err);
    for (log, line) in logs.iter().zip(&cut_at) {
        let at = format!("{log}:{line}: not a record of this file: not UTF-8 text");
        let warned = err.lines().filter(|l| l.starts_with("warning: skipped") && l.contains(&at));
        assert_eq!(warned.count(), 1, "{at} not reported once:\n{err}");
    }
    let gates = rundata::read_json_lines::<arena::GateRecord>(&run.join(logs[0])).unwrap();
    assert_eq!(gates.skipped.len(), 1, "the cut line is closed by the next append, and kept");
    assert!(gates.records.len() > gates_before.records.len(), "no gate after the cut:\n{out}");
    let evaluations = rundata::read_json_lines::<arena::EvalRecord>(&run.join(logs[2])).unwrap();
    assert_eq!(evaluations.skipped.len(), 1);
    let results = rundata::read_json_lines::<arena::ResultRecord>(&run.join(logs[1])).unwrap();
    assert_eq!(results.skipped.len(), 1);
}

/// A run folder that lost its `config.toml` was started anew from `configs/default.toml` (and
/// then told its training states did not fit); now it is refused, and nothing is written.
#[test]
fn a_run_folder_without_its_config_is_refused_not_started_anew() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir_all(run.join("shards")).unwrap();
    std::fs::write(run.join("shards/g-000001.shard"), b"CKZSHARD").unwrap();
    let (ok, _, err) = run_to_end(&["run", "--run-dir", arg(&run), "--selfplay-games", "2"]);
    assert!(!ok, "{err}");
    let line = super::bad_net::one_error_line(&err);
    assert!(line.contains("no config.toml") && line.contains("g-000001.shard"), "{err}");
    assert!(!run.join("config.toml").exists());
}

/// A best-net pointer whose checkpoint leaves the run folder (`../../etc/passwd`) was loaded as
/// the run's best net. Now the newest pointer naming it is passed over, with one warning, for the
/// sound one below it, and refused when it is the only one; the file it names is never read.
#[test]
fn a_best_net_pointer_leaving_the_run_is_passed_over_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = rundata::RunDir::create(dir.path().join("run")).unwrap();
    let net = crate::helpers::untrained_sparse_net(dir.path(), 100);
    std::fs::create_dir_all(run.nets_dir()).unwrap();
    std::fs::rename(net, run.nets_dir().join("step-0000000100.safetensors")).unwrap();
    let sound = rundata::BestNet {
        checkpoint: "nets/step-0000000100.safetensors".into(),
        step: 100,
        generation: 0,
        promoted_at: 0,
        promoted_by: None,
    };
    run.promote(&sound).unwrap();
    let planted =
        rundata::BestNet { checkpoint: "../../etc/passwd".into(), generation: 1, ..sound.clone() };
    let planted_file = run.root().join("best/gen-000001.json");
    std::fs::write(&planted_file, serde_json::to_vec(&planted).unwrap()).unwrap();
    let spec = format!("mcts:{}:2", arg(run.root()));
    let bestmove = ["bestmove", &spec, "--fen", "B:W21,22,23:B1,2,3"];
    let passed_over = |err: &str| {
        let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning")).collect();
        assert_eq!(warnings.len(), 1, "{err}");
        assert!(
            warnings[0].contains("gen-000001.json")
                && warnings[0].contains(
                    "its checkpoint `../../etc/passwd` is not a path inside the run folder"
                ),
            "{err}"
        );
    };
    let (ok, out, err) = run_to_end(&bestmove);
    assert!(ok && out.starts_with("move "), "{out}{err}");
    assert_no_panic(&err);
    passed_over(&err);

    std::fs::remove_file(run.root().join("best/gen-000000.json")).unwrap();
    let (ok, out, err) = run_to_end(&bestmove);
    assert!(!ok, "{out}{err}");
    passed_over(&err);
    let line = super::bad_net::one_error_line(&err);
    assert!(line.contains("has no best net yet (no valid pointer in best/)"), "{err}");
    assert!(!err.contains("passwd:") && !err.contains("header"), "/etc/passwd was read: {err}");
}
