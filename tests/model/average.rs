//! `checkers-zero average`: the weighted mean of checkpoints of one architecture, tensor by
//! tensor, that both runtimes load; and its refusals (other architectures, damaged files).

use super::{max_abs_diff, warmed_net};
use crate::helpers::{arg, run_to_end, succeed};
use model::{Extras, NetConfig, PolicyValueNet, SparseConfig};
use sparsenet::SparseWeights;
use std::path::{Path, PathBuf};
use tch::Device;

/// A net of `config` with weights drawn from `seed`, saved at `step` as `dir/name`.
fn saved(config: &NetConfig, seed: i64, step: u64, dir: &Path, name: &str) -> PathBuf {
    let net = match config {
        NetConfig::Sparse(_) => PolicyValueNet::new(config, Device::Cpu).unwrap(),
        // With batch-norm running statistics of its own (it seeds itself).
        NetConfig::Resnet(_) => warmed_net(config),
    };
    tch::manual_seed(seed);
    tch::no_grad(|| {
        for (_, mut var) in net.var_store().variables() {
            let noise = var.randn_like() * 0.1;
            let _ = var.f_add_(&noise).unwrap();
        }
    });
    let path = dir.join(name);
    model::checkpoint::save(&path, &net, step, None, &Extras::default()).unwrap();
    path
}

fn load(path: &Path) -> model::checkpoint::Checkpoint {
    model::checkpoint::load(path, None, Device::Cpu).unwrap()
}

#[test]
fn the_average_is_the_weighted_mean_of_every_tensor_and_loads_in_both_runtimes() {
    let dir = tempfile::tempdir().unwrap();
    let sparse =
        NetConfig::Sparse(SparseConfig { accumulator: 32, hidden: 16, layers: 2, buckets: 2 });
    for config in [sparse, NetConfig::new(1, 8)] {
        let a = saved(&config, 1, 100, dir.path(), "a.safetensors");
        let b = saved(&config, 2, 300, dir.path(), "b.safetensors");
        let out = dir.path().join("mean.safetensors");
        let said = succeed(&["average", arg(&a), arg(&b), "--weights", "3,1", "--out", arg(&out)]);
        assert!(said.contains("a.safetensors x 0.750, b.safetensors x 0.250"), "{said}");
        let (a, b, mean) = (load(&a), load(&b), load(&out));
        assert_eq!(mean.meta.config, config);
        assert_eq!(
            (mean.meta.step, mean.meta.parent.as_deref()),
            (300, Some("a.safetensors + b.safetensors"))
        );
        let (va, vb) = (a.net.var_store().variables(), b.net.var_store().variables());
        let vars = mean.net.var_store().variables();
        assert_eq!(vars.len(), va.len());
        for (name, got) in vars {
            let want = &va[&name] * 0.75 + &vb[&name] * 0.25;
            let diff = max_abs_diff(&got, &want);
            assert!(diff < 1e-6, "{}: {name} differs by {diff}", config.short_name());
        }
        if matches!(config, NetConfig::Sparse(_)) {
            SparseWeights::load(&out).expect("the native evaluator loads the average");
        }
    }
}

#[test]
fn other_architectures_and_damaged_checkpoints_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let narrow = saved(&NetConfig::sparse(), 1, 1, dir.path(), "narrow.safetensors");
    let wide = NetConfig::Sparse(SparseConfig { accumulator: 256, ..SparseConfig::default() });
    let wide = saved(&wide, 2, 1, dir.path(), "wide.safetensors");
    let out = dir.path().join("mean.safetensors");
    let refused = |args: &[&str]| {
        let (ok, _, err) = run_to_end(args);
        assert!(!ok && !out.exists(), "{args:?} was taken");
        assert!(!err.contains("panicked"), "{err}");
        err
    };
    let err = refused(&["average", arg(&narrow), arg(&wide), "--out", arg(&out)]);
    assert!(err.contains("wide.safetensors") && err.contains("one architecture"), "{err}");
    let err = refused(&["average", arg(&narrow), "--out", arg(&out)]);
    assert!(err.contains("2 values required"), "{err}");
    let err =
        refused(&["average", arg(&narrow), arg(&narrow), "--weights", "1,-2", "--out", arg(&out)]);
    assert!(err.contains("-2 is not a finite number"), "{err}");
    // A flipped byte in the last tensor's data: the checksum names the file.
    let mut bytes = std::fs::read(&narrow).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    let damaged = dir.path().join("damaged.safetensors");
    std::fs::write(&damaged, bytes).unwrap();
    let err = refused(&["average", arg(&narrow), arg(&damaged), "--out", arg(&out)]);
    assert!(err.contains("damaged.safetensors") && err.contains("checksum"), "{err}");
}
