//! `checkers-zero gate`: the gatekeeper role. It gates the newest candidate the trainer published
//! (in the run's `nets/`) against the best net, promotes through the store (create-if-absent per
//! generation, so of several evaluators exactly one promotes each generation), records the gate
//! and its games, and plays the fixed anchors of `[eval]` when due. With `--follow` it waits for
//! the next candidate; on an S3 run it waits out an unreachable store. The gate thread of a
//! concurrent `run` runs the same loop ([`follow`]). One gate (the candidate against the best net,
//! the promotion, the records) is [`candidate`]; the games against the anchors are [`anchors`].

use crate::budget::Spent;
use crate::run_state::{ensure_best, open_run_options, RunDirOptions};
use crate::store_retry::{retry, sleep};
use progress::interrupt;
pub mod anchors;
pub mod candidate;

use anyhow::Result;
use candidate::{gate, last_gated_step};
use egdb::Tables;
use runconfig::RunConfig;
use rundata::{layout, BestNet, CachedRun};
use std::sync::Arc;
use std::time::Duration;
use train::TbLogger;

/// How long a following evaluator waits between two looks for a new candidate.
const POLL: Duration = Duration::from_secs(2);

/// What `checkers-zero gate` gates.
pub struct GateOptions {
    /// The run and its config.
    pub run: RunDirOptions,
    /// Keep waiting for new candidates instead of stopping when none is left (until Ctrl-C).
    pub follow: bool,
}

/// `checkers-zero gate`: gates the newest candidate, once or (`follow`) as each comes.
pub fn run(options: GateOptions) -> Result<()> {
    interrupt::install();
    let (cached, config) = retry("opening the run", || open_run_options(&options.run, "gate"))?;
    model::configure_cpu_threads(config.cpu_threads, 1);
    let tables = config.egdb.load()?;
    let mut tb = TbLogger::create(&cached.run().tb_dir().join("gate"))?;
    let until =
        Until { candidates_ended: &|| !options.follow, final_evaluation: false, run_clock: None };
    let gated = follow(&cached, &config, tables, &mut tb, &until)?;
    println!("gated {gated} candidates");
    Ok(())
}

/// When the evaluator's loop ends (besides Ctrl-C, which ends it before the next gate).
pub struct Until<'a> {
    /// No more candidates will come: the loop ends once the newest is gated.
    pub candidates_ended: &'a dyn Fn() -> bool,
    /// Then the best net plays the anchors of `[eval]` whether due or not (the final net).
    pub final_evaluation: bool,
    /// The run's time spent so far, where the loop runs inside `run` (for the evaluation
    /// records).
    pub run_clock: Option<&'a dyn Fn() -> Spent>,
}

/// Gates each new candidate and evaluates the best net against the anchors when due (after a
/// promotion, before the next gate), until `until` says the candidates ended; returns the gates
/// played. Waits out an unreachable store.
pub fn follow(
    cached: &CachedRun,
    config: &RunConfig,
    tables: Option<Arc<Tables>>,
    tb: &mut TbLogger,
    until: &Until,
) -> Result<u64> {
    let waiting = "the evaluator waits";
    let mut gated = 0;
    while !interrupt::requested() {
        // Read first: a candidate written before the end is then in the listing below.
        let ended = (until.candidates_ended)();
        let (best, candidate) = retry(waiting, || next_candidate(cached, config))?;
        let last = ended && candidate.is_none() && until.final_evaluation;
        let spent = until.run_clock.map(|clock| clock());
        let due = || anchors::due(cached, config, &best, last, spent.map(|s| s.wall_seconds));
        let opponents = retry(waiting, due)?;
        if !opponents.is_empty() {
            let evaluate = || {
                let tables = tables.clone();
                anchors::evaluate(cached, config, tables, &best, &opponents, spent, tb)
            };
            retry(waiting, evaluate)?;
        } else if let Some(step) = candidate {
            retry(waiting, || gate(cached, config, tables.clone(), step, &best, tb))?;
            gated += 1;
        } else if ended {
            break;
        } else {
            sleep(POLL);
        }
    }
    Ok(gated)
}

/// The best net (in the cache) and the newest candidate's step, when one newer than the best
/// net and the last gated candidate is in the store.
fn next_candidate(cached: &CachedRun, config: &RunConfig) -> Result<(BestNet, Option<u64>)> {
    let best = ensure_best(cached, config)?;
    let done = last_gated_step(cached)?.max(best.step);
    let newest =
        cached.store().list(layout::NETS)?.iter().filter_map(|key| candidate_step(key)).max();
    Ok((best, newest.filter(|&step| step > done)))
}

/// The training step a candidate's key names: `nets/step-0000000120.safetensors` is 120.
fn candidate_step(key: &str) -> Option<u64> {
    let name = key.rsplit('/').next()?;
    name.strip_prefix("step-")?.strip_suffix(".safetensors")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidate_keys_name_their_step_and_nothing_else_does() {
        let key = train::candidate_path(std::path::Path::new("nets"), 120);
        assert_eq!(candidate_step(key.to_str().unwrap()), Some(120));
        for other in [
            "nets/.step-0000000120.safetensors.1-0.tmp",
            "nets/notes.txt",
            "nets/step-x.safetensors",
        ] {
            assert_eq!(candidate_step(other), None, "{other}");
        }
    }
}
