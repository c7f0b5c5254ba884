//! One training sample: what the learner saw at a decision point and what it should learn there.

use draughts::Observation;

/// A decision point of a self-play game with its learning targets.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The position (and capture in progress) from which a step was chosen.
    pub observation: Observation,
    /// The search's visit distribution over the legal steps: (policy index 0..128, probability),
    /// probabilities summing to 1. See `draughts::Step::index_for`.
    pub policy: Vec<(u8, f32)>,
    /// The search's value of the position for the side to move, in [-1, 1].
    pub search_value: f32,
    /// The game's result for the side to move at this point: 1 win, 0 draw, -1 loss.
    pub result: i8,
    /// Decision points from this one to the end of the game.
    pub plies_to_end: u16,
    /// Whether the search was a full one (only those are policy targets; playout-cap randomisation).
    pub full_search: bool,
    /// How many samples after this one, in the same shard, is the opponent's reply: the searched
    /// decision at the next ply of the same game, whose visit distribution is the target of the
    /// trainer's opponent's-reply head. `None` when the reply was forced (not searched), the game
    /// ended first, or it is further than 255 samples on.
    pub reply_after: Option<u8>,
}
