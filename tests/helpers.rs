//! What every integration test module shares: running the real `checkers-zero` binary (its
//! output, success, and no panic), the Python with the test packages, paths as arguments, and the
//! shipped configs as values to change and write.

use runconfig::RunConfig;
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

/// The Python with the test packages (`CHECKERS_ZERO_PYTHON`, which `make test` sets up). A test
/// that needs it fails without it: it never passes by skipping.
pub fn python() -> String {
    std::env::var("CHECKERS_ZERO_PYTHON").expect(
        "CHECKERS_ZERO_PYTHON is not set: run the tests with `make test` (scripts/test installs \
         the Python packages and sets it), or point it at a Python with numpy, onnx, onnxruntime, \
         tensorboard and pydraughts",
    )
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

/// The shipped config `configs/NAME`, read and checked.
pub fn shipped_config(name: &str) -> RunConfig {
    RunConfig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs").join(name))
        .unwrap_or_else(|e| panic!("configs/{name}: {e:#}"))
}

/// Writes `config` as `dir/NAME` and returns the path, for `--config`.
pub fn write_config(dir: &Path, name: &str, config: &RunConfig) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, config.to_toml()).unwrap();
    path
}
