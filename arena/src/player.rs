//! What a player is: something that picks a move in a game, and the contestant that makes
//! fresh players for each game of a match (so games can run in parallel).

use crate::error::ArenaError;
use draughts::{Game, Move};
use search::ThinkRequest;

/// A player's decision: the move, and what its search thought of the position when it has one.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The move to play (a whole move, every jump of a capture).
    pub mv: Move,
    /// Expected result for the side to move, in [-1, 1], when the player searched.
    pub value: Option<f32>,
    /// Principal variation starting with `mv`; empty when the player has none.
    pub pv: Vec<Move>,
}

impl Choice {
    /// A bare move, with no value and no variation.
    pub fn bare(mv: Move) -> Choice {
        Choice { mv, value: None, pv: Vec::new() }
    }
}

/// Picks moves. Asked only in positions where the game is not over (so a legal move exists).
pub trait Player: Send {
    /// The move to play in `game` (not over). Errors when the player cannot choose, e.g. its net failed.
    fn choose(&mut self, game: &Game) -> Result<Choice, ArenaError>;

    /// The move to play in `game` within the request's budget, for an engine protocol: ends
    /// early when its control says so (a stop, or a deadline set while thinking) and reports how
    /// its thinking goes. Players that do not search answer at once, as [`Player::choose`] does.
    fn think(&mut self, game: &Game, _request: ThinkRequest<'_>) -> Result<Choice, ArenaError> {
        self.choose(game)
    }
}

/// One side of a match: a name for tables and records, and a maker of players. Shared between
/// the threads that play the games, so anything heavy (a loaded net) is loaded once.
pub trait Contestant: Sync {
    /// Stable name, e.g. `alphabeta:4` or `mcts:step-00001000:200`; it identifies the player in
    /// result records and the ladder.
    fn name(&self) -> &str;

    /// The training step of the net behind this player, if it is a checkpoint.
    fn step(&self) -> Option<u64> {
        None
    }

    /// A player for one game. `seed` drives any randomness it has.
    fn player(&self, seed: u64) -> Result<Box<dyn Player>, ArenaError>;

    /// Whether many games at once help rather than hurt this player: a net with a fixed budget
    /// per move, whose games share its forward passes. Not a player that thinks for a wall-clock
    /// time (games at once would take each other's time) or one bound by its own CPU work.
    fn shares_batches(&self) -> bool {
        false
    }
}
