//! A full disk: the run gets write errors (EFBIG under a file-size limit, `ulimit -f`, with SIGXFSZ
//! ignored) and must stop with one clear message, leaving its last good state untouched and no
//! temporary file behind; without the limit it then resumes.

use super::audit::audit;
use super::{arg, assert_no_panic, tiny_run};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Every file of the run's last good state (training states, nets, best-net pointer) and its bytes.
fn state_files(run: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for dir in ["train", "nets", ".", "best"] {
        for entry in std::fs::read_dir(run.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() && path.extension().is_some_and(|e| e == "safetensors")
                || path.ends_with("best.json")
                || dir == "best"
            {
                files.insert(path.display().to_string(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// Runs the binary with every file it writes limited to `kib` KiB.
fn run_with_file_limit(kib: u64, args: &[&str]) -> (bool, String) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f {kib}; exec \"$@\""))
        .arg("bash")
        .arg(env!("CARGO_BIN_EXE_checkers-zero"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_full_disk_stops_the_run_with_a_message_and_keeps_the_last_good_state() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    tiny_run(&run_dir, 16);
    // 1 KiB: not even a shard fits. 500 KiB: shards and nets do, a training state does not.
    for (kib, place) in [(1, "shards"), (500, "train")] {
        let before = state_files(&run_dir);
        let (ok, stderr) = run_with_file_limit(
            kib,
            &["run", "--run-dir", arg(&run_dir), "--selfplay-games", "40"],
        );
        assert!(!ok, "the run went on with a full disk:\n{stderr}");
        assert_no_panic(&stderr);
        let last = stderr.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("error: ") && last.contains("File too large") && last.contains(place),
            "{kib} KiB: {stderr}"
        );
        let after = state_files(&run_dir);
        for (path, bytes) in &before {
            assert!(after.get(path) == Some(bytes), "{kib} KiB: {path} changed or vanished");
        }
        let new_states: Vec<_> =
            after.keys().filter(|p| !before.contains_key(*p) && p.contains("/train/")).collect();
        assert!(new_states.is_empty(), "{kib} KiB: new states {new_states:?}");
        let audit = audit(&run_dir);
        audit.assert_clean();
        assert_eq!(audit.temporaries, 0, "{kib} KiB: temporary files left");
        println!("full disk ({kib} KiB per file): {last}");
    }
    let out = super::succeed(&["run", "--run-dir", arg(&run_dir), "--selfplay-games", "40"]);
    assert!(out.contains("resumed training at step") && out.contains("budget reached"), "{out}");
}
