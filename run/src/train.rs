//! `checkers-zero train`: trains on a run's shards, resuming from its last training state, and
//! writes candidate nets for the gate, one every `checkpoint_every` steps ([`follow::follow`],
//! which a concurrent `run` runs too). With `--follow` it waits for new self-play data. On an S3
//! run it downloads the shards it lacks into its cache before each look at them, and uploads its
//! candidates to `nets/` and its training state to `train/` (see [`crate::train_store`]), so that
//! a trainer on another machine (a fresh cache) resumes where it left off.

pub mod follow;

use crate::run_state::{open_run_options, RunDirOptions};
use crate::store_retry::retry;
use crate::train_store::download_state;
use anyhow::{bail, Result};
use egdb::Tables;
use follow::report_refresh;
use progress::interrupt;
use runconfig::RunConfig;
use rundata::{layout, RunDir};
use train::{EndgameSet, TrainPaths, Trainer};

/// What `checkers-zero train` trains.
pub struct TrainOptions {
    /// The run and its config.
    pub run: RunDirOptions,
    /// Stop after this many training steps in this call (default: all the data pays for).
    pub steps: Option<u64>,
    /// Keep waiting for new shards instead of stopping when the data is used up (until Ctrl-C).
    pub follow: bool,
}

/// `checkers-zero train`: trains on the run's shards, once or following.
pub fn train(options: TrainOptions) -> Result<()> {
    interrupt::install();
    let (cached, config) = retry("opening the run", || open_run_options(&options.run, "train"))?;
    let run = cached.run();
    if matches!(config.train.schedule, runconfig::ScheduleConfig::CosineBudget { .. }) {
        eprintln!(
            "note: `train.schedule` cosine_budget follows the budget of `checkers-zero run`; \
             training on its own has none, so the learning rate stays at its peak"
        );
    }
    model::configure_cpu_threads(config.cpu_threads, 1);
    let tables = config.egdb.load()?;
    // A resumed window re-reads its shards, and a fresh cache has neither them nor the state.
    retry("the trainer fetches its state", || {
        cached.download_new(layout::SHARDS)?;
        download_state(&cached)
    })?;
    let mut trainer = open_trainer(run, &config, tables.as_deref())?;
    let start = trainer.step();
    let until = follow::Until {
        limit: start.saturating_add(options.steps.unwrap_or(u64::MAX)),
        stop: &|| false,
        data_ended: &|| !options.follow,
        trained: &|_| {},
        budget_spent: &|| None,
    };
    follow::follow(&cached, &mut trainer, &until)?;
    if trainer.step() > start {
        println!(
            "trained steps {start}..{}; state in {}",
            trainer.step(),
            run.train_dir().display()
        );
    } else {
        println!(
            "nothing to train: the window holds {} positions ({} needed first), {} steps are paid for and {} are done",
            trainer.replay().len(),
            trainer.positions_needed(),
            trainer.steps_paid(),
            trainer.step()
        );
    }
    Ok(())
}

/// Opens the run's trainer. Refuses to start a fresh net over states it could not read.
pub fn open_trainer(run: &RunDir, config: &RunConfig, tables: Option<&Tables>) -> Result<Trainer> {
    let device = model::resolve_device(config.device)?;
    let (mut trainer, opened) =
        Trainer::open(TrainPaths::of(run), &config.net, config.trainer_config(), device)?;
    for refused in &opened.refused {
        eprintln!("warning: {}", support::one_line(refused));
    }
    if opened.resumed_from.is_none() && !opened.refused.is_empty() {
        bail!(
            "no training state of {} could be loaded (see above); move the damaged files away to start training afresh",
            run.train_dir().display()
        );
    }
    report_refresh(&opened.replay);
    let refill = trainer.replay().refill_target();
    if refill > trainer.replay().len() {
        eprintln!(
            "note: training waits until the window holds {refill} positions again (it holds {})",
            trainer.replay().len()
        );
    }
    if let Some(from) = &opened.resumed_from {
        eprintln!("resumed training at step {} from {}", trainer.step(), from.display());
    }
    for head in &opened.fresh_aux_heads {
        eprintln!(
            "note: the training state has no {} head (its weight was 0 when it was saved): the head starts fresh",
            head.name()
        );
    }
    if opened.fresh_average {
        eprintln!(
            "note: the training state has no averaged weights (train.ema_decay was 0 when it was saved): the average starts from the resumed net"
        );
    }
    if let Some(small) = &opened.widened_from {
        eprintln!(
            "note: the training state's net is a {}, the config's a {}: grown to it (the same outputs); the optimizer's buffers, auxiliary heads and averaged weights start afresh",
            small.short_name(),
            config.net.short_name()
        );
    }
    if let Some(tables) = tables {
        let set = EndgameSet::sample(tables, config.seed);
        eprintln!(
            "egdb: the value head is measured at each checkpoint on {} positions of at most {} pieces",
            set.len(),
            tables.max_pieces()
        );
        trainer.set_endgame_set(set);
    }
    Ok(trainer)
}
