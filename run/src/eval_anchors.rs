//! Evaluation inside a run (`[eval]`): the best net plays each fixed opponent over the same
//! ballots after a promotion (at most every `every_minutes`), and once more at the end of the run
//! for the final net. Each result goes to the evaluation log `RUN/eval.jsonl` (one record per net
//! and opponent; on S3 objects under `eval/`), its games to the results log
//! `games/results.jsonl` (so the ladder rates the run against the anchors), TensorBoard
//! (`eval/<opponent>/score`, `.../elo`, `.../elo_low`, `.../elo_high`) and the progress output.

use crate::logs::{append_records, read_records};
use crate::run_state::fetch_net;
use anyhow::{Context, Result};
use arena::{play_anchor, Entrant, EvalRecord, NetOptions, NetSource, PlayerSpec, ResultRecord};
use cli::progress;
use egdb::Tables;
use runconfig::RunConfig;
use rundata::{BestNet, CachedRun, Log};
use std::sync::Arc;
use train::TbLogger;

/// Every evaluation record of the run, oldest first; a damaged line is reported and skipped.
pub fn read_evaluations(run: &CachedRun) -> Result<Vec<EvalRecord>> {
    read_records(run, Log::Evaluations, "an evaluation record")
}

/// The opponents `best` has not played yet, when an evaluation is due: always at the end of the
/// run (`last`), else when `every_minutes` have passed since the last evaluation.
pub fn due(run: &CachedRun, config: &RunConfig, best: &BestNet, last: bool) -> Result<Vec<String>> {
    let done = read_evaluations(run)?;
    let missing: Vec<String> = config
        .eval
        .opponents
        .iter()
        .filter(|o| !done.iter().any(|r| r.generation == best.generation && opponent_is(r, o)))
        .cloned()
        .collect();
    let started = done.iter().any(|r| r.generation == best.generation);
    let latest = done.iter().map(|r| r.unix_time).max();
    let waited = latest.is_none_or(|t| {
        support::unix_seconds().saturating_sub(t) as f64 >= config.eval.every_minutes * 60.0
    });
    Ok(if last || started || waited { missing } else { Vec::new() })
}

/// Whether `record` is a game against the opponent configured as `spec` (an `alphabeta` without
/// a budget is recorded under its time, e.g. `alphabeta:0.1s`).
fn opponent_is(record: &EvalRecord, spec: &str) -> bool {
    record.opponent == spec || spec == "alphabeta" && record.opponent.starts_with("alphabeta:")
}

/// Plays `best` against each of `opponents` and records the results; `run_seconds` is the run's
/// wall time now, when the caller keeps it (the learning curve's clock).
pub fn evaluate(
    run: &CachedRun,
    config: &RunConfig,
    tables: Option<Arc<Tables>>,
    best: &BestNet,
    opponents: &[String],
    run_seconds: Option<f64>,
    tb: &mut TbLogger,
) -> Result<()> {
    let eval = &config.eval;
    let options = NetOptions {
        playouts: eval.playouts.max(1),
        time: Some(eval.time_per_move()),
        device: config.device,
        egdb: tables.clone(),
        nets: Some(model::players_loader()),
    };
    let net = NetSource {
        checkpoint: fetch_net(run, best)?,
        run_dir: Some(run.run().root().to_path_buf()),
    };
    let playouts = (eval.playouts > 0).then_some(eval.playouts);
    let player = Entrant::load(&PlayerSpec::mcts(net, playouts), &options)?;
    let deck = arena::standard_deck()?;
    let rules = config.selfplay.draw.into();
    for spec in opponents {
        let opponent = Entrant::load(&spec.parse()?, &options)
            .with_context(|| format!("`eval.opponents`: {spec}"))?;
        let (mut record, games) =
            play_anchor(&player, &opponent, &deck, rules, eval, config.seed, tables.clone())?;
        record.generation = best.generation;
        record.run_seconds = run_seconds;
        let results: Vec<ResultRecord> = games.iter().map(ResultRecord::of).collect();
        append_records(run, Log::Results, &results)?;
        append_records(run, Log::Evaluations, std::slice::from_ref(&record))?;
        log(tb, &record)?;
        progress::line(format!("  {}", describe(&record)));
    }
    tb.flush()?;
    Ok(())
}

fn log(tb: &mut TbLogger, r: &EvalRecord) -> Result<()> {
    let tag = |what: &str| format!("eval/{}/{what}", r.opponent);
    tb.scalar(&tag("score"), r.score as f32, r.step)?;
    // An interval end is infinite after a clean sweep: TensorBoard gets the finite figures only.
    let elo = r.elo();
    for (what, elo) in [("elo", elo.elo), ("elo_low", elo.low), ("elo_high", elo.high)] {
        if elo.is_finite() {
            tb.scalar(&tag(what), elo as f32, r.step)?;
        }
    }
    Ok(())
}

/// One line: `eval: NET vs OPPONENT: +W =D -L score S, Elo E [LOW, HIGH] (N games, T s)`.
fn describe(r: &EvalRecord) -> String {
    format!(
        "eval: {} vs {}: +{} ={} -{} score {:.3}, Elo {} ({} games, {:.1} s)",
        r.net,
        r.opponent,
        r.tally.wins,
        r.tally.draws,
        r.tally.losses,
        r.score,
        r.elo(),
        r.tally.games(),
        r.seconds
    )
}
