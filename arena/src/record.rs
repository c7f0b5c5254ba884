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

/// Appends `records` to the results file at `path` (created with its folder if missing).
pub fn append_results(path: &Path, records: &[ResultRecord]) -> Result<(), ArenaError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(ArenaError::io(dir))?;
    }
    let mut text = String::new();
    for record in records {
        text.push_str(&serde_json::to_string(record).expect("a record serialises"));
        text.push('\n');
    }
    rundata::append_lines(path, &text).map_err(|source| ArenaError::RunDir { source })
}

/// The records of a results file, and an error for each line that could not be read.
#[derive(Debug, Default)]
pub struct Results {
    /// The records read, in file order.
    pub records: Vec<ResultRecord>,
    /// One error per line that could not be read (naming the file and line).
    pub skipped: Vec<ArenaError>,
}

/// Reads a results file; a missing file has no records.
pub fn read_results(path: &Path) -> Result<Results, ArenaError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Results::default()),
        Err(source) => return Err(ArenaError::Io { path: path.to_path_buf(), source }),
    };
    let mut results = Results::default();
    for (i, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        match serde_json::from_str(line) {
            Ok(record) => results.records.push(record),
            Err(source) => results.skipped.push(ArenaError::Record {
                path: path.to_path_buf(),
                line: i + 1,
                source,
            }),
        }
    }
    Ok(results)
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
    fn records_round_trip_and_a_damaged_line_is_skipped_by_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games/results.jsonl");
        let records = [
            record("mcts:step-100:64", GameResult::BlackWins),
            record("alphabeta:2", GameResult::Draw),
        ];
        append_results(&path, &records[..1]).unwrap();
        append_results(&path, &records[1..]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.lines().next().unwrap().contains(r#""result":"1-0""#), "{text}");
        std::fs::write(&path, format!("{text}{{\"black\":\"x\",\"wh")).unwrap();
        let read = read_results(&path).unwrap();
        assert_eq!(read.records, records);
        assert_eq!(read.skipped.len(), 1);
        assert!(read.skipped[0].to_string().contains("results.jsonl:3:"), "{}", read.skipped[0]);
    }

    #[test]
    fn a_missing_file_has_no_records() {
        let read = read_results(Path::new("/nonexistent/results.jsonl")).unwrap();
        assert!(read.records.is_empty() && read.skipped.is_empty());
    }
}
