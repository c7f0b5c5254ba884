//! Faults, bad input and untrusted files (issue 10): the real binary is killed, starved of disk,
//! fed damaged files and bad arguments, and run three times at once on one run directory; after
//! each, [`audit`] checks that every file of the run directory is whole or ignored by readers.

mod audit;
mod bad_input;
mod concurrency;
mod crash;
mod damaged;
mod full_disk;
mod untrusted;

use std::path::Path;
use std::process::{Command, Output};

/// The binary, run from the repository root (where `configs/` is).
fn checkers_zero() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_checkers-zero"));
    command.current_dir(env!("CARGO_MANIFEST_DIR")).env("RUST_BACKTRACE", "1");
    command
}

/// Runs the binary to the end; returns its output (stdout and stderr as text) and whether it succeeded.
fn run_to_end(args: &[&str]) -> (bool, String, String) {
    let Output { status, stdout, stderr } = checkers_zero().args(args).output().expect("the binary runs");
    (status.success(), String::from_utf8_lossy(&stdout).into_owned(), String::from_utf8_lossy(&stderr).into_owned())
}

/// Runs the binary and requires success.
fn succeed(args: &[&str]) -> String {
    let (ok, out, err) = run_to_end(args);
    assert!(ok, "checkers-zero {args:?} failed:\n{out}{err}");
    assert_no_panic(&err);
    format!("{out}{err}")
}

/// A failure must be a message, not a crash: no panic, no backtrace.
fn assert_no_panic(stderr: &str) {
    assert!(!stderr.contains("panicked") && !stderr.contains("stack backtrace"), "a panic:\n{stderr}");
}

/// `path` as a command-line argument.
fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}

/// A new run of the tiny config with `games` self-play games (and training), in `run_dir`.
fn tiny_run(run_dir: &Path, games: u64) -> String {
    succeed(&["run", "--config", "configs/tiny.toml", "--run-dir", arg(run_dir), "--selfplay-games", &games.to_string()])
}
