//! What the protocol needs of an engine: think about a position within a budget, stoppable from
//! the session's thread, reporting progress; forget everything for a new game; and the settings
//! it offers the GUI beside `variant`.

use draughts::{Game, Move};
use search::ThinkRequest;

/// An engine's answer to one search.
#[derive(Clone, Debug, PartialEq)]
pub struct Thought {
    /// The move to play.
    pub mv: Move,
    /// The expected continuation, starting with `mv` (its second move is the ponder move).
    pub pv: Vec<Move>,
}

/// A whole-number setting an engine offers the GUI beside `variant`: announced in the answer to
/// `hub` as `param name=NAME value=DEFAULT type=int min=MIN max=MAX` and set with `set-param
/// name=NAME value=N`, the value checked against the range by the session. The name is one token
/// without `=` or spaces (pydraughts splits every token of a `param` line at `=`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The setting's name.
    pub name: &'static str,
    /// Its value until the GUI sets another.
    pub default: i64,
    /// The least value.
    pub min: i64,
    /// The greatest value.
    pub max: i64,
}

/// A player behind the protocol. Runs on the session's search thread.
pub trait Engine: Send {
    /// The name given to the GUI in `id`.
    fn name(&self) -> String;

    /// The move to play in `game` (not over) within the request's budget; ends early when its
    /// control says so, and reports how the search goes. An error ends the session.
    fn think(
        &mut self,
        game: &Game,
        request: ThinkRequest<'_>,
    ) -> Result<Thought, Box<dyn std::error::Error + Send + Sync>>;

    /// The next search is unrelated to the previous ones: drop kept trees and tables.
    fn new_game(&mut self) -> Result<(), Box<dyn std::error::Error + Send + Sync>>;

    /// The settings the engine offers beside `variant` (none unless it says).
    fn params(&self) -> Vec<Param> {
        Vec::new()
    }

    /// Sets `name`, one of [`Engine::params`], to `value` (within its range) for the next
    /// searches. An error is told to the GUI and the engine goes on as it was.
    fn set_param(
        &mut self,
        name: &str,
        _value: i64,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        Err(format!("unknown parameter `{name}`").into())
    }
}
