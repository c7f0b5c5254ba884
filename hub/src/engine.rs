//! What the protocol needs of an engine: think about a position within a budget, stoppable from
//! the session's thread, reporting progress; and forget everything for a new game.

use draughts::{Game, Move};
use search::{MoveBudget, Progress, SearchControl};

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

    /// The move to play in `game` (not over) within `budget`; ends early when `control` says
    /// so, and tells `report` how the search goes. An error ends the session.
    fn think(
        &mut self,
        game: &Game,
        budget: MoveBudget,
        control: &SearchControl,
        report: &mut dyn FnMut(&Progress),
    ) -> Result<Thought, Box<dyn std::error::Error + Send + Sync>>;

    /// The next search is unrelated to the previous ones: drop kept trees and tables.
    fn new_game(&mut self) -> Result<(), Box<dyn std::error::Error + Send + Sync>>;
}
