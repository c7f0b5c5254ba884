//! `checkers-zero run`: the whole loop on one machine: self-play with the best net, training on
//! the new data, the gate (candidate against best) which may promote the candidate, and the best
//! net against the fixed anchors of `[eval]` after a promotion. `run.mode` says how: one after the
//! other, a generation at a time ([`sequential`]), or all at once in threads of their own
//! ([`concurrent`]). Every step is on disk, so a killed run resumes where it was.

mod concurrent;
mod sequential;

use crate::budget::Progress;
use crate::run_state::{open_run_options, RunDirOptions};
use crate::selfplay::GameSetup;
use crate::train::open_trainer;
use anyhow::{bail, Result};
use progress::interrupt;
use runconfig::{BudgetConfig, RunConfig, RunMode};
use rundata::{CachedRun, RunDir};
use train::{SelfPlayFigures, Trainer};

/// What `checkers-zero run` runs: the run, and a budget of this call's own. A limit given here
/// replaces the config's whole budget: the limits not given are then off.
pub struct RunOptions {
    /// The run and its config.
    pub run: RunDirOptions,
    /// Total training steps.
    pub train_steps: Option<u64>,
    /// Total self-play games.
    pub selfplay_games: Option<u64>,
    /// Total wall-clock minutes.
    pub wall_minutes: Option<f64>,
    /// Total hours of the run process's CPU time.
    pub cpu_hours: Option<f64>,
}

impl RunOptions {
    /// The budget of this call: `config`'s, or, when any limit is given, those limits alone.
    fn budget(&self, config: &BudgetConfig) -> BudgetConfig {
        let given = self.train_steps.is_some()
            || self.selfplay_games.is_some()
            || self.wall_minutes.is_some()
            || self.cpu_hours.is_some();
        if !given {
            return *config;
        }
        BudgetConfig {
            train_steps: self.train_steps.unwrap_or(0),
            selfplay_games: self.selfplay_games.unwrap_or(0),
            wall_minutes: self.wall_minutes.unwrap_or(0.0),
            cpu_hours: self.cpu_hours.unwrap_or(0.0),
            ..*config
        }
    }
}

/// `checkers-zero run`: the whole loop on one machine until the budget is spent.
pub fn run(options: RunOptions) -> Result<()> {
    interrupt::install();
    let (cached, mut config) = open_run_options(&options.run, "run")?;
    if cached.is_remote() {
        bail!(
            "{}: `run` is the one-machine loop and needs a local --run-dir; on object storage start \
             the roles instead: `selfplay --follow`, `train --follow` and `gate --follow` (see \
             docs/many-machines.md)",
            cached.location()
        );
    }
    let run = cached.run();
    config.budget = options.budget(&config.budget);
    config.validate()?;
    println!("run {} (config kept in {})", run.root().display(), run.config_file().display());
    let progress = Progress::open(run)?;
    // The endgame tables (checked once) for the trainer, every self-play phase and every gate;
    // the openings deck (read once) for self-play.
    let tables = config.egdb.load()?;
    let trainer = open_trainer(run, &config, tables.as_deref())?;
    let setup = GameSetup::new(tables, &config)?;
    let parts = Parts { cached: &cached, config: &config, setup, trainer, progress };
    match config.run.mode {
        RunMode::Sequential => sequential::run_generations(parts)?,
        RunMode::Concurrent => concurrent::run_roles_at_once(parts)?,
    }
    print_outcome(run)
}

/// What both modes drive: the run, opened, with its trainer and spent budget.
struct Parts<'a> {
    cached: &'a CachedRun,
    config: &'a RunConfig,
    setup: GameSetup,
    trainer: Trainer,
    progress: Progress,
}

/// The seed of a self-play phase: the run's seed and how far the run is, so a resumed run
/// neither repeats games nor depends on where it stopped.
fn phase_seed(seed: u64, games_so_far: u64) -> u64 {
    selfplay::worker::game_seed(seed, u64::MAX - games_so_far)
}

/// The training step limit of the budget (none: `u64::MAX`).
fn step_limit(config: &RunConfig) -> u64 {
    if config.budget.train_steps > 0 {
        config.budget.train_steps
    } else {
        u64::MAX
    }
}

fn figures(t: &selfplay::SessionTotals) -> SelfPlayFigures {
    SelfPlayFigures {
        games_per_s: t.games_per_sec() as f32,
        positions_per_s: (t.samples as f64 / t.elapsed.as_secs_f64().max(1e-9)) as f32,
        mean_game_length: t.mean_length() as f32,
        wins: t.black_wins,
        draws: t.draws,
        losses: t.white_wins,
        resign_false_positive_rate: (t.resign_checks > 0)
            .then(|| t.resign_false_positives as f32 / t.resign_checks as f32),
        rescored: t.rescored,
    }
}

fn print_outcome(run: &RunDir) -> Result<()> {
    let spent = Progress::open(run)?.spent();
    println!(
        "spent over all its sessions: {} self-play games, {:.3} hours of wall time, {:.3} CPU hours",
        spent.games,
        spent.wall_seconds / 3600.0,
        spent.cpu_seconds / 3600.0
    );
    if let Some(best) = run.best()? {
        let root = run.root().display();
        println!(
            "best net: {} (generation {}, step {}); see `checkers-zero ladder {root}`",
            run.root().join(&best.checkpoint).display(),
            best.generation,
            best.step,
        );
        println!("next: play it in the browser: checkers-zero serve --run-dir {root}");
        println!("      rate it:  checkers-zero match mcts:{root} alphabeta --time 0.1");
        // The budget is the run's total: half an hour more than it has spent.
        let minutes = (spent.wall_seconds / 60.0).ceil() + 30.0;
        println!("      train on: checkers-zero run --run-dir {root} --wall-minutes {minutes}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(wall_minutes: Option<f64>, cpu_hours: Option<f64>) -> RunOptions {
        let run = RunDirOptions { run_dir: String::new(), cache: None, config: None, commit: "" };
        RunOptions { run, train_steps: None, selfplay_games: None, wall_minutes, cpu_hours }
    }

    #[test]
    fn a_budget_on_the_command_line_replaces_the_configs_whole_budget() {
        let config = BudgetConfig {
            selfplay_games: 16,
            wall_minutes: 5.0,
            games_per_generation: 8,
            ..BudgetConfig::default()
        };
        assert_eq!(options(None, None).budget(&config), config);
        let cpu = BudgetConfig {
            train_steps: 0,
            selfplay_games: 0,
            wall_minutes: 0.0,
            cpu_hours: 8.0,
            games_per_generation: 8,
        };
        assert_eq!(options(None, Some(8.0)).budget(&config), cpu);
        let both = options(Some(600.0), Some(8.0)).budget(&config);
        assert_eq!(both, BudgetConfig { wall_minutes: 600.0, ..cpu });
    }
}
