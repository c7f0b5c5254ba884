//! Evaluation inside a run (`[eval]`): the best net plays each fixed opponent over the same
//! ballots after a promotion (at most every `every_minutes`), and once more at the end of the run
//! for the final net; with `earlier_minutes`, also the run's net of that long before (a relative
//! curve that a beaten-every-time anchor cannot give). Each result goes to the evaluation log
//! `RUN/eval.jsonl` (one record per net and opponent; on S3 objects under `eval/`), its games to
//! the results log `games/results.jsonl` (so the ladder rates the run against the anchors),
//! TensorBoard (`eval/<opponent>/score`, `.../elo`, `.../elo_low`, `.../elo_high`) and the progress
//! output.

use crate::budget::Spent;
use crate::logs::{append_records, read_records};
use crate::run_state::fetch_checkpoint;
use anyhow::{Context, Result};
use arena::{play_anchor, Entrant, EvalRecord, NetOptions, NetSource, PlayerSpec, ResultRecord};
use egdb::Tables;
use runconfig::RunConfig;
use rundata::{BestNet, CachedRun, Log};
use std::path::Path;
use std::sync::Arc;
use train::TbLogger;

/// Every evaluation record of the run, oldest first; a damaged line is reported and skipped.
pub fn read_evaluations(run: &CachedRun) -> Result<Vec<EvalRecord>> {
    read_records(run, Log::Evaluations)
}

/// An opponent of an evaluation.
#[derive(Clone, Debug, PartialEq)]
pub enum Opponent {
    /// One of `eval.opponents`, as written there.
    Fixed(String),
    /// The run's net of `eval.earlier_minutes` before, as the evaluation that last played it
    /// recorded it.
    Earlier(EvalRecord),
}

/// The opponents `best` has not played yet, when an evaluation is due: always at the end of the
/// run (`last`), else when `every_minutes` of the run's time have passed since the last
/// evaluation ([`since_last`]). The run's
/// earlier net is among them when `eval.earlier_minutes` is on, the run's clock (`run_seconds`,
/// now) is known and a net older than `best` was evaluated at least that long ago: the newest
/// such net whose file is still there.
pub fn due(
    run: &CachedRun,
    config: &RunConfig,
    best: &BestNet,
    last: bool,
    run_seconds: Option<f64>,
) -> Result<Vec<Opponent>> {
    let done = read_evaluations(run)?;
    let played = |opponent: &dyn Fn(&EvalRecord) -> bool| {
        done.iter().any(|r| r.generation == best.generation && opponent(r))
    };
    let mut missing: Vec<Opponent> = config
        .eval
        .opponents
        .iter()
        .filter(|o| !played(&|r| opponent_is(r, o)))
        .map(|o| Opponent::Fixed(o.clone()))
        .collect();
    if let (Some(label), Some(now)) = (config.eval.earlier_label(), run_seconds) {
        if !played(&|r| r.opponent == label) {
            let cutoff = now - config.eval.earlier_minutes * 60.0;
            let mut earlier: Vec<&EvalRecord> = done
                .iter()
                .filter(|r| r.generation < best.generation)
                .filter(|r| r.run_seconds.is_some_and(|t| t <= cutoff))
                .collect();
            earlier.sort_by(|a, b| {
                b.run_seconds.unwrap_or(0.0).total_cmp(&a.run_seconds.unwrap_or(0.0))
            });
            let playable = earlier.into_iter().find(|r| has_net(run, r));
            missing.extend(playable.cloned().map(Opponent::Earlier));
        }
    }
    let started = done.iter().any(|r| r.generation == best.generation);
    let waited = since_last(&done, run_seconds) >= config.eval.every_minutes * 60.0;
    Ok(if last || started || waited { missing } else { Vec::new() })
}

/// Seconds since the last evaluation of `done` began (infinite before the first): on the run's
/// clock `now` when it and every record have it, so that the time a run spent stopped between
/// sessions does not count, else on the wall clock since the last evaluation ended.
/// (A record ahead of the run's clock, from a run whose progress was lost, falls back to the wall
/// clock too.)
fn since_last(done: &[EvalRecord], now: Option<f64>) -> f64 {
    let on_run_clock =
        done.iter().try_fold(f64::INFINITY, |least, r| Some(least.min(now? - r.run_seconds?)));
    match on_run_clock {
        Some(seconds) if seconds >= 0.0 => seconds,
        _ => done
            .iter()
            .map(|r| support::unix_seconds().saturating_sub(r.unix_time) as f64)
            .fold(f64::INFINITY, f64::min),
    }
}

/// Whether the net `record` evaluated is still there to play (a record written before records
/// named their net is not; nor a net removed from a run moved without its older candidates).
fn has_net(run: &CachedRun, record: &EvalRecord) -> bool {
    let Some(checkpoint) = record.checkpoint.as_deref() else { return false };
    fetch_checkpoint(run, Path::new(checkpoint)).is_ok_and(|path| path.is_file())
}

/// Whether `record` is a game against the opponent configured as `spec`: by the spec it keeps, or
/// in a record written before records kept it, by the player's name (an `alphabeta` without a
/// budget is recorded under its time, e.g. `alphabeta:0.1s`).
fn opponent_is(record: &EvalRecord, spec: &str) -> bool {
    match &record.spec {
        Some(recorded) => recorded == spec,
        None => {
            record.opponent == spec
                || spec == "alphabeta" && record.opponent.starts_with("alphabeta:")
        }
    }
}

/// Plays `best` against each of `opponents` and records the results; `spent` is the run's wall
/// and CPU time now, when the caller keeps them (the learning curve's clocks).
pub fn evaluate(
    run: &CachedRun,
    config: &RunConfig,
    tables: Option<Arc<Tables>>,
    best: &BestNet,
    opponents: &[Opponent],
    spent: Option<Spent>,
    tb: &mut TbLogger,
) -> Result<()> {
    let eval = &config.eval;
    let options = NetOptions {
        playouts: eval.playouts.max(1),
        time: Some(eval.time_per_move()),
        device: config.device,
        egdb: tables.clone(),
        nets: Some(model::players_loader()),
        ..NetOptions::default()
    };
    let playouts = (eval.playouts > 0).then_some(eval.playouts);
    let run_net = |checkpoint: &Path| -> Result<Entrant> {
        let checkpoint = fetch_checkpoint(run, checkpoint)?;
        let net = NetSource { checkpoint, run_dir: Some(run.run().root().into()) };
        Ok(Entrant::load(&PlayerSpec::mcts(net, playouts), &options)?)
    };
    let player = run_net(&best.checkpoint)?;
    let deck = arena::standard_deck()?;
    let rules = config.selfplay.draw.into();
    for opponent in opponents {
        let (entrant, label, spec) = match opponent {
            Opponent::Fixed(spec) => {
                let mut entrant = Entrant::load(&spec.parse()?, &options)
                    .with_context(|| format!("`eval.opponents`: {spec}"))?;
                // In this run's records a bare `step-N` of another run's net would be its own.
                entrant.qualify_outside(run.run().root());
                (entrant, None, Some(spec.clone()))
            }
            Opponent::Earlier(record) => {
                let checkpoint = record.checkpoint.as_deref().unwrap_or_default();
                (run_net(Path::new(checkpoint))?, eval.earlier_label(), None)
            }
        };
        let (mut record, games) =
            play_anchor(&player, &entrant, &deck, rules, eval, config.seed, tables.clone())?;
        record.spec = spec;
        record.generation = best.generation;
        record.run_seconds = spent.map(|s| s.wall_seconds);
        record.run_cpu_seconds = spent.map(|s| s.cpu_seconds);
        record.checkpoint = best.checkpoint.to_str().map(str::to_string);
        // The earlier net is recorded under its label, so that its evaluations form one curve;
        // its games in the results log name the net itself.
        let earlier_net = label.map(|label| std::mem::replace(&mut record.opponent, label));
        let results: Vec<ResultRecord> = games.iter().map(ResultRecord::of).collect();
        append_records(run, Log::Results, &results)?;
        append_records(run, Log::Evaluations, std::slice::from_ref(&record))?;
        log(tb, &record)?;
        let which = earlier_net.map_or_else(String::new, |net| format!(", the earlier net {net}"));
        progress::line(format!("  {}{which}", describe(&record)));
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

#[cfg(test)]
mod tests {
    use super::*;
    use arena::Tally;

    const SPARSE: &str = "[net]\nkind = \"sparse\"\n";

    /// The run of the tests' records: a temporary folder.
    fn temporary_run() -> (tempfile::TempDir, CachedRun) {
        let dir = tempfile::tempdir().unwrap();
        let run = CachedRun::open(dir.path().to_str().unwrap(), None, "test").unwrap();
        (dir, run)
    }

    /// A sparse run's config with `eval` keys (TOML lines).
    fn eval_config(keys: &str) -> RunConfig {
        RunConfig::parse(&format!("{SPARSE}[eval]\n{keys}")).unwrap()
    }

    /// The best net of generation `generation`.
    fn best_net(generation: u32) -> BestNet {
        BestNet {
            checkpoint: format!("nets/gen-{generation}.safetensors").into(),
            step: u64::from(generation) * 100,
            generation,
            promoted_at: 0,
            promoted_by: None,
        }
    }

    #[test]
    fn an_opponent_counts_as_played_by_the_spec_its_record_keeps() {
        let (dir, run) = temporary_run();
        let other = dir.path().join("other.safetensors");
        std::fs::write(&other, b"a net").unwrap();
        let other = format!("mcts:{}", other.display());
        let config = eval_config(&format!("opponents = [\"{other}\", \"alphabeta\"]"));
        let due = || due(&run, &config, &best_net(3), false, Some(100.0)).unwrap();
        let fixed = |spec: &str| Opponent::Fixed(spec.into());
        // A net's player name is not its spec: its record keeps the spec.
        let net = EvalRecord { spec: Some(other), ..record(3, "mcts:other:8", 50.0, true) };
        append_records(&run, Log::Evaluations, &[net]).unwrap();
        assert_eq!(due(), [fixed("alphabeta")]);
        // A fixed-depth `alphabeta:4` is not the equal-time `alphabeta`.
        let depth =
            EvalRecord { spec: Some("alphabeta:4".into()), ..record(3, "alphabeta:4", 50.0, true) };
        append_records(&run, Log::Evaluations, &[depth]).unwrap();
        assert_eq!(due(), [fixed("alphabeta")]);
        // A record written before records kept their spec: matched by the player's name.
        append_records(&run, Log::Evaluations, &[record(3, "alphabeta:0.10s", 50.0, true)])
            .unwrap();
        assert_eq!(due(), []);
    }

    #[test]
    fn evaluations_are_spaced_on_the_run_s_clock_when_the_records_have_it() {
        let (_dir, run) = temporary_run();
        let config = eval_config("opponents = [\"alphabeta:1\"]\nevery_minutes = 10.0");
        let due = |now| due(&run, &config, &best_net(2), false, now).unwrap();
        // Generation 1's evaluation, long ago on the wall clock (a run stopped for a day), began
        // 1000 s into the run.
        append_records(&run, Log::Evaluations, &[record(1, "alphabeta:1", 1000.0, true)]).unwrap();
        assert_eq!(due(Some(1300.0)), [], "5 minutes of the run since");
        assert_eq!(due(Some(1600.0)), [Opponent::Fixed("alphabeta:1".into())]);
        // Without the run's clock, or with one behind the record's: the wall clock decides.
        assert_eq!(due(None), [Opponent::Fixed("alphabeta:1".into())]);
        assert_eq!(due(Some(10.0)), [Opponent::Fixed("alphabeta:1".into())]);
    }

    /// A record of generation `generation` against `opponent`, played `run_seconds` into the run.
    fn record(generation: u32, opponent: &str, run_seconds: f64, checkpoint: bool) -> EvalRecord {
        EvalRecord {
            generation,
            step: u64::from(generation) * 100,
            net: format!("mcts:gen-{generation}:8"),
            opponent: opponent.into(),
            spec: None,
            tally: Tally { wins: 1, draws: 0, losses: 1 },
            score: 0.5,
            unix_time: 0,
            seconds: 1.0,
            run_seconds: Some(run_seconds),
            run_cpu_seconds: None,
            checkpoint: checkpoint.then(|| format!("nets/gen-{generation}.safetensors")),
        }
    }

    #[test]
    fn the_earlier_net_is_the_newest_one_evaluated_at_least_that_long_before() {
        let (dir, run) = temporary_run();
        let config = eval_config("opponents = [\"alphabeta:1\"]\nearlier_minutes = 60.0");
        let records = [
            record(1, "alphabeta:1", 100.0, true),
            record(2, "alphabeta:1", 1000.0, true),
            record(3, "alphabeta:1", 1050.0, false), // written before records named their net
            record(4, "alphabeta:1", 3000.0, true),
        ];
        append_records(&run, Log::Evaluations, &records).unwrap();
        for generation in [1, 2, 4] {
            let net = dir.path().join(format!("nets/gen-{generation}.safetensors"));
            std::fs::write(net, b"a net").unwrap();
        }
        let due = |now: Option<f64>| due(&run, &config, &best_net(5), false, now).unwrap();
        let fixed = Opponent::Fixed("alphabeta:1".into());
        // 4700 s in, the cutoff is 1100 s: generation 2 (3 names no net, 4 is too recent).
        assert_eq!(due(Some(4700.0)), [fixed.clone(), Opponent::Earlier(records[1].clone())]);
        // Before an hour has passed since any evaluation, or without the run's clock: none.
        assert_eq!(due(Some(3000.0)), std::slice::from_ref(&fixed));
        assert_eq!(due(None), std::slice::from_ref(&fixed));
        // Generation 2's file gone (a run moved without its older nets): the one before it.
        std::fs::remove_file(dir.path().join("nets/gen-2.safetensors")).unwrap();
        assert_eq!(due(Some(4700.0)), [fixed.clone(), Opponent::Earlier(records[0].clone())]);
        // Played once, not again for the same net; the label names the minutes.
        let label = config.eval.earlier_label().unwrap();
        assert_eq!(label, "earlier:60m");
        append_records(&run, Log::Evaluations, &[record(5, &label, 4700.0, true)]).unwrap();
        assert_eq!(due(Some(9000.0)), [fixed]);
    }
}
