//! Training that follows the data: the trainer reads the shards that landed since its last look,
//! trains the steps they pay for (`train.reuse`), writes a candidate every `checkpoint_every`
//! steps, and waits when the data has paid for nothing more. The trainer thread of a concurrent
//! `run` runs it beside self-play. It tells the replay window's size and the samples trained per
//! position (the reuse that `train.reuse` caps) at most every 30 seconds. The steps between two
//! checkpoints ([`train_paid_steps`], with a progress bar) and the checkpoints are here too, for
//! the sequential `run` as well.

use crate::store_retry::{retry, sleep};
use crate::train_store::upload_state;
use anyhow::Result;
use progress::interrupt;
use rundata::{layout, CachedRun};
use std::time::{Duration, Instant};
use train::{StepOutcome, Trainer};

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
        report_refresh(&refresh);
        replay_news |= refresh.shards > 0;
        if replay_news && replay_told.is_none_or(|told| told.elapsed() >= REPLAY_LINE_EVERY) {
            let replay = trainer.replay();
            progress::line(format!(
                "replay: {} shards read ({} positions in the window of the {} read; {:.2} samples trained per position, at most {}; learning rate {:.4})",
                replay.added().len(),
                replay.len(),
                replay.seen(),
                trainer.reuse(),
                trainer.config().reuse,
                trainer.learning_rate(),
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

/// Writes a checkpoint (a candidate net and the training state) and uploads the candidates and
/// the training state the store lacks; while the store is unreachable they wait in the cache for
/// the next checkpoint.
fn checkpoint(cached: &CachedRun, trainer: &mut Trainer) -> Result<()> {
    let state = trainer.checkpoint()?;
    if let Some(line) = endgame_line(trainer) {
        println!("{line}");
    }
    let uploaded = cached.publish_new(layout::NETS).map_err(anyhow::Error::from);
    match uploaded.and_then(|_| upload_state(cached)) {
        Ok(()) => println!("checkpoint at step {}: {}", trainer.step(), state.display()),
        Err(e) => {
            eprintln!("warning: candidates and training state kept in the cache for now: {e:#}")
        }
    }
    Ok(())
}

/// The progress line of the trainer's newest measurement on the endgame set, once.
pub fn endgame_line(trainer: &mut Trainer) -> Option<String> {
    trainer.take_endgame_accuracy().map(|m| {
        format!(
            "egdb value accuracy at step {}: {:.1}% ({} positions, mean abs error {:.3}, {:.1} s)",
            m.step,
            100.0 * m.accuracy,
            m.positions,
            m.mae,
            m.seconds
        )
    })
}

/// Reports shards the replay window skipped or found gone, and the net's widening when
/// `train.grow` made one.
pub fn report_refresh(refresh: &train::Refresh) {
    for damaged in &refresh.damaged {
        eprintln!("warning: skipped {}", support::one_line(damaged));
    }
    if let Some(newest) = refresh.missing.first() {
        eprintln!(
            "warning: {} shards of the replay window are gone (the newest: {}); the window refills from new self-play, and the positions read so far still set its size, the learning rate and the reuse cap",
            refresh.missing.len(),
            newest.display()
        );
    }
    if let Some(grown) = &refresh.grown {
        progress::line(format!(
            "train.grow: the net's accumulator widened from {} to {} at {} positions read (the same outputs; the optimizer's buffers, auxiliary heads and averaged weights start afresh)",
            grown.from, grown.to, grown.positions
        ));
    }
}

/// Trains the steps the data pays for, up to step `limit`, with a progress bar. Stops early when
/// interrupted. Returns the updates applied.
pub fn train_paid_steps(trainer: &mut Trainer, limit: u64) -> Result<u64> {
    let target = trainer.steps_paid().min(limit);
    let start = trainer.step();
    if target <= start {
        return Ok(0);
    }
    let bar = progress::bar(target - start, "steps");
    let mut last_loss = f64::NAN;
    while trainer.step() < target && !interrupt::requested() {
        match trainer.train_step()? {
            StepOutcome::Trained { loss } => last_loss = loss,
            StepOutcome::Skipped { loss, grad_norm } => {
                bar.println(format!("skipped a step: loss {loss}, gradient norm {grad_norm}"))
            }
        }
        if let Some(line) = endgame_line(trainer) {
            // Printed also when the bar is hidden (output not to a terminal), unlike `println`.
            bar.suspend(|| println!("  {line}"));
        }
        bar.set_position(trainer.step() - start);
        bar.set_message(format!("step {}  loss {last_loss:.3}", trainer.step()));
    }
    bar.finish();
    Ok(trainer.step() - start)
}
