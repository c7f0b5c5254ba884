//! Faults, bad input and untrusted files (issue 10): the real binary is killed, starved of disk,
//! fed damaged files and bad arguments, and run three times at once on one run directory; after
//! each, [`audit`] checks that every file of the run directory is whole or ignored by readers.

pub mod audit;
mod bad_input;
pub mod bad_net;
mod concurrency;
pub mod crash;
mod damaged;
mod full_disk;
mod hostile_page;
mod serve_memory;
mod untrusted;

use crate::helpers::{arg, assert_no_panic, checkers_zero, run_to_end, succeed};
use std::path::Path;

/// A new run of the tiny config with `games` self-play games (and training), in `run_dir`.
fn tiny_run(run_dir: &Path, games: u64) -> String {
    succeed(&[
        "run",
        "--config",
        "configs/tiny.toml",
        "--run-dir",
        arg(run_dir),
        "--selfplay-games",
        &games.to_string(),
    ])
}
