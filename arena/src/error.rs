//! The arena's one error type: every variant says what went wrong and where.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error("player {player} played {mv}, which is not legal at ply {ply} (position {fen})")]
    IllegalMove { player: String, mv: String, ply: usize, fen: String },
    #[error("player {player} failed at ply {ply}: {reason}")]
    PlayerFailed { player: String, ply: usize, reason: String },
    #[error("player `{text}`: {reason}")]
    PlayerSpec { text: String, reason: String },
    #[error(transparent)]
    Model { source: model::ModelError },
    #[error("{file}:{line}: bad ballot `{text}`: {reason}")]
    Ballot { file: String, line: usize, text: String, reason: String },
    #[error("{file}: no ballots")]
    NoBallots { file: String },
    #[error("{path}:{line}: bad result record: {reason}")]
    Record { path: PathBuf, line: usize, reason: String },
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: std::io::Error },
    #[error(transparent)]
    RunDir { source: selfplay::run_dir::RunDirError },
    #[error("gate config: `{field}` = {value} is invalid: {expected}")]
    GateConfig { field: &'static str, value: String, expected: &'static str },
    #[error("Elo fit: {reason}")]
    Ladder { reason: String },
    #[error("thread pool of {threads} threads: {reason}")]
    Threads { threads: usize, reason: String },
}

impl ArenaError {
    /// An I/O error on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> ArenaError {
        let path = path.into();
        move |error| ArenaError::Io { path, error }
    }
}
