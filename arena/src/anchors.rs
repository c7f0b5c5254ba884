//! Evaluation against fixed anchors: a net plays each fixed opponent (`alphabeta:4`, an
//! equal-time `alphabeta`, ...) over the same ballots with both colours. Unlike the gates' chain of
//! candidate-against-best matches, whose ratings drift with every link, these results put every
//! net of a run on one fixed scale. A run does this after its promotions (`[eval]`).

use crate::error::ArenaError;
use crate::fixture::schedule;
use crate::openings::Ballot;
use crate::play::PlayedGame;
use crate::player::Contestant;
use crate::ratings::tally::{EloEstimate, Tally};
use crate::runner::{run_fixtures, MatchConfig};
use crate::spec::PlayerSpec;
use draughts::DrawRules;
use egdb::Tables;
use search::settings::{Invalid, Range};
use serde::{Deserialize, Serialize};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::{Duration, Instant};

search::settings! {
    /// `[eval]`: which fixed opponents a run's best net plays, how many games, and how it
    /// thinks. Each setting is declared once below: its type, default and range (see
    /// [`search::settings!`]).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct EvalConfig ("") {
        /// Games against each opponent (each ballot with both colours). The ballots are the same
        /// at every evaluation of a run, so its nets are compared on the same openings.
        games: u32 = 16, Range::EvenAtLeast(2.0);
        /// MCTS playouts per move of the net; 0 means it thinks for `time` per move instead.
        playouts: u32 = 64, Range::Any;
        /// Seconds per move: the net's when `playouts` is 0, and the `alphabeta` opponent's.
        time: f64 = 0.1, Range::OpenClosed(0.0, 3600.0);
        /// Evaluate a promoted net only when at least this many minutes of the run have passed
        /// since the last evaluation; 0 evaluates after every promotion.
        every_minutes: f64 = 0.0, Range::NonNegative;
        /// Games played at once; 0 means automatic (see `arena::MatchConfig::threads`).
        threads: usize = 0, Range::Any;
        /// Also play the run's net of this many minutes of run time earlier (the net last
        /// evaluated at least that long before), recorded under the opponent
        /// [`EvalConfig::earlier_label`]: a score over 0.5 says the run still gained strength over
        /// that time, where a fixed opponent may be beaten every time already. 0 means off.
        earlier_minutes: f64 = 0.0, Range::NonNegative;
        rules:
        /// The fixed opponents, written as for `match` (`alphabeta:4`, `alphabeta` for the
        /// equal-time engine at `time` per move, `random`, a checkpoint); empty means no evaluation.
        opponents: Vec<String> = vec!["alphabeta:4".into()], "players as for `match`", check_opponents;
    }
}

/// Checks that every opponent is a player as `match` writes one; the error names the first that
/// is not.
fn check_opponents(opponents: &[String]) -> Result<(), Invalid> {
    for (i, opponent) in opponents.iter().enumerate() {
        opponent.parse::<PlayerSpec>().map_err(|e| {
            let why = format!("a player as for `match` (entry {i}: {})", support::one_line(&e));
            Invalid::new("opponents", opponent, &why)
        })?;
    }
    Ok(())
}

impl EvalConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ArenaError> {
        Ok(self.check_ranges()?)
    }

    /// The opponent name of the evaluations against the run's earlier net (`earlier:60m`), when
    /// they are on.
    pub fn earlier_label(&self) -> Option<String> {
        (self.earlier_minutes > 0.0).then(|| format!("earlier:{}m", self.earlier_minutes))
    }

    /// Seconds per move as a duration.
    pub fn time_per_move(&self) -> Duration {
        Duration::from_secs_f64(self.time)
    }
}

/// One evaluation: a net against one fixed opponent (a line of `RUN/eval.jsonl`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalRecord {
    /// The net's generation (promotions before it) in its run.
    pub generation: u32,
    /// The net's training step.
    pub step: u64,
    /// The net as a player (e.g. `mcts:step-0000001200:64`).
    pub net: String,
    /// The opponent as a player (e.g. `mcts:default:400`, `alphabeta:0.10s`).
    pub opponent: String,
    /// The opponent as `eval.opponents` writes it (e.g. `mcts:nets/default.safetensors`,
    /// `alphabeta`), by which a run knows what it has played; absent for the run's earlier net and
    /// in records written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// The net's games, wins, draws and losses.
    pub tally: Tally,
    /// The net's points per game.
    pub score: f64,
    /// When the evaluation ended, seconds since the Unix epoch.
    pub unix_time: u64,
    /// Wall time of the evaluation.
    pub seconds: f64,
    /// The run's wall time when the evaluation began, summed over its sessions (absent when the
    /// evaluation ran outside `run`, e.g. in a separate `gate --follow`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_seconds: Option<f64>,
    /// The run's CPU time when the evaluation began, all its process's threads, summed over its
    /// sessions (absent outside `run` and in records written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_cpu_seconds: Option<f64>,
    /// The net's checkpoint, relative to its run (absent in records written before it was kept,
    /// and outside `run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
}

impl EvalRecord {
    /// The net's Elo difference to the opponent, with its 95% interval (infinite at a clean
    /// sweep).
    pub fn elo(&self) -> EloEstimate {
        self.tally.elo()
    }
}

/// Plays `net` (player A) against `opponent` over `config.games` games from `deck` chosen by
/// `seed`, and returns the record (generation 0 and no run time: the caller knows the net's) and the games, in
/// schedule order.
pub fn play_anchor(
    net: &dyn Contestant,
    opponent: &dyn Contestant,
    deck: &[Ballot],
    rules: DrawRules,
    config: &EvalConfig,
    seed: u64,
    tables: Option<Arc<Tables>>,
) -> Result<(EvalRecord, Vec<PlayedGame>), ArenaError> {
    let clock = Instant::now();
    let fixtures = schedule(deck, config.games as usize, seed);
    let mut tally = Tally::default();
    let run = MatchConfig { rules, seed, threads: config.threads, tables, clock: None };
    let games = run_fixtures(net, opponent, &fixtures, run, |game| {
        tally.add(game.score_of_a());
        ControlFlow::Continue(())
    })?;
    let record = EvalRecord {
        generation: 0,
        step: net.step().unwrap_or(0),
        net: net.name().to_string(),
        opponent: opponent.name().to_string(),
        spec: None,
        tally,
        score: tally.score(),
        unix_time: support::unix_seconds(),
        seconds: clock.elapsed().as_secs_f64(),
        run_seconds: None,
        run_cpu_seconds: None,
        checkpoint: None,
    };
    Ok((record, games))
}
