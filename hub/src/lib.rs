//! The Hub protocol, version 2 (Scan's line-based text protocol between a draughts GUI and an
//! engine, the draughts counterpart of chess's UCI), for English draughts.
//!
//! [`serve`] runs a session over any input and output (the CLI's `hub` command uses stdin and
//! stdout) for an [`Engine`]: `hub`/`set-param`/`init` (`variant`, and the engine's own
//! [`Param`]s), `pos`, `level`, `go think|ponder|analyze`,
//! `ponder-hit`, `stop`, `new-game`, `ping` and `quit`. The search runs on its own thread, so
//! `stop`, `ping` and `ponder-hit` are answered while it thinks. Nothing here knows tch: the
//! engine behind it is whatever player the caller wraps.
//!
//! Positions: `pos=` takes the Hub's 33-character form in the frame Hub GUIs and pydraughts use
//! (see [`parse_position`]) or a PDN FEN. Moves: `from-to`, and `from x to x captured...` for
//! captures (see [`parse_move`]).

mod engine;
mod level;
mod line;
mod notation;
mod session;

pub use engine::{Engine, Param, Thought};
pub use level::{Level, LevelError};
pub use line::{Line, LineError};
pub use notation::{move_text, parse_move, parse_position, NotationError};
pub use session::{serve, MAX_LINE_BYTES};
