//! Self-play takes up a promoted net while its batch of games is still being played: a
//! `selfplay --follow` process in the middle of one long batch says so within seconds of the
//! promotion, and the shards it writes from then on record the new generation; with its workers'
//! own nets, and with an inference server they share.

use crate::helpers::{arg, checkers_zero};
use runconfig::ServerConfig;
use rundata::{BestNet, Promotion, RunDir};
use shard::{list_shards, read_shard};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Waits up to `limit` for `found()` to give a value.
fn wait_for<T>(limit: Duration, what: &str, mut found: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(value) = found() {
            return value;
        }
        assert!(start.elapsed() < limit, "waited {limit:?} for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The shards of `run`: when each was written (ms) and the generation it records.
fn shard_generations(run: &Path) -> Vec<(u64, Option<u32>)> {
    let shards = list_shards(&run.join("shards")).unwrap();
    let header = |shard: &PathBuf| read_shard(shard).unwrap().header;
    shards.iter().map(header).map(|h| (h.created_unix_ms, h.generation)).collect()
}

#[test]
fn self_play_takes_up_a_promotion_in_the_middle_of_its_batch() {
    takes_up_a_promotion_in_the_middle_of_a_batch(ServerConfig::default(), &[]);
}

#[test]
fn self_play_through_an_inference_server_takes_up_a_promotion_in_the_middle_of_its_batch() {
    let server = ServerConfig { threads: 2, max_wait_us: 2000, ..ServerConfig::default() };
    takes_up_a_promotion_in_the_middle_of_a_batch(server, &["--workers", "3"]);
}

/// `configs/tiny.toml` with `server` as its inference server, and `extra_args` for `selfplay`.
fn takes_up_a_promotion_in_the_middle_of_a_batch(server: ServerConfig, extra_args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let mut tiny = crate::helpers::shipped_config("tiny.toml");
    tiny.selfplay.server = server;
    let config = crate::helpers::write_config(dir.path(), "config.toml", &tiny);
    // One batch that never ends by itself: every net change below happens inside it.
    let mut child = checkers_zero()
        .args(["selfplay", "--config", arg(&config), "--run-dir", arg(&run_dir)])
        .args(["--follow", "--games", "1000000"])
        .args(extra_args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines_tx, lines) = mpsc::channel();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        stdout.lines().map_while(Result::ok).try_for_each(|l| lines_tx.send(l))
    });

    // Generation 0 plays first.
    let limit = Duration::from_secs(120);
    wait_for(limit, "a shard of generation 0", || {
        shard_generations(&run_dir).iter().any(|(_, g)| *g == Some(0)).then_some(())
    });
    let run = RunDir::existing(&run_dir).unwrap();
    let first = run.best().unwrap().unwrap();
    let promoted = BestNet {
        checkpoint: PathBuf::from("nets/promoted.safetensors"),
        step: first.step + 1,
        generation: 1,
        promoted_at: first.promoted_at,
        promoted_by: None,
    };
    std::fs::copy(run_dir.join(&first.checkpoint), run_dir.join(&promoted.checkpoint)).unwrap();
    let promoted_at = Instant::now();
    assert!(matches!(run.promote(&promoted).unwrap(), Promotion::Promoted(_)));

    let picked_up = wait_for(Duration::from_secs(30), "the promotion to be taken up", || {
        lines.try_iter().find(|line| line.contains("picked up generation 1"))
    });
    let latency = promoted_at.elapsed();
    assert!(picked_up.contains("nets/promoted.safetensors"), "{picked_up}");
    wait_for(limit, "a shard of generation 1", || {
        shard_generations(&run_dir).iter().any(|(_, g)| *g == Some(1)).then_some(())
    });
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Taken up as games finished, within a few looks at the pointer (every 2 s).
    assert!(latency < Duration::from_secs(20), "taken up {latency:?} after the promotion");
    // Once a shard of generation 1 is written, no later one goes back to generation 0.
    let shards = shard_generations(&run_dir);
    let written = |generation| shards.iter().filter(move |(_, g)| *g == Some(generation));
    let first_new = written(1).map(|(ms, _)| *ms).min().unwrap();
    assert!(written(0).all(|(ms, _)| *ms <= first_new), "{shards:?}");
}
