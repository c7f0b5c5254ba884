//! Exports run in the real runtimes (Python torch for TorchScript, onnxruntime for ONNX) on real
//! positions and agree with our forward pass; the safetensors export reloads exactly.

use super::{forward, max_abs_diff, positions, small_config, warmed_net};
use model::checkpoint::{load, save};
use model::encoding::Input;
use model::export::{description_path, export};
use model::sample::random_observations;
use model::{ExportFormat, Extras, NetConfig, OUTPUT_SIZE};
use std::path::{Path, PathBuf};
use std::process::Command;
use tch::{Device, Tensor};

/// Runs the exported net in Python: argv = format, model, input file, batch, output file, and the
/// shape of one position (`10,8,8` or `203`).
const RUNNER: &str = r#"
import sys, numpy as np
fmt, model, inp, batch, out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
dims = [int(d) for d in sys.argv[6].split(",")]
x = np.fromfile(inp, dtype=np.float32).reshape(batch, *dims)
if fmt == "torchscript":
    import torch
    m = torch.jit.load(model)
    with torch.no_grad():
        y = m(torch.from_numpy(x)).numpy()
else:
    import onnx, onnxruntime as ort
    onnx.checker.check_model(onnx.load(model), full_check=True)
    s = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    y = s.run(["output"], {"input": x})[0]
np.ascontiguousarray(y, dtype=np.float32).tofile(out)
"#;

/// A sparse net with a value stack per bucket of material.
fn bucketed() -> NetConfig {
    NetConfig::Sparse(model::SparseConfig { buckets: 4, ..Default::default() })
}

/// A saved checkpoint of a warmed net in `dir`.
fn checkpoint(dir: &Path) -> PathBuf {
    checkpoint_of(dir, &small_config())
}

/// A saved checkpoint of a warmed net of `config` in `dir`.
fn checkpoint_of(dir: &Path, config: &NetConfig) -> PathBuf {
    let path = dir.join("net.safetensors");
    save(&path, &warmed_net(config), 7, None, &Extras::default()).unwrap();
    path
}

/// Exports a net of `config` as `format`, runs it in Python on real positions, and compares with
/// our forward pass.
fn check_in_python(format: ExportFormat, file: &str, config: &NetConfig) {
    let python = crate::helpers::python();
    let dir = tempfile::tempdir().unwrap();
    let ckpt = checkpoint_of(dir.path(), config);
    let out = dir.path().join(file);
    export(&ckpt, format, &out).unwrap();
    let input = Input::of(config);
    let obs = random_observations(37, 99);
    if let NetConfig::Sparse(sparse) = config {
        let buckets: std::collections::BTreeSet<usize> = obs
            .iter()
            .map(|o| {
                let active = sparsenet::features::active(o);
                sparsenet::features::bucket(
                    sparsenet::features::piece_count(&active),
                    sparse.buckets,
                )
            })
            .collect();
        // Random games rarely reach six pieces: three of four buckets are met here (all four
        // in `sparse::the_native_forward_equals_the_tch_net_on_the_same_checkpoint`).
        let met = buckets.len();
        assert!(met >= sparse.buckets.min(3), "positions of {met} buckets: {buckets:?}");
    }
    let xs = input.encode_batch(&obs);
    let dims: Vec<String> = input.dims().iter().map(i64::to_string).collect();
    let input: Vec<f32> = Vec::try_from(xs.flatten(0, -1)).unwrap();
    let input_file = dir.path().join("input.f32");
    std::fs::write(&input_file, input.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>())
        .unwrap();
    let output_file = dir.path().join("output.f32");
    let status = Command::new(&python)
        .args(["-c", RUNNER, &format.to_string()])
        .args([&out, &input_file])
        .arg("37")
        .arg(&output_file)
        .arg(dims.join(","))
        .status()
        .unwrap();
    assert!(status.success(), "{format} runner failed");
    let bytes = std::fs::read(&output_file).unwrap();
    let theirs: Vec<f32> =
        bytes.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
    assert_eq!(theirs.len(), 37 * OUTPUT_SIZE);
    let theirs = Tensor::from_slice(&theirs).view([37, OUTPUT_SIZE as i64]);
    let ours = forward(&load(&ckpt, None, Device::Cpu).unwrap().net, &xs);
    let diff = max_abs_diff(&ours, &theirs);
    eprintln!("{format}: max abs difference {diff:e} over {} values", 37 * OUTPUT_SIZE);
    assert!(diff < 1e-4, "{format}: max abs difference {diff}");
}

#[test]
fn torchscript_export_runs_in_python_torch() {
    check_in_python(ExportFormat::TorchScript, "net.pt", &small_config());
    check_in_python(ExportFormat::TorchScript, "net.pt", &NetConfig::sparse());
    check_in_python(ExportFormat::TorchScript, "net.pt", &bucketed());
}

#[test]
fn torchscript_export_runs_in_libtorch_at_any_batch_size() {
    for config in [small_config(), bucketed()] {
        let dir = tempfile::tempdir().unwrap();
        let ckpt = checkpoint_of(dir.path(), &config);
        let out = dir.path().join("net.pt");
        export(&ckpt, ExportFormat::TorchScript, &out).unwrap();
        let module = tch::CModule::load(&out).unwrap();
        let net = load(&ckpt, None, Device::Cpu).unwrap().net;
        for batch in [1, 5, 64] {
            let xs = Input::of(&config).encode_batch(&random_observations(batch, 99));
            let theirs = tch::no_grad(|| module.forward_ts(&[&xs])).unwrap();
            let diff = max_abs_diff(&forward(&net, &xs), &theirs);
            let name = config.short_name();
            assert!(diff < 1e-5, "{name}, batch {batch}: max abs difference {diff}");
        }
    }
}

#[test]
fn onnx_export_runs_in_onnxruntime() {
    check_in_python(ExportFormat::Onnx, "net.onnx", &small_config());
    check_in_python(ExportFormat::Onnx, "net.onnx", &NetConfig::sparse());
    check_in_python(ExportFormat::Onnx, "net.onnx", &bucketed());
}

#[test]
fn safetensors_export_reloads_exactly_and_every_export_is_described() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = checkpoint(dir.path());
    let out = dir.path().join("weights.safetensors");
    let json = export(&ckpt, ExportFormat::Safetensors, &out).unwrap();
    assert_eq!(json, description_path(&out));
    let (_, xs) = positions(9);
    let original = forward(&load(&ckpt, None, Device::Cpu).unwrap().net, &xs);
    assert!(
        original.equal(&forward(&load(&out, Some(&small_config()), Device::Cpu).unwrap().net, &xs))
    );
    let description: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(description["file"], "weights.safetensors");
    assert_eq!(description["input"]["shape"][1], 10);
    assert_eq!(description["input"]["planes"].as_array().unwrap().len(), 10);
    assert_eq!(description["policy_index"]["directions"][3]["name"], "forward_right");
    assert_eq!(description["output"]["shape"][1], OUTPUT_SIZE);
    assert_eq!(description["encoding_version"], model::encoding::ENCODING_VERSION);
    assert_eq!(description["family"], "resnet");

    std::fs::create_dir(dir.path().join("sparse")).unwrap();
    let sparse = checkpoint_of(&dir.path().join("sparse"), &NetConfig::sparse());
    let json = export(&sparse, ExportFormat::Safetensors, &dir.path().join("sparse.safetensors"));
    let description: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json.unwrap()).unwrap()).unwrap();
    assert_eq!(description["family"], "sparse");
    assert_eq!(description["input"]["shape"][1], sparsenet::features::FEATURES);
    assert_eq!(description["input"]["groups"][8]["name"], "repeated_twice");
    assert_eq!(description["encoding_version"], sparsenet::features::VERSION);
}
