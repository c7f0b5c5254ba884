//! What scores the quiet leaves of an alpha-beta search: the static evaluation, a net's value
//! through an [`Evaluator`] (one request a leaf), or a [`LeafEvaluator`] that follows the search
//! move by move (a net's accumulator kept up to date incrementally); and the mapping between the
//! engine's scores (hundredths of a man) and values in [-1, 1], both ways.
//!
//! A value `v` is the score `200 · atanh(v)`, the inverse of [`value_of_score`]'s `tanh`: one man
//! up is a value of about 0.46, two men about 0.76. Scores from values are clamped to
//! ±[`NET_SCORE_LIMIT`], far below the scores of found wins, so a net's certainty never passes for
//! a proven result.

use super::{eval, AlphaBeta, WIN, WIN_THRESHOLD};
use crate::error::SearchError;
use crate::evaluator::{EvalRequest, Evaluator};
use draughts::{Move, Observation, Position, Turn};
use std::convert::Infallible;

/// Scores at least this far from 0 are found wins or losses (`WIN` less the plies to the end; no
/// evaluation comes near).
pub const WON: i32 = WIN - 1000;
/// Largest score a value maps to: twenty men, more than any board's material.
pub const NET_SCORE_LIMIT: i32 = 2000;
/// Hundredths of a man per unit of `atanh(value)`.
const MEN_SCALE: f32 = 200.0;

const _: () = assert!(NET_SCORE_LIMIT < WON && WON < WIN_THRESHOLD, "net scores are not wins");

/// The engine's score (hundredths of a man, `WIN` for a win) as a value in [-1, 1]: a won or lost
/// position is ±1; otherwise `tanh` of the material edge in men halved, so one man up is about
/// 0.46.
pub fn value_of_score(score: i32) -> f32 {
    if score.abs() >= WON {
        score.signum() as f32
    } else {
        (score as f32 / MEN_SCALE).tanh()
    }
}

/// A value in [-1, 1] (clamped into it) as a score: the inverse of [`value_of_score`]'s `tanh`,
/// rounded, and clamped to ±[`NET_SCORE_LIMIT`] (which ±1 reach). Monotone.
pub fn score_of_value(value: f32) -> i32 {
    let limit = NET_SCORE_LIMIT as f32;
    (MEN_SCALE * value.clamp(-1.0, 1.0).atanh()).clamp(-limit, limit).round() as i32
}

/// A net's value of positions, kept up to date along the search path as the engine makes and
/// takes back moves (an accumulator a ply, as NNUE engines keep), so that a leaf costs only the
/// net's layers after its accumulator.
pub trait LeafEvaluator: Send {
    /// A search starts from `root`, which becomes the current position.
    fn start(&mut self, root: &Position);
    /// The search made a move from the current position `parent` to `child`, the new current
    /// position.
    fn push(&mut self, parent: &Position, child: &Position);
    /// The search took back the last move pushed.
    fn pop(&mut self);
    /// The value in -1..=1, for its side to move, of the current position as `observation`
    /// shows it (its position is the current one; its counters come from the game and the
    /// search path).
    fn value(&mut self, observation: &Observation) -> f32;

    /// The net's preference among the quiet `moves` of the current position `position`, one
    /// score a move in their order (higher is better: the policy head's logits), written into
    /// `scores`, for ordering them; `false` (and `scores` untouched) when it has none.
    fn move_scores(
        &mut self,
        _position: &Position,
        _moves: &[Move],
        _scores: &mut Vec<f32>,
    ) -> bool {
        false
    }
}

/// Scores the quiet leaves of a search (positions without a capture to make, or at the deepest
/// ply), for the side to move, told of every move the search makes and takes back.
pub(super) trait Leaves {
    /// Why a leaf could not be scored.
    type Error;

    /// The score of `position`, the position at the end of `engine`'s search path.
    fn score(&mut self, engine: &AlphaBeta, position: &Position) -> Result<i32, Self::Error>;

    /// A search starts from `root`.
    fn start(&mut self, _root: &Position) {}

    /// The search made a move from `parent` to `child`.
    fn push(&mut self, _parent: &Position, _child: &Position) {}

    /// The search took back its last move.
    fn pop(&mut self) {}

    /// The scores of the quiet `moves` of `position`, the position at the end of the search
    /// path, for ordering them (see [`LeafEvaluator::move_scores`]); `false` when there are none.
    fn move_scores(&mut self, _: &Position, _: &[Move], _: &mut Vec<f32>) -> bool {
        false
    }
}

/// A [`LeafEvaluator`]'s value of each leaf, mapped by [`score_of_value`].
pub(super) struct Incremental<'a>(pub &'a mut dyn LeafEvaluator);

impl Leaves for Incremental<'_> {
    type Error = Infallible;

    fn score(&mut self, engine: &AlphaBeta, position: &Position) -> Result<i32, Infallible> {
        Ok(score_of_value(self.0.value(&engine.path.observation(position))))
    }

    fn start(&mut self, root: &Position) {
        self.0.start(root);
    }

    fn push(&mut self, parent: &Position, child: &Position) {
        self.0.push(parent, child);
    }

    fn pop(&mut self) {
        self.0.pop();
    }

    fn move_scores(&mut self, position: &Position, moves: &[Move], scores: &mut Vec<f32>) -> bool {
        self.0.move_scores(position, moves, scores)
    }
}

/// The static evaluation ([`eval::evaluate`]); never fails.
#[derive(Clone, Copy)]
pub(super) struct StaticEval;

impl Leaves for StaticEval {
    type Error = Infallible;

    fn score(&mut self, _engine: &AlphaBeta, position: &Position) -> Result<i32, Infallible> {
        Ok(eval::evaluate(position))
    }
}

/// A net's value of each leaf, one request per leaf, mapped by [`score_of_value`].
pub(super) struct NetValue<'a, E: ?Sized>(pub &'a mut E);

impl<E: Evaluator + ?Sized> Leaves for NetValue<'_, E> {
    type Error = SearchError;

    fn score(&mut self, engine: &AlphaBeta, position: &Position) -> Result<i32, SearchError> {
        let request = EvalRequest {
            observation: engine.path.observation(position),
            legal_steps: Turn::new(*position).legal_steps(),
        };
        let evaluations = self.0.evaluate(std::slice::from_ref(&request))?;
        match evaluations.as_slice() {
            [evaluation] if evaluation.value.is_finite() => Ok(score_of_value(evaluation.value)),
            [_] => Err(SearchError::BadNumber { index: 0, what: "the value" }),
            _ => Err(SearchError::EvaluationCount { expected: 1, got: evaluations.len() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_map_to_scores_monotonely_and_back() {
        let values: Vec<f32> = (-100..=100).map(|i| i as f32 / 100.0).collect();
        let scores: Vec<i32> = values.iter().map(|&v| score_of_value(v)).collect();
        assert!(scores.windows(2).all(|w| w[0] <= w[1]), "{scores:?}");
        assert_eq!(score_of_value(0.0), 0);
        assert_eq!(score_of_value(value_of_score(100)), 100, "one man up and back");
        assert_eq!(score_of_value(-value_of_score(250)), -250);
        assert_eq!(
            (score_of_value(1.0), score_of_value(-7.0)),
            (NET_SCORE_LIMIT, -NET_SCORE_LIMIT)
        );
    }
}
