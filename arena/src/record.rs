//! Result records: one JSON object per game, appended as a line to a results file
//! (`<run>/games/results.jsonl`), which the ladder reads back.
//!
//! Each append is a single write to a file opened for appending, so several processes may record
//! into one file. A damaged line (a write cut short by a crash) is closed by the next append,
//! and skipped and reported by line when read.

use crate::error::ArenaError;
use crate::play::PlayedGame;
use draughts::{DrawReason, GameResult, Outcome, WinReason};
use rundata::RunDir;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultRecord {
    /// Player names (see [`crate::Contestant::name`]).
    pub black: String,
    /// White's player name.
    pub white: String,
    /// Training steps of the nets, for checkpoint players.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_step: Option<u64>,
    /// Training step of White's net, for checkpoint players.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_step: Option<u64>,
    /// `1-0` (Black won), `0-1` or `1/2-1/2`.
    #[serde(with = "pdn_result")]
    pub result: GameResult,
    /// How the game ended: `no_pieces`, `no_moves`, `repetition`, `no_progress`, `ply_cap`, or
    /// `endgame_tables` (adjudicated by the endgame tables).
    pub ending: String,
    /// The ballot's name in its deck.
    pub ballot: String,
    /// Plies played, the ballot's included.
    pub plies: usize,
    /// When the game was recorded, seconds since the Unix epoch.
    pub unix_time: u64,
}

/// Black's points for a finished game's result: 1, 0.5 or 0 (`None` for an unknown result).
pub fn black_points(result: GameResult) -> Option<f64> {
    match result {
        GameResult::BlackWins => Some(1.0),
        GameResult::WhiteWins => Some(0.0),
        GameResult::Draw => Some(0.5),
        GameResult::Unknown => None,
    }
}

/// Results as their PDN text (`1-0`, `0-1`, `1/2-1/2`) in JSON.
mod pdn_result {
    use draughts::GameResult;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(result: &GameResult, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(result.pdn())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<GameResult, D::Error> {
        let text = String::deserialize(deserializer)?;
        match GameResult::from_pdn(&text) {
            Some(GameResult::Unknown) | None => {
                Err(D::Error::custom(format!("result {text:?} is not 1-0, 0-1 or 1/2-1/2")))
            }
            Some(result) => Ok(result),
        }
    }
}

/// How a game ended, in one word.
pub fn ending(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win { reason: WinReason::NoPieces, .. } => "no_pieces",
        Outcome::Win { reason: WinReason::NoMoves, .. } => "no_moves",
        Outcome::Draw(DrawReason::Repetition) => "repetition",
        Outcome::Draw(DrawReason::NoProgress) => "no_progress",
        Outcome::Draw(DrawReason::PlyCap) => "ply_cap",
    }
}

impl ResultRecord {
    /// The record of a game, stamped now.
    pub fn of(game: &PlayedGame) -> ResultRecord {
        ResultRecord {
            black: game.black.name.clone(),
            white: game.white.name.clone(),
            black_step: game.black.step,
            white_step: game.white.step,
            result: game.ending.result(),
            ending: game.ending.word().to_string(),
            ballot: game.fixture.ballot.name.clone(),
            plies: game.game.ply(),
            unix_time: support::unix_seconds(),
        }
    }
}

/// The results file of the run directory `run`: `RUN/games/results.jsonl`.
pub fn run_results_file(run: &Path) -> Result<PathBuf, ArenaError> {
    let run = RunDir::existing(run).map_err(|source| ArenaError::RunDir { source })?;
    Ok(run.results_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(black: &str, result: GameResult) -> ResultRecord {
        ResultRecord {
            black: black.into(),
            white: "random".into(),
            black_step: Some(100),
            white_step: None,
            result,
            ending: "no_moves".into(),
            ballot: "001".into(),
            plies: 57,
            unix_time: 1,
        }
    }

    #[test]
    fn result_records_round_trip_through_a_results_log() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games/results.jsonl");
        let records = [
            record("mcts:step-100:64", GameResult::BlackWins),
            record("alphabeta:2", GameResult::Draw),
        ];
        rundata::append_json_lines(&path, &records).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.lines().next().unwrap().contains(r#""result":"1-0""#), "{text}");
        let read = rundata::read_json_lines::<ResultRecord>(&path).unwrap();
        assert_eq!(read.records, records);
        assert!(read.skipped.is_empty());
    }
}
