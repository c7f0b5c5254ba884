//! Untrusted files: a checkpoint is never unpickled (a pickle that would run a command is
//! refused and the command never runs), and files claiming absurd sizes are refused before
//! anything of that size is allocated or read.

use model::{CheckpointError, ModelError};
use shard::{read_shard, ShardError, MAX_SHARD_BYTES};
use std::path::Path;
use tch::Device;

fn load_err(path: &Path) -> ModelError {
    model::checkpoint::load(path, None, Device::Cpu).expect_err("refused")
}

#[test]
fn a_pickle_that_would_run_a_command_is_refused_and_never_runs() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("pwned");
    // Protocol-0 pickle of os.system("touch MARKER"), as in a malicious PyTorch .pt file.
    let pickle = format!("cos\nsystem\n(S'touch {}'\ntR.", marker.display());
    let path = dir.path().join("net.safetensors");
    std::fs::write(&path, pickle).unwrap();
    assert!(matches!(
        load_err(&path),
        ModelError::Checkpoint(CheckpointError::NotACheckpoint { .. })
    ));
    let (ok, _, err) = super::run_to_end(&[
        "export",
        super::arg(&path),
        "--format",
        "onnx",
        "--out",
        super::arg(&dir.path().join("x.onnx")),
    ]);
    assert!(!ok && err.contains("net.safetensors"), "{err}");
    super::assert_no_panic(&err);
    assert!(!marker.exists(), "the pickle ran");
}

#[test]
fn a_huge_sparse_checkpoint_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.safetensors");
    let header = br#"{"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}"#;
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header);
    std::fs::write(&path, bytes).unwrap();
    // A terabyte on paper, nothing on disk: reading it whole would exhaust memory.
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(1 << 40).unwrap();
    let err = load_err(&path);
    assert!(
        matches!(err, ModelError::Checkpoint(CheckpointError::Damaged { .. }))
            && err.to_string().contains("huge.safetensors"),
        "{err}"
    );
}

#[test]
fn a_shard_larger_than_the_limit_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.shard");
    std::fs::write(&path, b"CKZSHARD").unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(MAX_SHARD_BYTES + 1)
        .unwrap();
    let err = read_shard(&path).unwrap_err();
    assert!(
        matches!(err, ShardError::TooLarge { .. }) && err.to_string().contains("huge.shard"),
        "{err}"
    );
}
