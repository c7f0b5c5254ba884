//! The plain record of a self-play game: per decision point what the learner needs, and how the
//! game ended. No I/O here; the shard writer serialises it.

use draughts::{Color, Move, Observation, Outcome, Position};

/// How a self-play game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// Played to the end by the rules (a win, or a draw by the draw rules).
    Played(Outcome),
    /// `loser` resigned.
    Resigned {
        /// The side that resigned (and lost).
        loser: Color,
    },
    /// Adjudicated at the first position the endgame tables cover, with their value.
    Tables {
        /// The side that wins with best play; `None` for a draw.
        winner: Option<Color>,
    },
}

impl GameEnd {
    /// The result from `color`'s view: 1 win, 0 draw, -1 loss.
    pub fn score_for(self, color: Color) -> i8 {
        match self {
            GameEnd::Played(outcome) => outcome.score_for(color),
            GameEnd::Resigned { loser } if loser == color => -1,
            GameEnd::Resigned { .. } => 1,
            GameEnd::Tables { winner: None } => 0,
            GameEnd::Tables { winner: Some(winner) } if winner == color => 1,
            GameEnd::Tables { .. } => -1,
        }
    }
}

/// One searched decision point (decisions with a single legal step are played without search and
/// not recorded).
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionRecord {
    /// What the net sees here (a capture in progress included).
    pub observation: Observation,
    /// Visit distribution over the legal steps: (policy index 0..128 in the mover's frame,
    /// probability). A policy target only when `full_search`.
    pub policy: Vec<(u8, f32)>,
    /// Root value of the search for the side to move, in [-1, 1].
    pub search_value: f32,
    /// Whether this was a full search under playout-cap randomisation.
    pub full_search: bool,
    /// Game ply of the decision (a multi-jump's decisions share a ply).
    pub ply: u32,
    /// Final result for the side to move here: 1 win, 0 draw, -1 loss. Filled at the end.
    pub result: i8,
    /// Plies from this decision's ply to the end of the game. Filled at the end.
    pub plies_to_end: u32,
}

/// Where resignation stood in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignationRecord {
    /// Whether this game could end by resignation.
    pub enabled: bool,
    /// In a game with resignation disabled: the first side that met the resignation condition,
    /// and the ply when it did.
    pub would_have_resigned: Option<(Color, u32)>,
}

impl ResignationRecord {
    /// Whether the would-be resignation was wrong (that side did not lose); `None` if there was none.
    pub fn false_positive(&self, end: GameEnd) -> Option<bool> {
        self.would_have_resigned.map(|(side, _)| end.score_for(side) >= 0)
    }
}

/// A finished self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The position the game started from.
    pub start: Position,
    /// The moves played, whole.
    pub moves: Vec<Move>,
    /// How the game ended.
    pub end: GameEnd,
    /// Every decision the game's searches made, in order (mid-capture steps included).
    pub decisions: Vec<DecisionRecord>,
    /// Whether and where a side resigned or would have (see [`crate::Resignation`]).
    pub resignation: ResignationRecord,
}
