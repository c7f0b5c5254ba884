//! The quantised export read back by the reference reader (`quantised_reader.py`, written from
//! docs/export.md alone): its values are the native integer net's for real positions.

use crate::helpers::{arg, python, succeed};
use draughts::{DrawRules, Game, Position};
use model::{Extras, NetConfig, PolicyValueNet, SparseConfig};
use sparsenet::{features, IncrementalNet, QuantisedNet, SparseWeights};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use support::SplitMix64;

#[test]
fn the_quantised_export_evaluates_as_the_native_engine_in_the_reference_reader() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    read_back_in_the_reference_reader(&root.join("nets/default.safetensors"), 80);
}

#[test]
fn a_quantised_net_with_buckets_of_material_evaluates_as_the_native_engine_in_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let config = NetConfig::Sparse(SparseConfig { buckets: 4, ..Default::default() });
    tch::manual_seed(3);
    let net = PolicyValueNet::new(&config, tch::Device::Cpu).unwrap();
    let path = dir.path().join("buckets.safetensors");
    model::checkpoint::save(&path, &net, 1, None, &Extras::default()).unwrap();
    read_back_in_the_reference_reader(&path, 200);
}

/// Exports `net` as a quantised file, and has the reference reader evaluate 40 positions of
/// random games of up to `plies` plies: its values must be the native integer net's.
fn read_back_in_the_reference_reader(net: &Path, plies: u64) {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = dir.path().join("default.czq");
    succeed(&["export", arg(net), "--format", "quantised", "--out", arg(&out)]);
    assert!(dir.path().join("default.czq.json").exists(), "the description beside it");

    // Positions of random games, their features and the native integer net's values.
    let weights = SparseWeights::load(net).unwrap().0;
    let mut native = IncrementalNet::new(Arc::new(QuantisedNet::new(&weights)));
    let mut rng = SplitMix64::new(21);
    let (mut actives, mut values) = (Vec::new(), Vec::new());
    while actives.len() < 40 {
        let mut game = Game::new(Position::start(), DrawRules::default());
        for _ in 0..rng.below(plies) {
            let moves = game.position().legal_moves();
            if moves.is_empty() {
                break;
            }
            game.play(moves[rng.below(moves.len() as u64) as usize]).unwrap();
        }
        let observation = game.observation();
        actives.push(features::active(&observation).to_vec());
        values.push(native.value_of(&observation));
    }
    let positions = dir.path().join("positions.json");
    std::fs::write(&positions, serde_json::to_string(&actives).unwrap()).unwrap();
    let reader = root.join("tests/model/quantised_reader.py");
    let output = Command::new(python()).args([arg(&reader), arg(&out), arg(&positions)]).output();
    let output = output.expect("python runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let read: Vec<f64> = stdout.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(read.len(), values.len());
    for (reference, native) in read.iter().zip(&values) {
        assert!((reference - f64::from(*native)).abs() < 1e-5, "{reference} against {native}");
    }

    // A damaged byte is caught by the reader's CRC32.
    let mut bytes = std::fs::read(&out).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&out, bytes).unwrap();
    let damaged = Command::new(python()).args([arg(&reader), arg(&out), arg(&positions)]).output();
    let damaged = damaged.unwrap();
    assert!(!damaged.status.success());
    assert!(String::from_utf8_lossy(&damaged.stderr).contains("CRC32"));
}
