//! The arena's error types: every variant says what went wrong and where; a cause is the error's
//! source, not repeated in its message.

use draughts::MoveTextError;
use search::SearchError;
use std::path::PathBuf;

/// Characters of a reason a player's error shows: enough for the longest the code writes with
/// the parts of the player it quotes cut.
const REASON_CHARS: usize = 400;

/// Characters of a move reader's message a ballot's error shows.
const MOVE_ERROR_CHARS: usize = 200;

/// Why a match, gate, ladder or player could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// A player chose a move that is not legal.
    #[error("player {player} played {mv}, which is not legal at ply {ply} (position {fen})")]
    IllegalMove {
        /// The player's name.
        player: String,
        /// The move, in PDN.
        mv: String,
        /// Plies played before it.
        ply: usize,
        /// The position, as FEN.
        fen: String,
    },
    /// A player could not choose a move.
    #[error("player {player} failed at ply {ply}")]
    PlayerFailed {
        /// The player's name.
        player: String,
        /// Plies played before it was asked.
        ply: usize,
        /// Why it could not choose.
        source: PlayerFailure,
    },
    /// A player named on the command line that cannot be made. Both texts are shown escaped and
    /// cut (`support::shown`): the player as written comes from outside, and so do the parts of
    /// it the reason quotes.
    #[error("player `{}`: {}", support::shown(.text), support::escape_and_cut(.reason, REASON_CHARS))]
    PlayerSpec {
        /// The player as written.
        text: String,
        /// What is wrong with it, and what was expected.
        reason: String,
    },
    /// A player named by a run directory whose best net cannot be read.
    #[error("player `{}`", support::shown(.text))]
    PlayerRun {
        /// The player as written.
        text: String,
        /// The run directory's error, naming the file.
        source: rundata::RunDirError,
    },
    /// A net could not be loaded or placed on its device.
    #[error("loading net {}", checkpoint.display())]
    Net {
        /// The checkpoint file.
        checkpoint: std::path::PathBuf,
        /// The net loader's error, naming the file or device.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A net player where this program has no net loader.
    #[error("net {}: this program has no net loader (net players need libtorch)", checkpoint.display())]
    NoNets {
        /// The checkpoint file.
        checkpoint: std::path::PathBuf,
    },
    /// A line of an openings file is not a ballot.
    #[error("{file}:{line}: bad ballot `{}`", support::shown(.text))]
    Ballot {
        /// The openings file.
        file: String,
        /// The line, from 1.
        line: usize,
        /// The line's text.
        text: String,
        /// What is wrong with it.
        source: BallotError,
    },
    /// An openings file with no ballot.
    #[error("{file}: no ballots")]
    NoBallots {
        /// The openings file.
        file: String,
    },
    /// Reading or writing a file or folder failed.
    #[error("{path}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A file was not read: not a regular file, bigger than its limit, or unreadable.
    #[error("{path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why (see `support::read_capped`).
        source: support::ReadError,
    },
    /// The run directory could not be read or written.
    #[error(transparent)]
    RunDir {
        /// The run directory's error, naming the file.
        source: rundata::RunDirError,
    },
    /// A setting of `[gate]` or `[eval]` out of range (dotted for `sprt`, e.g. `sprt.elo1`).
    #[error(transparent)]
    Config(#[from] support::Invalid),
    /// The ladder's anchor played no recorded game.
    #[error("Elo fit: the anchor `{anchor}` played no recorded game")]
    AnchorUnplayed {
        /// The anchor player's name.
        anchor: String,
    },
    /// Some players are not linked to the anchor by any chain of games.
    #[error("Elo fit: no chain of games links {} to the anchor `{anchor}`", support::some_of(.players))]
    Unlinked {
        /// The anchor player's name.
        anchor: String,
        /// The players that cannot be rated against it.
        players: Vec<String>,
    },
    /// The thread pool that plays games at once could not be built.
    #[error("thread pool of {threads} threads")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// rayon's error.
        source: rayon::ThreadPoolBuildError,
    },
}

/// Why a player could not choose a move.
#[derive(Debug, thiserror::Error)]
pub enum PlayerFailure {
    /// Its search failed.
    #[error(transparent)]
    Search(#[from] SearchError),
    /// Its evaluator returned no evaluation for a request.
    #[error("the evaluator returned no evaluation")]
    NoEvaluation,
    /// It was asked for a move in a position with none (the game is lost).
    #[error("asked for a move in a lost position")]
    NoMove,
}

/// Why a line of an openings file is not a ballot.
#[derive(Debug, thiserror::Error)]
pub enum BallotError {
    /// A move is not legal or not move text: the reader's message, its quote of the line shown
    /// escaped and cut (a 20 MB line came back whole).
    #[error("{}", support::escape_and_cut(&.0.to_string(), MOVE_ERROR_CHARS))]
    Move(MoveTextError),
    /// The line names a ballot but lists no move.
    #[error("no moves after the ballot's name")]
    NoMoves,
}
