//! Exact resume: a run restarted from its checkpoint reaches the same weights, optimizer buffers
//! and next loss as a run that never stopped; damaged checkpoints are refused by name.

use super::*;
use std::collections::BTreeMap;
use tch::Tensor;
use train::state::{load_state, state_path};
use train::{OptimizerConfig, StepOutcome};

/// Weights, batch-norm statistics and optimizer buffers by name.
fn snapshot(trainer: &Trainer) -> BTreeMap<String, Tensor> {
    let mut all: BTreeMap<String, Tensor> =
        trainer.net().var_store().variables().into_iter().map(|(k, v)| (k, v.copy())).collect();
    all.extend(trainer.optimizer().state().into_iter().map(|(k, v)| (k, v.copy())));
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

fn resume_matches_an_uninterrupted_run(optimizer: OptimizerConfig) {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 1500);
    let config = TrainConfig { optimizer, warmup_steps: 4, ..quick_config(10) };

    let (mut first, _) = open(&paths, config.clone());
    assert_eq!(first.train_available(15).unwrap(), 15);
    let at_15 = snapshot(&first);
    let loss_16 = next_loss(&mut first);
    drop(first); // "crash" after step 16; the last checkpoint is step 10

    let (mut resumed, opened) = open(&paths, config);
    assert_eq!(opened.resumed_from, Some(state_path(&paths.states, 10)));
    assert_eq!((opened.replay.shards, resumed.step()), (3, 10));
    assert_eq!(resumed.train_available(5).unwrap(), 5);
    assert_same(&at_15, &snapshot(&resumed));
    assert_eq!(next_loss(&mut resumed), loss_16);
}

#[test]
fn a_resumed_sgd_run_continues_exactly() {
    resume_matches_an_uninterrupted_run(OptimizerConfig::Sgd { momentum: 0.9, nesterov: true });
}

#[test]
fn a_resumed_adamw_run_continues_exactly() {
    resume_matches_an_uninterrupted_run(OptimizerConfig::AdamW {
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-8,
    });
}

#[test]
fn a_damaged_checkpoint_is_refused_by_name_and_the_previous_one_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 1000);
    let config = quick_config(5);
    let (mut trainer, _) = open(&paths, config.clone());
    trainer.train_available(10).unwrap();
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
