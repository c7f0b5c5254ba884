//! English draughts (American checkers) rules engine.
//!
//! Bitboards over the 32 dark squares, allocation-free move generation with whole jump paths,
//! perft, the step-by-step view of a move that the learner uses ([`Turn`]), and notation: FEN,
//! move text and PDN game files.
//! Depends on nothing heavy: no tch, no rayon.
//!
//! ```
//! use draughts::{perft, DrawRules, Game, Position};
//!
//! // The seven opening moves, and 49 move sequences of two plies.
//! let start = Position::start();
//! assert_eq!(start.legal_moves().len(), 7);
//! assert_eq!(perft(&start, 2), 49);
//!
//! // Moves are read and written in standard notation; captures are compulsory.
//! let mut game = Game::new(start, DrawRules::default());
//! for text in ["11-15", "22-18"] {
//!     let mv = game.position().parse_move(text)?;
//!     game.play(mv)?;
//! }
//! let replies: Vec<String> = game.position().legal_moves().iter().map(|m| m.to_string()).collect();
//! assert_eq!(replies, ["15x22"]);
//! assert!(game.outcome().is_none());
//!
//! // Positions go to and from FEN.
//! let fen = "W:W18,K26:B9,K14";
//! assert_eq!(Position::from_fen(fen)?.to_fen(), fen);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

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
