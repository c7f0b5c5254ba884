//! `run.mode = "concurrent"` (self-play, training and gating at once): the tiny run writes every
//! artifact the sequential run writes and resumes; killed at random moments it resumes and loses
//! nothing; a role that fails (a NaN net in self-play, a NaN candidate in the gate) stops the whole
//! run with one line and loses nothing.

use crate::faults::audit::audit;
use crate::faults::bad_net::{
    assert_kept, nan_best_net_stops_the_run, one_error_line, write_nan_net,
};
use crate::faults::crash::{killed_at_random_moments_resumes_and_loses_nothing, KillClock};
use crate::helpers::{arg, run_to_end, shipped_config, succeed, write_config};
use runconfig::RunMode;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The tiny config in the concurrent mode, written into `dir`.
fn tiny_concurrent(dir: &Path) -> PathBuf {
    let mut tiny = shipped_config("tiny.toml");
    assert_eq!(tiny.run.mode, RunMode::Sequential, "configs/tiny.toml is concurrent now");
    tiny.run.mode = RunMode::Concurrent;
    write_config(dir, "tiny-concurrent.toml", &tiny)
}

#[test]
fn a_concurrent_tiny_run_writes_every_artifact_resumes_and_rates_its_nets() {
    let dir = tempfile::tempdir().unwrap();
    let config = tiny_concurrent(dir.path());
    crate::run::writes_every_artifact_and_resumes(arg(&config));
    crate::run::rates_its_nets_against_the_fixed_anchor(arg(&config));
}

#[test]
fn a_concurrent_run_killed_at_random_moments_resumes_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let config = tiny_concurrent(dir.path());
    let clock = KillClock::FirstLine;
    killed_at_random_moments_resumes_and_loses_nothing(arg(&config), clock);
}

/// A new concurrent tiny run of 8 games in `dir`/run.
fn tiny_concurrent_run(dir: &Path) -> PathBuf {
    let run = dir.join("run");
    let config = tiny_concurrent(dir);
    succeed(&["run", "--config", arg(&config), "--run-dir", arg(&run), "--selfplay-games", "8"]);
    run
}

#[test]
fn a_nan_best_net_stops_a_concurrent_run_with_one_line_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    nan_best_net_stops_the_run(&tiny_concurrent_run(dir.path()));
}

#[test]
fn a_nan_candidate_in_the_gate_stops_self_play_and_training_too() {
    let dir = tempfile::tempdir().unwrap();
    let run = tiny_concurrent_run(dir.path());
    let before = audit(&run);
    // The newest candidate, so the gate plays it first, while self-play and the trainer work on.
    write_nan_net(&train::candidate_path(&run.join("nets"), 999_999));
    let started = Instant::now();
    // A budget self-play would spend in a minute: only the gate's failure stops it sooner.
    let args = ["run", "--run-dir", arg(&run), "--selfplay-games", "100000", "--wall-minutes", "1"];
    let (ok, out, err) = run_to_end(&args);
    let took = started.elapsed();
    assert!(!ok, "the run went on with a NaN candidate:\n{out}{err}");
    let error = one_error_line(&err);
    assert!(error.starts_with("error: gate: ") && error.contains("not a finite"), "{err}");
    assert!(took < Duration::from_secs(40), "the other roles went on for {took:?}:\n{out}{err}");
    assert!(!out.contains("budget reached"), "{out}");
    assert_kept(&before, &audit(&run));
}

#[test]
fn a_run_resumes_in_the_mode_its_config_says() {
    let dir = tempfile::tempdir().unwrap();
    let run = tiny_concurrent_run(dir.path());
    let resume = |config: &Path, games: &str| {
        let args = ["run", "--config", arg(config), "--run-dir", arg(&run)];
        succeed(&[&args[..], &["--selfplay-games", games]].concat())
    };
    let sequential = resume(Path::new("configs/tiny.toml"), "12");
    assert!(
        sequential.contains("generation") && !sequential.contains("[selfplay]"),
        "{sequential}"
    );
    let concurrent = resume(&tiny_concurrent(dir.path()), "16");
    assert!(concurrent.contains("[selfplay] generation"), "{concurrent}");
    assert_eq!(audit(&run).counted_games, 16);
    // Either mode's training line ends with the learning rate: the default peak of 0.02, or less
    // during the warm-up.
    for (log, line) in [(&sequential, "  trained to step "), (&concurrent, "[train] replay: ")] {
        let rate = log
            .lines()
            .filter(|l| l.starts_with(line))
            .filter_map(|l| l.split("; learning rate ").nth(1)?.strip_suffix(')')?.parse().ok())
            .next_back();
        assert!(rate.is_some_and(|r: f64| r > 0.0 && r <= 0.02), "{log}");
    }
}
