//! Training on generated trajectories: the loss falls, and non-finite losses stop training with
//! the last good checkpoint untouched.

use super::*;
use train::{StepOutcome, TrainError};

fn loss(outcome: StepOutcome) -> f64 {
    match outcome {
        StepOutcome::Trained { loss } => loss,
        StepOutcome::Skipped { loss, grad_norm } => {
            panic!("skipped: loss {loss}, gradient norm {grad_norm}")
        }
    }
}

#[test]
fn training_on_generated_trajectories_lowers_the_loss() {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 3000);
    let (mut trainer, opened) =
        open(&paths, TrainConfig { learning_rate: 0.05, ..quick_config(1000) });
    assert!(opened.resumed_from.is_none());
    assert_eq!(trainer.refresh().unwrap().positions, 3000);
    let losses: Vec<f64> = (0..80).map(|_| loss(trainer.train_step().unwrap())).collect();
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    let (first, last) = (mean(&losses[..10]), mean(&losses[70..]));
    assert!(last < 0.8 * first, "loss went from {first:.3} to {last:.3}: {losses:?}");
    assert_eq!(trainer.step(), 80);
}

#[test]
fn the_reuse_rate_decides_how_many_steps_new_positions_pay_for() {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 1000);
    let (mut trainer, _) = open(&paths, TrainConfig { reuse: 2.0, ..quick_config(1000) });
    // 1000 positions * 2 / 32 per batch = 62 steps, then nothing until new shards arrive.
    assert_eq!(train_to(dir.path(), &mut trainer, u64::MAX), 62);
    assert_eq!(trainer.reuse(), 62.0 * 32.0 / 1000.0, "samples trained per position");
    assert_eq!(train_to(dir.path(), &mut trainer, u64::MAX), 0);
    write_shard(&paths.shards, &ShardHeader::now(9, None), &synthetic_samples(160, 6)).unwrap();
    assert_eq!(train_to(dir.path(), &mut trainer, u64::MAX), 10);
}

#[test]
fn non_finite_losses_stop_training_and_leave_the_last_checkpoint_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 1000);
    // An absurd learning rate blows the weights up within a few steps.
    let config = TrainConfig {
        learning_rate: 1e30,
        grad_clip_norm: 0.0,
        max_bad_steps: 3,
        ..quick_config(1)
    };
    let (mut trainer, _) = open(&paths, config);
    trainer.refresh().unwrap();
    let snapshot = || {
        let mut files: Vec<_> =
            std::fs::read_dir(&paths.states).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        files.into_iter().map(|p| (p.clone(), std::fs::read(p).unwrap())).collect::<Vec<_>>()
    };
    let mut last_good = snapshot();
    let mut skipped = 0;
    for _ in 0..100 {
        match trainer.train_step() {
            Ok(StepOutcome::Trained { .. }) => {
                // As the training loop does: a checkpoint when one is due (every step here).
                if trainer.step() >= trainer.next_checkpoint() {
                    trainer.checkpoint().unwrap();
                }
                last_good = snapshot();
            }
            Ok(StepOutcome::Skipped { .. }) => skipped += 1,
            Err(err @ TrainError::NonFinite { .. }) => {
                let text = err.to_string();
                assert!(text.contains("3 non-finite losses in a row"), "{text}");
                assert!(text.contains("state-"), "the message names the last checkpoint: {text}");
                assert_eq!(skipped, 2);
                assert!(snapshot() == last_good, "a checkpoint changed during the bad streak");
                assert_eq!(trainer.skipped_steps(), 3);
                return;
            }
            Err(err) => panic!("{err}"),
        }
    }
    panic!("the loss never became non-finite");
}
