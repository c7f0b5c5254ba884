//! Exact resume: a run restarted from its checkpoint reaches the same weights, optimizer buffers
//! and next loss as a run that never stopped, and batches drawn ahead on the batch thread train
//! exactly as batches drawn in the step; damaged checkpoints are refused by name. The same with
//! the soft-policy head, whose variables and buffers live in the state; a state saved without
//! it resumes with a fresh head, and no net checkpoint carries it. The same with the averaged
//! weights, which are the candidates.

use super::*;
use runconfig::OptimizerConfig;
use std::collections::BTreeMap;
use tch::Tensor;
use train::state::{load_state, state_path};
use train::StepOutcome;

/// Weights, batch-norm statistics and optimizer buffers by name, the auxiliary heads' and the
/// averaged weights' included.
fn snapshot(trainer: &Trainer) -> BTreeMap<String, Tensor> {
    let mut all: BTreeMap<String, Tensor> =
        trainer.net().var_store().variables().into_iter().map(|(k, v)| (k, v.copy())).collect();
    all.extend(trainer.optimizer().state().into_iter().map(|(k, v)| (k, v.copy())));
    let extras = [trainer.aux_heads().map(|a| a.state()), trainer.average().map(|a| a.state())];
    for extras in extras.into_iter().flatten() {
        all.extend(extras.tensors.into_iter().map(|(k, v)| (k, v.copy())));
    }
    all
}

fn assert_same(a: &BTreeMap<String, Tensor>, b: &BTreeMap<String, Tensor>) {
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, t) in a {
        let diff = (t - &b[name]).abs().max().double_value(&[]);
        assert!(diff == 0.0, "`{name}` differs by {diff}");
    }
}

fn next_loss(trainer: &mut Trainer) -> f64 {
    match trainer.train_step().unwrap() {
        StepOutcome::Trained { loss } => loss,
        other => panic!("{other:?}"),
    }
}

fn resume_matches_an_uninterrupted_run(config: TrainConfig) {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 1500);
    let config = TrainConfig { warmup_steps: 4, ..config };

    let (mut first, _) = open(&paths, config.clone());
    assert_eq!(train_to(dir.path(), &mut first, 10), 10);
    for _ in 10..15 {
        next_loss(&mut first); // steps after the last checkpoint, lost in the crash below
    }
    let at_15 = snapshot(&first);
    let loss_16 = next_loss(&mut first);
    drop(first); // "crash" after step 16; the last checkpoint is step 10

    let (mut resumed, opened) = open(&paths, config);
    assert_eq!(opened.resumed_from, Some(state_path(&paths.states, 10)));
    assert_eq!((opened.replay.shards, resumed.step()), (3, 10));
    assert_eq!(train_to(dir.path(), &mut resumed, 15), 5);
    assert_same(&at_15, &snapshot(&resumed));
    assert_eq!(next_loss(&mut resumed), loss_16);
}

#[test]
fn a_run_resumed_at_any_step_checkpoints_every_checkpoint_every_steps_from_there() {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 1500);
    let (mut first, _) = open(&paths, quick_config(10));
    // The session ends at step 15, between two scheduled checkpoints: its last one is at 15.
    assert_eq!(train_to(dir.path(), &mut first, 15), 15);
    drop(first);
    let (mut resumed, opened) = open(&paths, quick_config(10));
    assert_eq!(opened.resumed_from, Some(state_path(&paths.states, 15)));
    assert_eq!((resumed.step(), resumed.next_checkpoint()), (15, 25));
    assert_eq!(train_to(dir.path(), &mut resumed, 27), 12);
    let steps: Vec<String> = crate::helpers::sorted_files(&paths.nets)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        steps,
        [
            "step-0000000010.safetensors",
            "step-0000000015.safetensors",
            "step-0000000025.safetensors",
            "step-0000000027.safetensors"
        ],
        "one schedule: every 10 steps from the last checkpoint, each state written once"
    );
    assert_eq!(resumed.next_checkpoint(), 37);
}

/// Copies the files of `from` into `to`, under their names.
fn copy_files(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
}

/// Trains `config` in a run of its own under `root`, from the step-0 state `start` and the shards
/// of `first`, as a run's trainer does: 12 steps, then the shards of `later` arrive, 13 more steps
/// (a refresh in between, checkpoints when due and at the end of each stretch); returns the
/// snapshot and the next loss. (Copies, so that every run reads shards
/// of the same names in the same order.)
fn train_across_a_refresh(
    root: &Path,
    start: &Path,
    [first, later]: [&Path; 2],
    config: TrainConfig,
) -> (BTreeMap<String, Tensor>, f64) {
    let paths = run_with_shards(root, 0);
    copy_files(first, &paths.shards);
    std::fs::create_dir_all(&paths.states).unwrap();
    std::fs::copy(start, state_path(&paths.states, 0)).unwrap();
    let (mut trainer, opened) = open(&paths, config);
    assert!(opened.resumed_from.is_some(), "{:?}", opened.refused);
    assert_eq!(train_to(root, &mut trainer, 12), 12);
    copy_files(later, &paths.shards);
    assert_eq!(train_to(root, &mut trainer, 25), 13);
    (snapshot(&trainer), next_loss(&mut trainer))
}

#[test]
fn batches_drawn_ahead_train_exactly_as_batches_drawn_in_the_step() {
    let dir = tempfile::tempdir().unwrap();
    let config = quick_config(10);
    // One first net for every run (tests on other threads draw from libtorch's generator too).
    let (mut first, _) = open(&run_with_shards(&dir.path().join("first"), 0), config.clone());
    let start = first.checkpoint().unwrap();
    let shards = run_with_shards(&dir.path().join("shards"), 1500).shards;
    let later = dir.path().join("later");
    std::fs::create_dir(&later).unwrap();
    write_shard(&later, &ShardHeader::now(9, None), &synthetic_samples(300, 8)).unwrap();
    let data = [shards.as_path(), later.as_path()];
    let inline = TrainConfig { prefetch_batches: 0, ..config.clone() };
    let (inline, inline_loss) =
        train_across_a_refresh(&dir.path().join("inline"), &start, data, inline);
    for depth in [1, 4] {
        let ahead = TrainConfig { prefetch_batches: depth, ..config.clone() };
        let root = dir.path().join(depth.to_string());
        let (ahead, ahead_loss) = train_across_a_refresh(&root, &start, data, ahead);
        assert_same(&inline, &ahead);
        assert_eq!(inline_loss, ahead_loss, "the next loss, {depth} batches ahead");
    }
}

#[test]
fn a_resumed_sgd_run_continues_exactly() {
    let optimizer = OptimizerConfig::Sgd { momentum: 0.9, nesterov: true };
    resume_matches_an_uninterrupted_run(TrainConfig { optimizer, ..quick_config(10) });
}

#[test]
fn a_resumed_adamw_run_continues_exactly() {
    let optimizer = OptimizerConfig::AdamW { beta1: 0.9, beta2: 0.999, eps: 1e-8 };
    resume_matches_an_uninterrupted_run(TrainConfig { optimizer, ..quick_config(10) });
}

#[test]
fn a_resumed_run_with_the_auxiliary_heads_continues_exactly() {
    let optimizer = OptimizerConfig::AdamW { beta1: 0.9, beta2: 0.999, eps: 1e-8 };
    resume_matches_an_uninterrupted_run(TrainConfig {
        optimizer,
        soft_policy_weight: 2.0,
        reply_policy_weight: 0.5,
        ..quick_config(10)
    });
}

#[test]
fn a_resumed_run_with_averaged_weights_continues_exactly() {
    resume_matches_an_uninterrupted_run(TrainConfig { ema_decay: 0.9, ..quick_config(10) });
}

#[test]
fn the_candidates_are_the_averaged_weights_which_a_state_without_them_starts_from_its_net() {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 1000);
    let (mut plain, _) = open(&paths, quick_config(5));
    assert_eq!(train_to(dir.path(), &mut plain, 5), 5);
    drop(plain);

    let averaged = TrainConfig { ema_decay: 0.99, ..quick_config(5) };
    let (mut trainer, opened) = open(&paths, averaged);
    assert!(opened.fresh_average);
    let average = trainer.average().expect("kept");
    assert_same(&variables(trainer.net()), &variables(average.net()));
    assert_eq!(train_to(dir.path(), &mut trainer, 10), 5);
    let candidate = paths.nets.join("step-0000000010.safetensors");
    let candidate = model::checkpoint::load(&candidate, None, Device::Cpu).unwrap().net;
    assert_same(&variables(&candidate), &variables(trainer.average().unwrap().net()));
    let net = variables(trainer.net());
    let apart = variables(&candidate)
        .iter()
        .map(|(name, t)| (t - &net[name]).abs().max().double_value(&[]))
        .fold(0.0, f64::max);
    assert!(apart > 0.0, "the average lags the net");
}

/// A net's variables by name.
fn variables(net: &model::PolicyValueNet) -> BTreeMap<String, Tensor> {
    net.var_store().variables().into_iter().collect()
}

#[test]
fn the_auxiliary_heads_live_in_the_state_only_and_one_the_state_lacks_starts_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 1000);
    let (mut plain, _) = open(&paths, quick_config(5));
    assert!(plain.aux_heads().is_none());
    assert_eq!(train_to(dir.path(), &mut plain, 5), 5);
    drop(plain);

    let soft = TrainConfig { soft_policy_weight: 1.0, ..quick_config(5) };
    let (mut trainer, opened) = open(&paths, soft.clone());
    assert_eq!(opened.resumed_from, Some(state_path(&paths.states, 5)));
    assert_eq!(opened.fresh_aux_heads, [train::aux_heads::AuxTarget::SoftPolicy]);
    let at_5 = snapshot(&trainer);
    assert_eq!(train_to(dir.path(), &mut trainer, 10), 5);
    let at_10 = snapshot(&trainer);
    let moved = (&at_5["aux.soft_policy.fc.weight"] - &at_10["aux.soft_policy.fc.weight"]).abs();
    assert!(moved.max().double_value(&[]) > 0.0, "the head trains");
    drop(trainer);

    let state = model::checkpoint::load(&state_path(&paths.states, 10), None, Device::Cpu).unwrap();
    assert!(state.extras.tensors.contains_key("aux.soft_policy.fc.weight"));
    assert!(state.extras.tensors.contains_key("optim.0.aux.soft_policy.fc.weight"));
    let net = paths.nets.join("step-0000000010.safetensors");
    let candidate = model::checkpoint::load(&net, None, Device::Cpu).unwrap();
    assert!(candidate.extras.tensors.is_empty(), "{:?}", candidate.extras.tensors.keys());

    let (resumed, opened) = open(&paths, soft.clone());
    assert!(opened.fresh_aux_heads.is_empty());
    assert_same(&at_10, &snapshot(&resumed));
    drop(resumed);

    let both = TrainConfig { reply_policy_weight: 0.5, ..soft };
    let (mut trainer, opened) = open(&paths, both);
    assert_eq!(opened.fresh_aux_heads, [train::aux_heads::AuxTarget::ReplyPolicy]);
    let before = snapshot(&trainer)["aux.reply_policy.fc.weight"].copy();
    assert_eq!(train_to(dir.path(), &mut trainer, 15), 5);
    let moved = (&before - &snapshot(&trainer)["aux.reply_policy.fc.weight"]).abs();
    assert!(moved.max().double_value(&[]) > 0.0, "the reply head trains on the linked replies");
}

#[test]
fn a_damaged_checkpoint_is_refused_by_name_and_the_previous_one_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 1000);
    let config = quick_config(5);
    let (mut trainer, _) = open(&paths, config.clone());
    assert_eq!(train_to(dir.path(), &mut trainer, 10), 10);
    drop(trainer);
    let newest = state_path(&paths.states, 10);
    let mut bytes = std::fs::read(&newest).unwrap();
    let at = bytes.len() - 100;
    bytes[at] ^= 0x10;
    std::fs::write(&newest, &bytes).unwrap();

    let err = load_state(&newest, &small_net(), &config, Device::Cpu)
        .err()
        .expect("a damaged state loads");
    assert!(err.to_string().contains("state-0000000010.safetensors"), "{err}");

    let (resumed, opened) = open(&paths, config.clone());
    assert_eq!(resumed.step(), 5);
    assert_eq!(opened.refused.len(), 1);
    assert!(opened.refused[0].to_string().contains("state-0000000010.safetensors"));

    std::fs::write(state_path(&paths.states, 20), &bytes[..bytes.len() / 2]).unwrap();
    let other_net = Trainer::open(paths.clone(), &NetConfig::new(1, 8), config, Device::Cpu);
    let (fresh, opened) = other_net.unwrap();
    assert_eq!(fresh.step(), 0, "states of another architecture are not loaded");
    assert_eq!(opened.refused.len(), 3);
}
