//! A net whose outputs are not numbers (NaN weights, as a broken export or a failing device can
//! give): the run stops with one line naming the self-play worker and what is wrong, keeps every
//! game it finished before, and leaves its directory whole.

use super::audit::audit;
use super::{arg, assert_no_panic, run_to_end, tiny_run};
use model::{Extras, NetConfig, PolicyValueNet};
use rundata::RunDir;

#[test]
fn a_net_that_answers_nan_stops_the_run_with_one_line_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    tiny_run(&run, 8);
    let before = audit(&run);
    // The best net replaced by one of the same shape (the tiny config's) with NaN weights.
    let best = RunDir::existing(&run).unwrap().best_checkpoint().unwrap().unwrap();
    let mut net = PolicyValueNet::new(&NetConfig::new(1, 8), tch::Device::Cpu).unwrap();
    tch::no_grad(|| {
        for mut var in net.var_store_mut().trainable_variables() {
            let _ = var.fill_(f64::NAN);
        }
    });
    model::checkpoint::save(&best, &net, 0, None, &Extras::default()).unwrap();

    let (ok, out, err) = run_to_end(&["run", "--run-dir", arg(&run), "--selfplay-games", "24"]);
    assert!(!ok, "the run went on with a NaN net:\n{out}{err}");
    assert_no_panic(&err);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains("worker") && errors[0].contains("not a finite"), "{err}");
    let after = audit(&run);
    after.assert_clean();
    assert!(after.shards.is_superset(&before.shards), "shards lost");
    assert!(after.counted_games >= before.counted_games);
}
