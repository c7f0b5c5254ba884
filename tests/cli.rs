//! Running the real `checkers-zero` binary from the tests: its output, success, and no panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary, run from the repository root (where `configs/` is).
pub fn checkers_zero() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_checkers-zero"));
    command.current_dir(env!("CARGO_MANIFEST_DIR")).env("RUST_BACKTRACE", "1");
    command
}

/// Runs the binary to the end; returns its output (stdout and stderr as text) and whether it succeeded.
pub fn run_to_end(args: &[&str]) -> (bool, String, String) {
    let Output { status, stdout, stderr } =
        checkers_zero().args(args).output().expect("the binary runs");
    (
        status.success(),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

/// Runs the binary and requires success.
pub fn succeed(args: &[&str]) -> String {
    let (ok, out, err) = run_to_end(args);
    assert!(ok, "checkers-zero {args:?} failed:\n{out}{err}");
    assert_no_panic(&err);
    format!("{out}{err}")
}

/// A failure must be a message, not a crash: no panic, no backtrace.
pub fn assert_no_panic(stderr: &str) {
    assert!(
        !stderr.contains("panicked") && !stderr.contains("stack backtrace"),
        "a panic:\n{stderr}"
    );
}

/// `path` as a command-line argument.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}

/// The entries of `dir`, sorted (none when it does not exist).
pub fn sorted_files(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    paths.sort();
    paths
}

#[test]
fn openmp_threads_sleep_when_idle_unless_the_user_chose_a_policy() {
    // libgomp prints the settings it read at start-up when asked to.
    let policy_seen = |policy: Option<&str>| {
        let mut command = checkers_zero();
        command.args(["perft", "1"]).env("OMP_DISPLAY_ENV", "TRUE").env_remove("OMP_WAIT_POLICY");
        if let Some(policy) = policy {
            command.env("OMP_WAIT_POLICY", policy);
        }
        let out = command.output().expect("the binary runs");
        let text = String::from_utf8_lossy(&out.stderr).into_owned();
        text.lines().find(|l| l.contains("OMP_WAIT_POLICY")).map(str::trim).map(str::to_string)
    };
    assert_eq!(policy_seen(None).as_deref(), Some("OMP_WAIT_POLICY = 'PASSIVE'"));
    assert_eq!(policy_seen(Some("ACTIVE")).as_deref(), Some("OMP_WAIT_POLICY = 'ACTIVE'"));
}
