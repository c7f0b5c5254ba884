//! The concurrent run (`run.mode = "concurrent"`): self-play, training and gating at once, each
//! in a thread of its own over the run folder, with the loops of the `selfplay --follow`,
//! `train --follow` and `gate --follow` roles. Self-play never waits: it plays batches of
//! `games_per_generation` games and takes up each promotion within seconds, while its games are
//! in flight (see [`crate::selfplay::PlayingNet`]). The trainer
//! trains what the data pays for as it lands; the gate gates its candidates and plays the anchors
//! of `[eval]` beside self-play.
//!
//! The end: the budget stops self-play (between two games), and a wall-clock limit also stops the
//! trainer (at its next checkpoint); else the trainer ends once self-play has ended and its data
//! is trained. The gate then gates the last candidate and evaluates the final net. Ctrl-C stops
//! every role at its next safe point, and so does a role that fails: its error ends the run.

use super::{figures, phase_seed, step_limit, Parts};
use crate::budget::{exhausted, games_for_phase, out_of_time, share_spent, Progress, Spent};
use crate::gate;
use crate::run_state::ensure_best;
use crate::selfplay::{Batch, Batches, GameSetup};
use crate::train::follow;
use anyhow::{Error, Result};
use egdb::Tables;
use progress::interrupt;
use runconfig::{BudgetConfig, RunConfig};
use rundata::{BestNet, CachedRun};
use selfplay::SessionReport;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::Scope;
use train::{TbLogger, Trainer};

/// Runs self-play, the trainer and the gate at once, each in a thread of its own, until the run
/// ends.
pub(super) fn run_roles_at_once(parts: Parts) -> Result<()> {
    let Parts { cached, config, setup, mut trainer, progress } = parts;
    let best = ensure_best(cached, config)?;
    // libtorch's CPU threads, shared among the threads that run self-play's net, the trainer and
    // the gate.
    model::configure_cpu_threads(config.cpu_threads, config.selfplay.forward_threads() + 2);
    let shared = Shared {
        budget: config.budget,
        progress: Mutex::new(progress),
        step: AtomicU64::new(trainer.step()),
        selfplay_ended: AtomicBool::new(false),
        training_ended: AtomicBool::new(false),
        failures: Mutex::new(Vec::new()),
    };
    let roles = &shared;
    let gate_tables = setup.tables.clone();
    // A role that panics makes the scope panic once every role has stopped.
    std::thread::scope(|scope| {
        let ended = Some(&roles.selfplay_ended);
        spawn(scope, roles, "selfplay", ended, || self_play(cached, config, setup, best, roles));
        let ended = Some(&roles.training_ended);
        spawn(scope, roles, "train", ended, || train(cached, config, &mut trainer, roles));
        spawn(scope, roles, "gate", None, || gate(cached, config, gate_tables, roles));
    });
    shared.lock().save()?;
    let limit = shared.limit();
    let mut failures = shared.failures.into_inner().unwrap_or_else(PoisonError::into_inner);
    if !failures.is_empty() {
        for later in &failures[1..] {
            eprintln!("warning: then {later:#}");
        }
        return Err(failures.remove(0));
    }
    match limit {
        Some(limit) => println!("budget reached: {limit}"),
        None => println!("stopped by an interrupt; run the same command again to resume"),
    }
    Ok(())
}

/// Starts the role `name` in a thread of `scope` (see [`Shared::role`]).
fn spawn<'scope, 'env>(
    scope: &'scope Scope<'scope, 'env>,
    shared: &'env Shared,
    name: &'static str,
    ended: Option<&'env AtomicBool>,
    work: impl FnOnce() -> Result<()> + Send + 'scope,
) {
    let started = std::thread::Builder::new()
        .name(format!("run-{name}"))
        .spawn_scoped(scope, move || shared.role(name, ended, work));
    if let Err(e) = started {
        shared.fail(name, Error::new(e).context("starting its thread"));
    }
}

/// What the roles share: the budget and what is spent of it, how far each role is, their errors.
struct Shared {
    budget: BudgetConfig,
    progress: Mutex<Progress>,
    /// The trainer's step.
    step: AtomicU64,
    selfplay_ended: AtomicBool,
    training_ended: AtomicBool,
    /// The roles' errors, in the order they came.
    failures: Mutex<Vec<Error>>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn spent(&self) -> Spent {
        self.lock().spent()
    }

    /// Which limit of the budget is reached, if any.
    fn limit(&self) -> Option<String> {
        exhausted(&self.budget, &self.spent(), self.step.load(SeqCst))
    }

    /// Runs the role `name` on this thread, its output headed by its name; sets `ended` when it
    /// ends, however it ends.
    fn role(
        &self,
        name: &'static str,
        ended: Option<&AtomicBool>,
        work: impl FnOnce() -> Result<()>,
    ) {
        progress::set_role(name);
        let _end = End(ended);
        if let Err(e) = work() {
            self.fail(name, e);
        }
    }

    /// Keeps the error of role `name` and stops the others at their next safe point.
    fn fail(&self, name: &str, error: Error) {
        interrupt::request();
        eprintln!("{name} failed: the other roles stop at their next safe point");
        self.failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(error.context(name.to_string()));
    }
}

/// Marks the end of a role when dropped; a role that panics stops the others too.
struct End<'a>(Option<&'a AtomicBool>);

impl Drop for End<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            interrupt::request();
        }
        if let Some(ended) = self.0 {
            ended.store(true, SeqCst);
        }
    }
}

/// Self-play until the budget is spent, a generation's games at a time.
fn self_play(
    cached: &CachedRun,
    config: &RunConfig,
    setup: GameSetup,
    best: BestNet,
    shared: &Shared,
) -> Result<()> {
    let tb = TbLogger::create(&cached.run().tb_dir().join("run"))?;
    let mut batches = Budgeted { shared, seed: config.seed, tb };
    let stop = || interrupt::requested() || shared.limit().is_some();
    crate::selfplay::follow(cached, config, &setup, best, None, &stop, &mut batches)
}

/// The trainer, following self-play's data.
fn train(
    cached: &CachedRun,
    config: &RunConfig,
    trainer: &mut Trainer,
    shared: &Shared,
) -> Result<()> {
    let until = follow::Until {
        limit: step_limit(config),
        stop: &|| out_of_time(&shared.budget, &shared.spent()),
        data_ended: &|| shared.selfplay_ended.load(SeqCst),
        trained: &|step| shared.step.store(step, SeqCst),
        budget_spent: &|| {
            Some(share_spent(&shared.budget, &shared.spent(), shared.step.load(SeqCst)))
        },
    };
    follow::follow(cached, trainer, &until)
}

/// The gate, until the trainer has ended and its last candidate is gated; then the final net
/// plays the anchors.
fn gate(
    cached: &CachedRun,
    config: &RunConfig,
    tables: Option<Arc<Tables>>,
    shared: &Shared,
) -> Result<()> {
    let mut tb = TbLogger::create(&cached.run().tb_dir().join("run"))?;
    let until = gate::Until {
        candidates_ended: &|| shared.training_ended.load(SeqCst),
        final_evaluation: true,
        run_clock: Some(&|| shared.spent()),
    };
    gate::follow(cached, config, tables, &mut tb, &until).map(drop)
}

/// Self-play's batches in a concurrent run: a generation's games at a time, seeded and counted
/// as in a sequential run, until the budget is spent.
struct Budgeted<'a> {
    shared: &'a Shared,
    seed: u64,
    tb: TbLogger,
}

impl Batches for Budgeted<'_> {
    fn next(&mut self) -> Result<Option<Batch>> {
        let spent = self.shared.spent();
        let step = self.shared.step.load(SeqCst);
        if interrupt::requested() || exhausted(&self.shared.budget, &spent, step).is_some() {
            return Ok(None);
        }
        let games = games_for_phase(&self.shared.budget, &spent);
        Ok(Some(Batch { games, seed: phase_seed(self.seed, spent.games) }))
    }

    fn written(&mut self, games: u64) -> Result<()> {
        self.shared.lock().add_games(games)
    }

    fn played(&mut self, best: &BestNet, report: &SessionReport) -> Result<()> {
        self.tb.selfplay(self.shared.step.load(SeqCst), &figures(&report.totals))?;
        progress::line(format!(
            "generation {}: {} games, {}",
            best.generation,
            report.totals.games,
            report.totals.describe()
        ));
        Ok(())
    }
}
