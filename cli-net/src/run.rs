//! `checkers-zero run`: the whole loop on one machine. Each generation: self-play with the best
//! net, training on the new data, then the gate (candidate against best) which may promote the
//! candidate, and the best net plays the fixed anchors of `[eval]` after a promotion. Every step is
//! on disk, so a killed run resumes where it was.

use crate::budget::{exhausted, games_for_phase, Progress};
use crate::evaluation;
use crate::gating::{gate, last_gated_step};
use crate::interrupt;
use crate::run_state::{ensure_best, open_run_args, set_cpu_threads};
use crate::selfplay::{describe, play_games};
use crate::train::{endgame_line, open_trainer, train_paid_steps, warn_damaged};
use anyhow::{bail, Result};
use cli::net_commands::RunArgs;
use rundata::RunDir;
use train::{SelfPlayFigures, TbLogger};

pub fn run(args: RunArgs) -> Result<()> {
    interrupt::install();
    let (cached, mut config) = open_run_args(&args.run, "run")?;
    if cached.is_remote() {
        bail!(
            "{}: `run` is the one-machine loop and needs a local --run-dir; on object storage start \
             the roles instead: `selfplay --follow`, `train --follow` and `gate --follow` (see \
             docs/many-machines.md)",
            cached.location()
        );
    }
    let run = cached.run();
    let budget = &mut config.budget;
    budget.train_steps = args.train_steps.unwrap_or(budget.train_steps);
    budget.selfplay_games = args.selfplay_games.unwrap_or(budget.selfplay_games);
    budget.wall_minutes = args.wall_minutes.unwrap_or(budget.wall_minutes);
    config.validate()?;
    println!("run {} (config kept in {})", run.root().display(), run.config_file().display());
    let mut progress = Progress::open(run)?;
    // The endgame tables (checked once) for the trainer, every self-play phase and every gate.
    let tables = config.egdb.load()?;
    let mut trainer = open_trainer(run, &config, tables.as_deref())?;
    let mut tb = TbLogger::create(&run.tb_dir().join("run"))?;
    loop {
        let best = ensure_best(&cached, &config)?;
        if interrupt::requested() {
            println!("stopped by Ctrl-C; run the same command again to resume");
            break;
        }
        // The newest candidate is gated before anything else (also after a resume).
        if trainer.step() > last_gated_step(&cached)?.max(best.step) {
            gate(&cached, &config, tables.clone(), trainer.step(), &best, &mut tb)?;
            continue;
        }
        let spent = progress.spent();
        let limit = exhausted(&config.budget, &spent, trainer.step());
        // The best net against the fixed anchors: when due, and for the final net.
        let opponents = evaluation::due(&cached, &config, &best, limit.is_some())?;
        if !opponents.is_empty() {
            evaluation::evaluate(&cached, &config, tables.clone(), &best, &opponents, &mut tb)?;
            progress.save()?;
        }
        if let Some(limit) = limit {
            println!("budget reached: {limit}");
            break;
        }
        let generation = best.generation;
        println!("generation {generation}: self-play with {}", best.checkpoint.display());
        let games = games_for_phase(&config.budget, &spent);
        let seed = phase_seed(config.seed, spent.games);
        let report =
            play_games(run, &config, tables.clone(), &best, games, seed, None, |written| {
                progress.add_games(written)
            })?;
        tb.selfplay(trainer.step(), &figures(&report.totals))?;
        println!("  {}", describe(&report.totals));
        set_cpu_threads(&config, 1);
        warn_damaged(&trainer.refresh()?);
        let limit =
            if config.budget.train_steps > 0 { config.budget.train_steps } else { u64::MAX };
        let trained = train_paid_steps(&mut trainer, limit)?;
        if trained > 0 {
            trainer.checkpoint()?;
            if let Some(line) = endgame_line(&mut trainer) {
                println!("  {line}");
            }
            println!(
                "  trained to step {} ({} positions in the window)",
                trainer.step(),
                trainer.replay().len()
            );
        } else {
            println!(
                "  collecting data: {} of {} positions before training starts",
                trainer.replay().len(),
                trainer.config().min_positions
            );
        }
        progress.save()?;
    }
    progress.save()?;
    print_outcome(run)
}

/// The seed of a self-play phase: the run's seed and how far the run is, so a resumed run
/// neither repeats games nor depends on where it stopped.
fn phase_seed(seed: u64, games_so_far: u64) -> u64 {
    selfplay::worker::game_seed(seed, u64::MAX - games_so_far)
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
    }
}

fn print_outcome(run: &RunDir) -> Result<()> {
    if let Some(best) = run.best()? {
        println!(
            "best net: {} (generation {}, step {}); see `checkers-zero ladder {}`",
            run.root().join(&best.checkpoint).display(),
            best.generation,
            best.step,
            run.root().display()
        );
    }
    Ok(())
}
