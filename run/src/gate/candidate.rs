//! The gate: a candidate plays the best net over the ballots; a promotion creates the next
//! generation's best-net pointer (create-if-absent, so of two evaluators only one promotes), and
//! every gate is recorded in the run's gate log (`RUN/gates.jsonl`, on S3 objects under `gates/`).

use crate::logs::{append_records, read_records};
use crate::run_state::relative_to_run;
use anyhow::Result;
use arena::{
    run_gate, Contestant, Entrant, GateConfig, GateRecord, NetOptions, NetSource, PlayerSpec,
    ResultRecord,
};
use egdb::Tables;
use runconfig::RunConfig;
use rundata::{BestNet, CachedRun, Log, Promotion, RunDir};
use std::path::Path;
use std::sync::Arc;
use train::{EvalFigures, TbLogger};

/// The training step of the newest candidate that was gated (0 when none was).
pub fn last_gated_step(run: &CachedRun) -> Result<u64> {
    Ok(read_gates(run)?.iter().filter_map(|g| g.candidate_step).max().unwrap_or(0))
}

/// Every gate record of the run, oldest first. A damaged line is reported and skipped.
pub fn read_gates(run: &CachedRun) -> Result<Vec<GateRecord>> {
    read_records(run, Log::Gates)
}

/// Gates the candidate of training step `step` against `best` (whose net is in the cache);
/// promotes it if it wins the gate and no other evaluator promoted a net for that generation
/// first (then the record says it was not promoted).
pub fn gate(
    cached: &CachedRun,
    config: &RunConfig,
    tables: Option<Arc<Tables>>,
    step: u64,
    best: &BestNet,
    tb: &mut TbLogger,
) -> Result<GateRecord> {
    let run = cached.run();
    let candidate_path = train::candidate_path(&run.nets_dir(), step);
    if let Some(key) = cached.key_of(&candidate_path) {
        cached.fetch(&key)?;
    }
    // With tables, the gate's searches take their positions as exact leaves and its games end
    // at the first one, as self-play's do.
    let options = NetOptions {
        playouts: config.gate.playouts,
        time: None,
        device: config.device,
        egdb: tables.clone(),
        nets: Some(model::players_loader()),
        ..NetOptions::default()
    };
    let candidate = net_entrant(run, &candidate_path, &options)?;
    let opponent = net_entrant(run, &run.root().join(&best.checkpoint), &options)?;
    let deck = arena::standard_deck()?;
    let gate_config = GateConfig { seed: config.seed ^ step, ..config.gate.clone() };
    progress::line(format!("  gate: {} against {}", candidate.name(), opponent.name()));
    let rules = config.selfplay.draw.into();
    let report = run_gate(&candidate, &opponent, &deck, rules, &gate_config, tables)?;
    let mut record = report.record;
    if record.promoted {
        record.promoted = promote(cached, &candidate_path, step, best)?;
    }
    append_records(cached, Log::Gates, std::slice::from_ref(&record))?;
    let results: Vec<ResultRecord> = report.games.iter().map(ResultRecord::of).collect();
    append_records(cached, Log::Results, &results)?;
    let elo = ladder_elo(cached, step)?;
    tb.evaluation(
        step,
        &EvalFigures {
            wins: record.wins.into(),
            draws: record.draws.into(),
            losses: record.losses.into(),
            elo: elo.as_ref().map_or(arena::elo_of_score(record.score), |(r, _)| r.elo) as f32,
            promoted: record.promoted,
        },
    )?;
    progress::line(format!(
        "  gate: +{} ={} -{} score {:.3} over {} games: {}",
        record.wins,
        record.draws,
        record.losses,
        record.score,
        record.games,
        match (record.promoted, record.decided_by) {
            (true, arena::DecidedBy::Always) => "promoted (gate.always_promote: no gate)",
            (true, _) => "promoted",
            (false, _) => "kept the best net",
        }
    ));
    if let Some((r, anchor)) = elo {
        progress::line(format!(
            "  ladder: the candidate at {:+.0} ± {:.0} Elo ({anchor} = 0)",
            r.elo, r.margin
        ));
    }
    Ok(record)
}

/// Promotes the candidate at `candidate_path` (of training step `step`) as the generation after
/// `best`'s; false when another evaluator took that generation first.
fn promote(cached: &CachedRun, candidate_path: &Path, step: u64, best: &BestNet) -> Result<bool> {
    let run = cached.run();
    let promoted = BestNet {
        checkpoint: relative_to_run(run, candidate_path),
        step,
        generation: best.generation + 1,
        promoted_at: support::unix_seconds(),
        promoted_by: Some(support::process_token()),
    };
    match cached.promote(&promoted)? {
        Promotion::Promoted(stored) if stored.generation != promoted.generation => {
            let (taken, asked) = (stored.generation, promoted.generation);
            progress::line(format!(
                "  gate: promoted as generation {taken}, above the damaged pointers from \
                 generation {asked}"
            ))
        }
        Promotion::Promoted(_) => {}
        Promotion::AlreadyTaken { by } => {
            progress::line(format!(
                "  gate: generation {} was taken first by {} (step {}): not promoted",
                by.generation,
                by.checkpoint.display(),
                by.step
            ));
            return Ok(false);
        }
    }
    Ok(true)
}

/// The ladder rating of the net of training step `step` over all the run's recorded games, and
/// the anchor ([`arena::default_anchor`]); `None` when the fit cannot say.
fn ladder_elo(run: &CachedRun, step: u64) -> Result<Option<(arena::Rating, String)>> {
    let results = read_records::<arena::ResultRecord>(run, Log::Results)?;
    let anchor = arena::default_anchor(&results);
    let rating = arena::rate(&arena::linked_to(&results, &anchor), &anchor)
        .ok()
        .and_then(|ratings| ratings.into_iter().find(|r| r.step == Some(step)));
    Ok(rating.map(|r| (r, anchor)))
}

fn net_entrant(run: &RunDir, checkpoint: &Path, options: &NetOptions) -> Result<Entrant> {
    let net =
        NetSource { checkpoint: checkpoint.to_path_buf(), run_dir: Some(run.root().to_path_buf()) };
    Ok(Entrant::load(&PlayerSpec::mcts(net, Some(options.playouts)), options)?)
}
