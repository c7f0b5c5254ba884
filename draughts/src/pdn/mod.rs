//! PDN (Portable Draughts Notation) game files for English draughts: read and write.
//!
//! Reading is liberal (PDN 3.0's advice): tag pairs, move numbers (`1.`, `1...`, `1.11-15`), move text in
//! full or short form, comments `{...}` and `; ...`, NAGs (`!`, `?!`, `$3`), variations `( ... )`
//! skipped, `%` escape lines, results `1-0`, `0-1`, `1/2-1/2`, `*` (and the 2-point `2-0`, `0-2`,
//! `1-1`), `[FEN "..."]` set-ups, any number of games. Writing follows the Seven Tag Roster with
//! `GameType "21"`, `SetUp`/`FEN` when the game does not start from the initial position, full jump paths
//! and the game's comments.
//!
//! Results: as in other English-draughts software, the first score is Black's (the side that moves
//! first), so `1-0` is a Black win.

mod lexer;
mod read;
mod write;

pub use read::read_pdn;
pub use write::write_pdn;

use crate::fen::FenError;
use crate::game::{DrawRules, Game, Outcome};
use crate::moves::Move;
use crate::notation::MoveTextError;
use crate::position::Position;
use crate::square::Color;

/// The result of a game as PDN records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GameResult {
    /// `1-0` in PDN: Black (the first player) won.
    BlackWins,
    /// `0-1`: White won.
    WhiteWins,
    /// `1/2-1/2`.
    Draw,
    /// Unfinished or unknown (`*`).
    #[default]
    Unknown,
}

impl GameResult {
    /// The PDN text of the result.
    pub const fn pdn(self) -> &'static str {
        match self {
            GameResult::BlackWins => "1-0",
            GameResult::WhiteWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }

    /// Reads a PDN result (1-point or 2-point scoring).
    pub fn from_pdn(text: &str) -> Option<GameResult> {
        match text {
            "1-0" | "2-0" => Some(GameResult::BlackWins),
            "0-1" | "0-2" => Some(GameResult::WhiteWins),
            "1/2-1/2" | "1-1" => Some(GameResult::Draw),
            "*" => Some(GameResult::Unknown),
            _ => None,
        }
    }

    /// The result of a game that ended with `outcome` (or is still going on, `None`).
    pub fn from_outcome(outcome: Option<Outcome>) -> GameResult {
        match outcome {
            Some(Outcome::Win { winner: Color::Black, .. }) => GameResult::BlackWins,
            Some(Outcome::Win { winner: Color::White, .. }) => GameResult::WhiteWins,
            Some(Outcome::Draw(_)) => GameResult::Draw,
            None => GameResult::Unknown,
        }
    }
}

/// One game of a PDN file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnGame {
    /// Tag pairs in file order, as read. When writing, the roster, `Result`, `GameType`, `SetUp` and
    /// `FEN` tags are written from the game itself; the others follow as they are.
    pub tags: Vec<(String, String)>,
    /// The position before the first move (from the `FEN` tag, else the initial position).
    pub start: Position,
    /// The moves, each legal in the position it is played from.
    pub moves: Vec<Move>,
    /// The result, from the game's result token.
    pub result: GameResult,
    /// Comments in the move text, written as `{...}`: `(n, text)` comes after the first `n` moves
    /// (0: before the first move), in that order. The reader skips comments and leaves this empty.
    pub comments: Vec<(usize, String)>,
}

/// Where and why a PDN text could not be read. Games are counted from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PdnError {
    /// The text is not PDN at this place.
    #[error("PDN game {game}, line {line}, column {column}: {message}")]
    Syntax {
        /// Game number in the file, from 1.
        game: usize,
        /// Line of the problem, from 1.
        line: usize,
        /// Column of the problem, from 1.
        column: usize,
        /// What is wrong there, e.g. an unclosed tag.
        message: String,
    },
    /// The `FEN` tag is not a valid FEN.
    #[error("PDN game {game}, line {line}, column {column}: bad FEN tag")]
    Fen {
        /// Game number in the file, from 1.
        game: usize,
        /// Line of the problem, from 1.
        line: usize,
        /// Column of the problem, from 1.
        column: usize,
        /// What is wrong with the FEN.
        source: FenError,
    },
    /// A move is not legal or not move text.
    #[error("PDN game {game}, line {line}, column {column}, move {move_number}")]
    Move {
        /// Game number in the file, from 1.
        game: usize,
        /// Line of the problem, from 1.
        line: usize,
        /// Column of the problem, from 1.
        column: usize,
        /// The move number as the PDN text shows it.
        move_number: usize,
        /// What is wrong with the move.
        source: MoveTextError,
    },
}

impl PdnGame {
    /// An empty game from `start`, with no tags.
    pub fn new(start: Position) -> PdnGame {
        PdnGame {
            tags: Vec::new(),
            start,
            moves: Vec::new(),
            result: GameResult::Unknown,
            comments: Vec::new(),
        }
    }

    /// The moves and result of `game`.
    pub fn from_game(game: &Game) -> PdnGame {
        PdnGame {
            moves: game.moves().to_vec(),
            result: GameResult::from_outcome(game.outcome()),
            ..PdnGame::new(*game.start())
        }
    }

    /// The game replayed under `rules`.
    pub fn to_game(&self, rules: DrawRules) -> Game {
        let mut game = Game::new(self.start, rules);
        for &mv in &self.moves {
            game.play_unchecked(mv);
        }
        game
    }

    /// The value of tag `name`, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// Sets tag `name`, replacing an earlier value.
    pub fn set_tag(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.tags.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = value,
            None => self.tags.push((name.to_owned(), value)),
        }
    }

    /// The move number of ply `ply` (counted from 0) as PDN writes it.
    pub fn move_number(&self, ply: usize) -> usize {
        let offset = usize::from(self.start.side_to_move() == Color::White);
        (ply + offset) / 2 + 1
    }
}
