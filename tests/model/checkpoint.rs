//! Checkpoints: exact round trip with extras, and every kind of damaged file refused with a clear error.

use super::{forward, positions, small_config, warmed_net};
use model::checkpoint::{load, save, MAX_HEADER_BYTES};
use model::{CheckpointError, Extras, ModelError, NetConfig};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tch::{Device, Kind, Tensor};

fn saved_checkpoint(dir: &Path) -> PathBuf {
    let path = dir.join("net.safetensors");
    save(&path, &warmed_net(&small_config()), 1234, Some("parent.safetensors"), &Extras::default())
        .unwrap();
    path
}

fn load_err(path: &Path) -> ModelError {
    let err = load(path, None, Device::Cpu).expect_err("a damaged file must not load");
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "the error names the file: {err}"
    );
    err
}

#[test]
fn save_reload_gives_bit_identical_outputs_and_keeps_extras() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ckpt.safetensors");
    let net = warmed_net(&small_config());
    let mut extras = Extras::default();
    extras.meta.insert("optimizer".into(), "sgd".into());
    extras.tensors.insert(
        "momentum/stem.conv.weight".into(),
        Tensor::randn([16, 10, 3, 3], (Kind::Float, Device::Cpu)),
    );
    extras.tensors.insert("rng".into(), Tensor::from_slice(&[1i64, -2, 3]));
    extras.tensors.insert("scale".into(), Tensor::from_slice(&[0.5f64]).to_kind(Kind::BFloat16));
    let written = save(&path, &net, 42, Some("gen0.safetensors"), &extras).unwrap();

    let ckpt = load(&path, Some(&small_config()), Device::Cpu).unwrap();
    assert_eq!(ckpt.meta, written);
    assert_eq!((ckpt.meta.step, ckpt.meta.parent.as_deref()), (42, Some("gen0.safetensors")));
    let (_, xs) = positions(50);
    assert!(forward(&net, &xs).equal(&forward(&ckpt.net, &xs)), "outputs differ after reload");
    for (name, var) in net.var_store().variables() {
        assert!(var.equal(&ckpt.net.var_store().variables()[&name]), "{name} differs");
    }
    assert_eq!(ckpt.extras.meta, extras.meta);
    assert_eq!(
        ckpt.extras.tensors.keys().collect::<Vec<_>>(),
        extras.tensors.keys().collect::<Vec<_>>()
    );
    for (name, t) in &extras.tensors {
        let back = &ckpt.extras.tensors[name];
        assert_eq!(back.kind(), t.kind(), "{name}");
        assert!(back.equal(t), "{name}");
    }
    let leftovers: Vec<_> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary files stay behind: {leftovers:?}");
}

#[test]
fn another_architecture_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = saved_checkpoint(dir.path());
    let err = load(&path, Some(&NetConfig::new(4, 32)), Device::Cpu).unwrap_err();
    assert!(
        matches!(err, ModelError::Checkpoint(CheckpointError::ArchitectureMismatch { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("\"channels\":16"), "{err}");
}

#[test]
fn truncated_checkpoints_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = saved_checkpoint(dir.path());
    let bytes = std::fs::read(&path).unwrap();
    for len in [0, 5, 8, 100, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&path, &bytes[..len]).unwrap();
        let err = load_err(&path);
        assert!(
            matches!(
                err,
                ModelError::Checkpoint(CheckpointError::NotACheckpoint { .. })
                    | ModelError::Checkpoint(CheckpointError::Damaged { .. })
            ),
            "{len}: {err}"
        );
    }
}

#[test]
fn flipped_bits_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let path = saved_checkpoint(dir.path());
    let bytes = std::fs::read(&path).unwrap();
    let header_end = 8 + u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    // In the tensor data: the checksum catches it.
    for at in [header_end, header_end + 1001, bytes.len() - 1] {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x10;
        std::fs::write(&path, &damaged).unwrap();
        let err = load_err(&path);
        assert!(
            matches!(err, ModelError::Checkpoint(CheckpointError::Damaged { .. })),
            "byte {at}: {err}"
        );
        assert!(err.to_string().contains("checksum"), "{err}");
    }
    // In a metadata value (the training step "1234" becomes "1235"): caught too.
    let text = String::from_utf8_lossy(&bytes[8..header_end]).into_owned();
    let at = 8 + text.find("\"step\":\"1234\"").expect("the step is in the header") + 11;
    let mut damaged = bytes.clone();
    damaged[at] ^= 0x01;
    std::fs::write(&path, &damaged).unwrap();
    assert!(matches!(load_err(&path), ModelError::Checkpoint(CheckpointError::Damaged { .. })));
    // Anywhere in the header: never loads.
    for at in (8..header_end).step_by(97) {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x04;
        std::fs::write(&path, &damaged).unwrap();
        load_err(&path);
    }
}

#[test]
fn foreign_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("foreign.safetensors");
    // A valid safetensors file from elsewhere.
    let data = [0u8; 16];
    let view =
        safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 2], &data).unwrap();
    std::fs::write(&path, safetensors::serialize([("weight", view)], &None).unwrap()).unwrap();
    let err = load_err(&path);
    assert!(matches!(err, ModelError::Checkpoint(CheckpointError::NotACheckpoint { .. })), "{err}");
    // A text file, and a pickle's first bytes.
    for bytes in [&b"blocks = 4\nchannels = 32\n"[..], &b"\x80\x02}q\x00(X\x05\x00\x00\x00"[..]] {
        std::fs::write(&path, bytes).unwrap();
        assert!(matches!(
            load_err(&path),
            ModelError::Checkpoint(CheckpointError::NotACheckpoint { .. })
        ));
    }
    let missing = dir.path().join("missing.safetensors");
    assert!(matches!(load_err(&missing), ModelError::Checkpoint(CheckpointError::Io { .. })));
}

#[test]
fn absurd_header_sizes_and_shapes_are_refused_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crafted.safetensors");
    for claimed in [u64::MAX, MAX_HEADER_BYTES + 1, 1 << 40] {
        let mut bytes = claimed.to_le_bytes().to_vec();
        bytes.extend_from_slice(b"{}      ");
        std::fs::write(&path, &bytes).unwrap();
        let err = load_err(&path);
        assert!(
            matches!(err, ModelError::Checkpoint(CheckpointError::NotACheckpoint { .. })),
            "{claimed}: {err}"
        );
    }
    let headers = [
        r#"{"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,16]}}"#,
        r#"{"w":{"dtype":"F32","shape":[1099511627776],"data_offsets":[0,16]}}"#,
        r#"{"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,18446744073709551615]}}"#,
    ];
    for header in headers {
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(&[0u8; 16]);
        std::fs::write(&path, &bytes).unwrap();
        let err = load_err(&path);
        assert!(
            matches!(err, ModelError::Checkpoint(CheckpointError::Damaged { .. })),
            "{header}: {err}"
        );
    }
}

#[test]
fn other_versions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = saved_checkpoint(dir.path());
    for (key, what) in
        [("encoding_version", "input encoding"), ("format_version", "checkpoint format")]
    {
        let bytes = std::fs::read(&path).unwrap();
        let file = safetensors::SafeTensors::deserialize(&bytes).unwrap();
        let (_, header) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
        let mut meta: HashMap<String, String> = header.metadata().clone().unwrap();
        meta.insert(key.into(), "999".into());
        let other = dir.path().join(format!("{key}.safetensors"));
        std::fs::write(&other, safetensors::serialize(file.tensors(), &Some(meta)).unwrap())
            .unwrap();
        let err = load_err(&other);
        assert!(
            matches!(err, ModelError::Checkpoint(CheckpointError::UnsupportedVersion { .. })),
            "{err}"
        );
        assert!(err.to_string().contains(what) && err.to_string().contains("999"), "{err}");
    }
}
