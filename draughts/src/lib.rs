//! English draughts (American checkers) rules engine.
//!
//! Bitboards over the 32 dark squares, allocation-free move generation with whole jump paths,
//! perft, the step-by-step view of a move that the learner uses ([`Turn`]), and notation: FEN,
//! move text and PDN game files.
//! Depends on nothing heavy: no tch, no rayon.

mod bitboard;
mod fen;
mod game;
mod movegen;
mod moves;
mod notation;
mod pdn;
mod perft;
mod position;
mod square;
mod turn;
mod zobrist;

pub use bitboard::Bitboard;
pub use fen::FenError;
pub use game::{DrawReason, DrawRules, Game, IllegalMove, Observation, Outcome, WinReason};
pub use moves::{Move, MoveList, Step, StepList, MAX_JUMPS};
pub use notation::MoveTextError;
pub use pdn::{read_pdn, write_pdn, GameResult, PdnError, PdnGame};
pub use perft::{perft, perft_unique, PerftCounter};
pub use position::{Position, PositionError};
pub use square::{Color, Direction, Square};
pub use turn::{IllegalStep, Turn};
