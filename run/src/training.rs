//! Training that follows the data: the trainer reads the shards that landed since its last look,
//! trains the steps they pay for (`train.reuse`), writes a candidate every `checkpoint_every`
//! steps, and waits when the data has paid for nothing more. The trainer thread of a concurrent
//! `run` runs it beside self-play. It tells the replay window's size and the samples trained per
//! position (the reuse that `train.reuse` caps) at most every 30 seconds.

use crate::interrupt;
use crate::store_retry::{retry, sleep};
use crate::train::{checkpoint, train_paid_steps, warn_damaged};
use anyhow::Result;
use rundata::{layout, CachedRun};
use std::time::{Duration, Instant};
use train::Trainer;

/// How long the trainer waits before looking for new shards when it has nothing to train.
const POLL: Duration = Duration::from_secs(2);
/// The least time between two lines on the replay window (new shards land every few seconds).
const REPLAY_LINE_EVERY: Duration = Duration::from_secs(30);

/// When training ends (besides Ctrl-C), and who hears of its progress.
pub struct Until<'a> {
    /// The training step to stop at.
    pub limit: u64,
    /// Whether to stop now (checked between two checkpoints).
    pub stop: &'a dyn Fn() -> bool,
    /// Whether the data ended (no more shards will come): training ends once their steps are done.
    pub data_ended: &'a dyn Fn() -> bool,
    /// Told of the trainer's step after each stretch of training.
    pub trained: &'a dyn Fn(u64),
    /// The share of the run's budget spent, inside `run` (for a schedule over the budget).
    pub budget_spent: &'a dyn Fn() -> Option<f64>,
}

/// Trains as the data arrives until `until` ends it, with a checkpoint each time the trainer says
/// one is due ([`Trainer::next_checkpoint`]) and one at the end when steps were trained since the
/// last.
pub fn follow(cached: &CachedRun, trainer: &mut Trainer, until: &Until) -> Result<()> {
    // When the replay line was last printed, and whether shards landed since.
    let (mut replay_told, mut replay_news) = (None::<Instant>, false);
    loop {
        // Read first: shards written before the end are then in the look below.
        let data_ended = (until.data_ended)();
        retry("the trainer waits for shards", || Ok(cached.download_new(layout::SHARDS)?))?;
        let refresh = trainer.refresh()?;
        warn_damaged(&refresh);
        replay_news |= refresh.shards > 0;
        if replay_news && replay_told.is_none_or(|told| told.elapsed() >= REPLAY_LINE_EVERY) {
            let replay = trainer.replay();
            progress::line(format!(
                "replay: {} shards read ({} positions in the window of the {} read; {:.2} samples trained per position, at most {})",
                replay.added().len(),
                replay.len(),
                replay.seen(),
                trainer.reuse(),
                trainer.config().reuse,
            ));
            (replay_told, replay_news) = (Some(Instant::now()), false);
        }
        if let Some(share) = (until.budget_spent)() {
            trainer.set_budget_spent(share);
        }
        let next_checkpoint = trainer.next_checkpoint();
        let trained = train_paid_steps(trainer, until.limit.min(next_checkpoint))?;
        (until.trained)(trainer.step());
        if trainer.step() >= next_checkpoint {
            checkpoint(cached, trainer)?;
        }
        let done = trainer.step() >= until.limit || (data_ended && trained == 0);
        if done || interrupt::requested() || (until.stop)() {
            break;
        }
        if trained == 0 {
            sleep(POLL);
        }
    }
    if trainer.step() > trainer.saved_step() {
        checkpoint(cached, trainer)?;
    }
    Ok(())
}
