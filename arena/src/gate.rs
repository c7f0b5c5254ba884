//! Gating: a candidate net plays the current best over the ballots and is promoted when it scores
//! at least the threshold, or earlier when an SPRT decides; or, without a gate in effect
//! (`always_promote`, KataGo's way), it plays every game, to be rated, and is promoted whatever it
//! scores. The caller moves the best pointer; this module decides and returns the record to keep.

use crate::error::ArenaError;
use crate::fixture::schedule;
use crate::openings::Ballot;
use crate::play::PlayedGame;
use crate::player::Contestant;
use crate::ratings::sprt::{SprtConfig, SprtState};
use crate::ratings::tally::Tally;
use crate::runner::{run_fixtures, MatchConfig};
use draughts::DrawRules;
use egdb::Tables;
use search::settings::{Invalid, Range};
use serde::{Deserialize, Serialize};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

search::settings! {
    /// Settings of a gate: the match a candidate net must win against the best net to replace
    /// it. Each setting is declared once below: its type, default and range (see
    /// [`search::settings!`]).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct GateConfig ("") {
        /// Most games to play (each ballot twice, colours swapped).
        games: u32 = 40, Range::EvenAtLeast(2.0);
        /// Score (points per game) the candidate needs over all games to be promoted.
        threshold: f64 = 0.55, Range::OpenClosed(0.0, 1.0);
        /// Chooses the ballots and drives the players' randomness.
        seed: u64 = 0, Range::Any;
        /// Games played at once; 0 means automatic (see `arena::MatchConfig::threads`).
        threads: usize = 0, Range::Any;
        /// MCTS playouts per decision of both nets. [`run_gate`] plays the contestants it is
        /// given; this is for the caller that builds them.
        playouts: u32 = 100, Range::AtLeast(1.0);
        /// Promote every candidate after all `games` (they only rate it): no gate in effect.
        always_promote: bool = false, Range::Any;
        rules:
        /// Stop early when this test decides; none plays on until the threshold decides.
        sprt: Option<SprtConfig> = None, SPRT_RULE, check_sprt;
    }
}

/// What an SPRT's settings must be, as `docs/configs.md` writes it ([`SprtConfig::validate`]).
const SPRT_RULE: &str =
    "none, or a table: elo0 finite, elo1 above elo0, alpha and beta in (0, 0.5)";

/// Checks the SPRT's settings when there is one.
fn check_sprt(sprt: &Option<SprtConfig>) -> Result<(), Invalid> {
    sprt.as_ref().map_or(Ok(()), SprtConfig::validate)
}

impl GateConfig {
    /// Checks every field's range; the error names the first bad field.
    pub fn validate(&self) -> Result<(), ArenaError> {
        Ok(self.check_ranges()?)
    }
}

/// What decided a gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The SPRT stopped the match.
    Sprt,
    /// The score against the threshold (possibly before the last game, once it was certain).
    Threshold,
    /// `always_promote`: every game played, the candidate promoted whatever it scored.
    Always,
}

/// The record of one gate, kept by the run (serde JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateRecord {
    /// Name of the candidate player (see [`crate::Contestant::name`]).
    pub candidate: String,
    /// Training step of the candidate's checkpoint, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_step: Option<u64>,
    /// Name of the player the candidate met (the best net so far, or a built-in engine).
    pub opponent: String,
    /// Training step of the opponent's checkpoint, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent_step: Option<u64>,
    /// Games played (fewer than configured when stopped early).
    pub games: u32,
    /// The candidate's results.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the candidate lost.
    pub losses: u32,
    /// The candidate's points per game.
    pub score: f64,
    /// Whether the candidate replaced the best net.
    pub promoted: bool,
    /// What settled the decision: the SPRT or the score threshold.
    pub decided_by: DecidedBy,
    /// The SPRT's log-likelihood ratio at the end, when one ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llr: Option<f64>,
    /// Start time, seconds since the Unix epoch.
    pub started_unix: u64,
    /// Wall time of the gate.
    pub seconds: f64,
}

/// A gate's record and its games (for the results file and PDN).
#[derive(Clone, Debug)]
pub struct GateReport {
    /// The decision and the candidate's results.
    pub record: GateRecord,
    /// Every game played, in schedule order.
    pub games: Vec<PlayedGame>,
}

/// Plays `candidate` (player A) against `best` over `deck` and decides; with `tables`, a game
/// ends at the first position they cover, with their result.
pub fn run_gate(
    candidate: &dyn Contestant,
    best: &dyn Contestant,
    deck: &[Ballot],
    rules: DrawRules,
    config: &GateConfig,
    tables: Option<Arc<Tables>>,
) -> Result<GateReport, ArenaError> {
    config.validate()?;
    let started_unix = support::unix_seconds();
    let clock = Instant::now();
    let fixtures = schedule(deck, config.games as usize, config.seed);
    let mut tally = Tally::default();
    let mut decision = None;
    let run =
        MatchConfig { rules, seed: config.seed, threads: config.threads, tables, clock: None };
    let games = run_fixtures(candidate, best, &fixtures, run, |game| {
        tally.add(game.score_of_a());
        decision = decide(config, &tally);
        if decision.is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    let (promoted, decided_by) = decision.expect("the last game decides");
    let record = GateRecord {
        candidate: candidate.name().to_string(),
        candidate_step: candidate.step(),
        opponent: best.name().to_string(),
        opponent_step: best.step(),
        games: tally.games(),
        wins: tally.wins,
        draws: tally.draws,
        losses: tally.losses,
        score: tally.score(),
        promoted,
        decided_by,
        llr: config.sprt.as_ref().map(|sprt| sprt.llr(&tally)),
        started_unix,
        seconds: clock.elapsed().as_secs_f64(),
    };
    Ok(GateReport { record, games })
}

/// `Some((promote, why))` once the results so far decide the gate.
fn decide(config: &GateConfig, tally: &Tally) -> Option<(bool, DecidedBy)> {
    if config.always_promote {
        return (tally.games() >= config.games).then_some((true, DecidedBy::Always));
    }
    match config.sprt.as_ref().map(|sprt| sprt.state(tally)) {
        Some(SprtState::AcceptH1) => return Some((true, DecidedBy::Sprt)),
        Some(SprtState::AcceptH0) => return Some((false, DecidedBy::Sprt)),
        Some(SprtState::Continue) | None => {}
    }
    let total = f64::from(config.games);
    let points = f64::from(tally.wins) + 0.5 * f64::from(tally.draws);
    let left = total - f64::from(tally.games());
    // Points come in halves; the slack keeps a product such as 0.55 x 100 (55.000000000000007)
    // from asking for more than the threshold's exact share.
    let needed = config.threshold * total - 1e-9;
    if points >= needed {
        Some((true, DecidedBy::Threshold))
    } else if points + left < needed {
        Some((false, DecidedBy::Threshold))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_fills_defaults_rejects_unknown_fields_and_names_bad_ones() {
        let config: GateConfig =
            serde_json::from_str(r#"{"games": 20, "sprt": {"elo1": 50}}"#).unwrap();
        assert_eq!(config.threshold, 0.55);
        assert_eq!(config.sprt.as_ref().unwrap().alpha, 0.05);
        config.validate().unwrap();
        let err = serde_json::from_str::<GateConfig>(r#"{"treshold": 0.6}"#).unwrap_err();
        assert!(err.to_string().contains("treshold"), "{err}");
        let odd = GateConfig { games: 7, ..GateConfig::default() };
        assert!(odd.validate().unwrap_err().to_string().contains("`games` = 7"));
        let idle = GateConfig { playouts: 0, ..GateConfig::default() };
        assert!(idle.validate().unwrap_err().to_string().contains("`playouts` = 0"));
        let sprt = SprtConfig { elo0: 10.0, elo1: 5.0, ..SprtConfig::default() };
        let bad = GateConfig { sprt: Some(sprt), ..GateConfig::default() };
        assert!(bad.validate().unwrap_err().to_string().contains("sprt.elo1"));
    }

    #[test]
    fn the_threshold_decides_once_it_is_certain() {
        let config = GateConfig { games: 10, threshold: 0.55, ..GateConfig::default() };
        assert_eq!(decide(&config, &Tally { wins: 5, draws: 0, losses: 0 }), None);
        assert_eq!(
            decide(&config, &Tally { wins: 6, draws: 0, losses: 0 }),
            Some((true, DecidedBy::Threshold))
        );
        assert_eq!(decide(&config, &Tally { wins: 0, draws: 1, losses: 4 }), None);
        assert_eq!(
            decide(&config, &Tally { wins: 0, draws: 0, losses: 5 }),
            Some((false, DecidedBy::Threshold))
        );
        // Exactly the threshold's share is enough, however the product rounds.
        for games in [20, 40, 60, 100, 200, 400] {
            let config = GateConfig { games, threshold: 0.55, ..GateConfig::default() };
            let (wins, losses) = (games * 55 / 100, games * 45 / 100);
            let decided = decide(&config, &Tally { wins, draws: 0, losses });
            assert_eq!(decided, Some((true, DecidedBy::Threshold)), "{wins} of {games}");
        }
    }

    #[test]
    fn without_a_gate_every_game_is_played_and_the_candidate_promoted() {
        let sprt = Some(SprtConfig::default());
        let config = GateConfig { games: 4, always_promote: true, sprt, ..GateConfig::default() };
        assert_eq!(decide(&config, &Tally { wins: 0, draws: 0, losses: 3 }), None);
        assert_eq!(
            decide(&config, &Tally { wins: 0, draws: 0, losses: 4 }),
            Some((true, DecidedBy::Always))
        );
        let json = r#"{"always_promote": true}"#;
        assert!(serde_json::from_str::<GateConfig>(json).unwrap().always_promote);
    }
}
