//! What the protocol needs of an engine: think about a position within a budget, stoppable from
//! the session's thread, reporting progress; and forget everything for a new game.

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
}
