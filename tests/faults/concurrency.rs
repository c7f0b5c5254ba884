//! Concurrency: three `selfplay` processes start at once on one new run directory. None clobbers
//! another: every shard reads back, each process wrote exactly the games it was asked for, under
//! names of its own, and the run's first net and config were created once, whole.

use super::audit::audit;
use super::{arg, assert_no_panic, checkers_zero};
use std::collections::BTreeMap;

const PROCESSES: usize = 3;
const GAMES: usize = 6;

#[test]
fn three_selfplay_processes_share_one_run_directory_without_clobbering() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let games = GAMES.to_string();
    let children: Vec<_> = (0..PROCESSES)
        .map(|_| {
            checkers_zero()
                .args([
                    "selfplay",
                    "--config",
                    "configs/tiny.toml",
                    "--run-dir",
                    arg(&run_dir),
                    "--games",
                    &games,
                ])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut per_process = BTreeMap::new();
    for child in children {
        let pid = child.id().to_string();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert_no_panic(&stderr);
        per_process.insert(pid, 0);
    }
    let audit = audit(&run_dir);
    audit.assert_clean();
    assert_eq!(audit.temporaries, 0);
    // One game per shard in the tiny config; a shard's name carries its writer's pid.
    assert_eq!(audit.shards.len(), PROCESSES * GAMES);
    for name in &audit.shards {
        let pid = name.split('-').nth(1).unwrap();
        *per_process
            .get_mut(pid)
            .unwrap_or_else(|| panic!("{name}: written by no process of the test")) += 1;
    }
    assert!(per_process.values().all(|&n| n == GAMES), "games per process: {per_process:?}");
    let pdn = std::fs::read_dir(run_dir.join("games"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "pdn"))
        .count();
    assert_eq!(pdn, PROCESSES * GAMES);
    println!(
        "concurrency: {PROCESSES} processes x {GAMES} games: {} shards, all readable, names unique",
        audit.shards.len()
    );
}
