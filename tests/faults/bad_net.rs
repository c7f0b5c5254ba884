//! A net whose outputs are not numbers (NaN weights, as a broken export or a failing device can
//! give): the run stops with one line naming the self-play worker and what is wrong, keeps every
//! game it finished before, and leaves its directory whole (in the concurrent mode too, and a
//! NaN candidate in its gate: `concurrent_run.rs`).

use super::audit::{audit, Audit};
use super::{arg, assert_no_panic, run_to_end, tiny_run};
use model::{Extras, NetConfig, PolicyValueNet};
use rundata::RunDir;
use std::path::Path;

#[test]
fn a_net_that_answers_nan_stops_the_run_with_one_line_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    tiny_run(&run, 8);
    nan_best_net_stops_the_run(&run);
}

/// The best net of the run at `run` (of the tiny config's net, its budget spent) replaced by one
/// with NaN weights: the resumed run stops with one line naming the self-play worker, and keeps
/// everything.
pub fn nan_best_net_stops_the_run(run: &Path) {
    let before = audit(run);
    let best = RunDir::existing(run).unwrap().best_checkpoint().unwrap().unwrap();
    write_nan_net(&best);
    let (ok, out, err) = run_to_end(&["run", "--run-dir", arg(run), "--selfplay-games", "24"]);
    assert!(!ok, "the run went on with a NaN net:\n{out}{err}");
    let error = one_error_line(&err);
    assert!(error.contains("worker") && error.contains("not a finite"), "{err}");
    assert_kept(&before, &audit(run));
}

/// Writes a net of the tiny config's shape with NaN weights at `path`.
pub fn write_nan_net(path: &Path) {
    let mut net = PolicyValueNet::new(&NetConfig::new(1, 8), tch::Device::Cpu).unwrap();
    tch::no_grad(|| {
        for mut var in net.var_store_mut().trainable_variables() {
            let _ = var.fill_(f64::NAN);
        }
    });
    model::checkpoint::save(path, &net, 0, None, &Extras::default()).unwrap();
}

/// The one `error: ` line of a failed command's standard error, which shows no panic.
pub fn one_error_line(stderr: &str) -> &str {
    assert_no_panic(stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    errors[0]
}

/// The run directory is whole and kept what it held `before` a failed run.
pub fn assert_kept(before: &Audit, after: &Audit) {
    after.assert_clean();
    assert!(after.shards.is_superset(&before.shards), "shards lost");
    assert!(after.counted_games >= before.counted_games);
    assert!(after.counted_games <= after.shards.len() as u64, "games counted but not on disk");
    assert!(after.newest_state >= before.newest_state, "training state went back");
    assert!(after.gates >= before.gates && after.evaluations >= before.evaluations);
}

/// `POST /api/evaluate` with a net whose outputs are NaN panicked (`Outlook::of_value`); now the
/// page is told the net is damaged, and the server goes on.
#[test]
fn a_nan_net_behind_serve_is_an_error_for_the_page_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let net = dir.path().join("nan.safetensors");
    write_nan_net(&net);
    let server = crate::serve::start(&["--net", arg(&net)]);
    for _ in 0..2 {
        let (status, body) =
            crate::helpers::http(&server.address, "POST", "/api/evaluate", Some("{}"));
        assert_eq!(status, 400, "{body}");
        assert!(body.contains("not numbers"), "{body}");
    }
}

/// `export` wrote a NaN net with exit 0; now it refuses it with one line naming a weight.
#[test]
fn export_refuses_a_nan_net() {
    let dir = tempfile::tempdir().unwrap();
    let net = dir.path().join("nan.safetensors");
    write_nan_net(&net);
    let out = dir.path().join("out.onnx");
    let (ok, _, err) = run_to_end(&["export", arg(&net), "--format", "onnx", "--out", arg(&out)]);
    assert!(!ok && !out.exists(), "{err}");
    assert!(one_error_line(&err).contains("not finite numbers"), "{err}");
}
