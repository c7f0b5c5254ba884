//! The sparse family: its native forward pass (no libtorch) against the tch net that trains it,
//! on the same checkpoint, the refusals of checkpoints it must not run, and `widen`'s wider
//! checkpoints, which both compute as the narrow one.

use super::max_abs_diff;
use crate::helpers::{arg, succeed};
use draughts::Observation;
use model::encoding::Input;
use model::sample::random_observations;
use model::NetEvaluator;
use model::{CheckpointError, Extras, Inference, NetConfig, PolicyValueNet, SparseConfig};
use search::Evaluator;
use sparsenet::{features, NativeError, Scratch, SparseEvaluator, SparseWeights};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tch::nn::ModuleT;
use tch::{Device, Tensor};

/// A sparse net with random weights spread wide enough that the accumulator's clipping is hit on
/// both sides (the default initialisation keeps most values inside 0..1).
fn spread_net(config: &NetConfig) -> PolicyValueNet {
    tch::manual_seed(5);
    let net = PolicyValueNet::new(config, Device::Cpu).unwrap();
    tch::no_grad(|| {
        for (_, mut var) in net.var_store().variables() {
            let noise = var.randn_like() * 0.3;
            let _ = var.f_add_(&noise).unwrap();
        }
    });
    net
}

fn save(net: &PolicyValueNet, dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    model::checkpoint::save(&path, net, 42, None, &Extras::default()).unwrap();
    path
}

/// The native forward pass of the checkpoint at `path` over `obs`, `[B, OUTPUT_SIZE]`.
fn native_outputs(path: &Path, obs: &[Observation]) -> Tensor {
    let (weights, _) = SparseWeights::load(path).unwrap();
    let mut scratch = Scratch::default();
    let rows: Vec<f32> =
        obs.iter().flat_map(|o| weights.output_row(&features::active(o), &mut scratch)).collect();
    Tensor::from_slice(&rows).view([obs.len() as i64, -1])
}

fn configs() -> [NetConfig; 5] {
    let sparse = |accumulator, hidden, layers, buckets| {
        NetConfig::Sparse(SparseConfig { accumulator, hidden, layers, buckets })
    };
    [
        NetConfig::sparse(),
        sparse(48, 16, 0, 1),
        sparse(33, 7, 3, 1),
        sparse(48, 16, 0, 4),
        sparse(33, 7, 3, 3),
    ]
}

#[test]
fn the_native_forward_equals_the_tch_net_on_the_same_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let obs = random_observations(300, 17);
    assert!(obs.iter().any(|o| o.moving_piece.is_some()), "mid-capture positions included");
    let buckets: std::collections::BTreeSet<usize> = obs
        .iter()
        .map(|o| features::bucket(features::piece_count(&features::active(o)), 4))
        .collect();
    assert_eq!(buckets.len(), 4, "positions of every bucket of four: {buckets:?}");
    for config in configs() {
        let net = spread_net(&config);
        let path = save(&net, dir.path(), "net.safetensors");
        let expected = tch::no_grad(|| net.forward_t(&Input::Features.encode_batch(&obs), false));
        let (_, meta) = SparseWeights::load(&path).unwrap();
        assert_eq!((meta.step, &meta.config), (42, &config));
        let diff = max_abs_diff(&native_outputs(&path, &obs), &expected);
        assert!(diff < 1e-4, "{}: native and tch differ by {diff}", config.short_name());
    }
}

#[test]
fn the_native_evaluator_gives_the_priors_and_values_of_the_libtorch_evaluator() {
    let dir = tempfile::tempdir().unwrap();
    let net = spread_net(&NetConfig::sparse());
    let path = save(&net, dir.path(), "net.safetensors");
    let requests = model::decision_requests(3, 200);
    let mut torch = NetEvaluator::new(Inference::new(net, false));
    let expected = torch.evaluate(&requests).unwrap();
    let mut native = SparseEvaluator::new(Arc::new(SparseWeights::load(&path).unwrap().0));
    let got = native.evaluate(&requests).unwrap();
    for (got, want) in got.iter().zip(&expected) {
        assert!((got.value - want.value).abs() < 1e-5, "{} vs {}", got.value, want.value);
        assert_eq!(got.priors.len(), want.priors.len());
        assert!(got.priors.iter().zip(&want.priors).all(|(a, b)| (a - b).abs() < 1e-5));
    }
}

#[test]
fn a_grown_checkpoint_computes_the_same_outputs_natively_and_in_tch() {
    let dir = tempfile::tempdir().unwrap();
    let obs = random_observations(300, 19);
    let growths: [(&[&str], usize, usize); 3] = [
        (&["--accumulator", "96"], 96, 1),
        (&["--buckets", "4"], 32, 4),
        (&["--accumulator", "96", "--buckets", "3"], 96, 3),
    ];
    for layers in [0, 2] {
        for (args, accumulator, buckets) in growths {
            tch::manual_seed(6);
            let config =
                NetConfig::Sparse(SparseConfig { accumulator: 32, hidden: 16, layers, buckets: 1 });
            let narrow = save(
                &PolicyValueNet::new(&config, Device::Cpu).unwrap(),
                dir.path(),
                "narrow.safetensors",
            );
            let wide = dir.path().join("wide.safetensors");
            let mut command = vec!["widen", arg(&narrow), "--out", arg(&wide)];
            command.extend(args);
            let out = succeed(&command);
            let grown =
                NetConfig::Sparse(SparseConfig { accumulator, hidden: 16, layers, buckets });
            assert!(out.contains(&format!("grown to a {}", grown.short_name())), "{out}");
            let load = |path: &Path| model::checkpoint::load(path, None, Device::Cpu).unwrap();
            let (before, after) = (load(&narrow), load(&wide));
            assert_eq!(after.meta.config, grown);
            assert_eq!(
                (after.meta.step, after.meta.parent.as_deref()),
                (42, Some("narrow.safetensors"))
            );
            let xs = Input::Features.encode_batch(&obs);
            let tch_diff = tch::no_grad(|| {
                max_abs_diff(&before.net.forward_t(&xs, false), &after.net.forward_t(&xs, false))
            });
            let native_diff =
                max_abs_diff(&native_outputs(&narrow, &obs), &native_outputs(&wide, &obs));
            assert!(
                tch_diff < 1e-5 && native_diff < 1e-5,
                "layers {layers} {args:?}: tch {tch_diff}, native {native_diff}"
            );
        }
    }
    // The last grown net (96 wide, 3 stacks) grows no narrower, and splits no further.
    let refusal = |flag: &str, value: &str| {
        let (wide, out) = (dir.path().join("wide.safetensors"), dir.path().join("x.safetensors"));
        let (ok, _, err) =
            crate::helpers::run_to_end(&["widen", arg(&wide), flag, value, "--out", arg(&out)]);
        assert!(!ok, "{flag} {value} was taken");
        err
    };
    let err = refusal("--accumulator", "64");
    assert!(err.contains("net.accumulator") && err.contains("above the net's 96"), "{err}");
    let err = refusal("--buckets", "2");
    assert!(err.contains("net.buckets") && err.contains("one value stack"), "{err}");
}

#[test]
fn checkpoints_it_must_not_run_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    // A ResNet.
    let resnet = PolicyValueNet::new(&NetConfig::new(1, 8), Device::Cpu).unwrap();
    let path = save(&resnet, dir.path(), "resnet.safetensors");
    let err = SparseWeights::load(&path).unwrap_err();
    assert!(matches!(err, NativeError::Family { .. }), "{err}");
    assert!(err.to_string().contains("resnet") && err.to_string().contains("resnet.safetensors"));
    // A sparse net where a ResNet is expected, and the other way round.
    let sparse = save(&spread_net(&NetConfig::sparse()), dir.path(), "sparse.safetensors");
    let err = model::checkpoint::load(&sparse, Some(&NetConfig::new(1, 8)), Device::Cpu)
        .unwrap_err()
        .to_string();
    assert!(err.contains(r#""kind":"sparse""#) && err.contains(r#""kind":"resnet""#), "{err}");
    // Another version of the features.
    let bytes = std::fs::read(&sparse).unwrap();
    let file = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let (_, header) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
    let mut meta = header.metadata().clone().unwrap();
    meta.insert("encoding_version".into(), "7".into());
    let other = dir.path().join("features-v7.safetensors");
    std::fs::write(&other, safetensors::serialize(file.tensors(), &Some(meta)).unwrap()).unwrap();
    let err = SparseWeights::load(&other).unwrap_err();
    assert!(
        matches!(err, NativeError::Checkpoint(CheckpointError::UnsupportedVersion { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("sparse input encoding version 7"), "{err}");
    // A flipped bit.
    let mut bytes = std::fs::read(&sparse).unwrap();
    let at = bytes.len() - 100;
    bytes[at] ^= 0x10;
    let damaged = dir.path().join("damaged.safetensors");
    std::fs::write(&damaged, bytes).unwrap();
    let err = SparseWeights::load(&damaged).unwrap_err();
    assert!(matches!(err, NativeError::Checkpoint(CheckpointError::Damaged { .. })), "{err}");
    assert!(err.to_string().contains("damaged.safetensors"), "{err}");
}
