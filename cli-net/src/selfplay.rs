//! `checkers-zero selfplay`: self-play games with the run's best net into its trajectory shards.
//! Several of these may run beside a `run` on the same run directory.

use crate::interrupt;
use crate::run_state::{ensure_best, load_inference, open_run_args, set_cpu_threads};
use anyhow::Result;
use cli::net_commands::SelfplayArgs;
use cli::progress;
use egdb::Tables;
use rundata::{BestNet, RunDir};
use selfplay::{NetEvaluator, Session, SessionReport, SessionTotals};
use std::sync::Arc;

pub fn run(args: SelfplayArgs) -> Result<()> {
    interrupt::install();
    let (run, mut config) = open_run_args(&args.run)?;
    if let Some(workers) = args.workers {
        config.selfplay.workers = workers;
        config.validate()?;
    }
    let best = ensure_best(&run, &config)?;
    let games = args.games.unwrap_or(config.budget.games_per_generation);
    // Separate processes must not replay each other's games: mix the process into the seed.
    let seed = config.seed ^ (u64::from(std::process::id()) << 32) ^ crate::run_state::unix_now();
    let tables = config.egdb.load()?;
    let report = play_games(&run, &config, tables, &best, games, seed, |_| Ok(()))?;
    print_summary(&report);
    Ok(())
}

/// Plays `games` games with `best` (and the run's endgame `tables`, loaded once by the caller)
/// into the run's shards, with a progress bar. `written(n)` is
/// called as soon as `n` more games are on disk in shards (so a caller can count them before a
/// crash could forget them); its first error ends the session's counting and is returned.
pub fn play_games(
    run: &RunDir,
    config: &crate::config::RunConfig,
    tables: Option<Arc<Tables>>,
    best: &BestNet,
    games: u64,
    seed: u64,
    mut written: impl FnMut(u64) -> Result<()>,
) -> Result<SessionReport> {
    set_cpu_threads(config, config.selfplay.workers);
    let net_path = run.root().join(&best.checkpoint);
    let generation = Some(best.generation);
    let session = Session { run, config: &config.selfplay, seed, generation, tables };
    let bar = progress::bar(games, "games");
    bar.set_message(format!("generation {}", best.generation));
    let mut counted = Ok(0);
    let mut count = |total: u64| {
        if let Ok(done) = counted {
            counted = written(total - done).map(|()| total);
        }
    };
    let report = session.play(
        games,
        |_| load_inference(&net_path, config).map(NetEvaluator::new).map_err(|e| format!("{e:#}")),
        &interrupt::requested,
        |totals| {
            bar.set_position(totals.games);
            bar.set_message(describe(totals));
            count(totals.written);
        },
    )?;
    count(report.totals.written); // the last shard lands after the last game
    bar.finish();
    counted?;
    Ok(report)
}

/// One line: rates, mean game length and results.
pub fn describe(t: &SessionTotals) -> String {
    format!(
        "{:.2} games/s  {:.0} pos/s  mean {:.0} plies  B/D/W {}/{}/{}",
        t.games_per_sec(),
        t.samples as f64 / t.elapsed.as_secs_f64().max(1e-9),
        t.mean_length(),
        t.black_wins,
        t.draws,
        t.white_wins
    )
}

fn print_summary(report: &SessionReport) {
    let w = &report.workers;
    println!(
        "self-play: {} games, {} samples ({})",
        report.totals.games,
        report.totals.samples,
        describe(&report.totals)
    );
    println!(
        "net: {} positions in {} batches (mean batch {:.0}), busy {:.0}% of the time",
        w.positions,
        w.batches,
        w.positions as f64 / w.batches.max(1) as f64,
        100.0 * w.net_busy_share()
    );
}
