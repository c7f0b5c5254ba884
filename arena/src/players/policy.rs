//! The raw-policy player: at each step of its move, the legal step the evaluator likes best.
//! No search; the value is the evaluator's at the start of the move.

use crate::error::ArenaError;
use crate::error::PlayerFailure;
use crate::player::{Choice, Player};
use draughts::{Game, Turn};
use search::{EvalRequest, Evaluator};

/// A net's raw policy: plays the most likely legal step of each decision, no search.
pub struct PolicyPlayer<E> {
    name: String,
    evaluator: E,
}

impl<E: Evaluator + Send> PolicyPlayer<E> {
    /// A player named `name` that asks `evaluator` for the priors of each decision.
    pub fn new(name: String, evaluator: E) -> PolicyPlayer<E> {
        PolicyPlayer { name, evaluator }
    }
}

impl<E: Evaluator + Send> Player for PolicyPlayer<E> {
    fn choose(&mut self, game: &Game) -> Result<Choice, ArenaError> {
        let mut turn = Turn::new(*game.position());
        let mut value = None;
        loop {
            let request = EvalRequest {
                observation: game.observation_during(&turn),
                legal_steps: turn.legal_steps(),
            };
            let failed = |source| ArenaError::PlayerFailed {
                player: self.name.clone(),
                ply: game.ply(),
                source,
            };
            let evaluations = self
                .evaluator
                .evaluate(std::slice::from_ref(&request))
                .map_err(|e| failed(PlayerFailure::Search(e.into())))?;
            let eval = evaluations
                .into_iter()
                .next()
                .ok_or_else(|| failed(PlayerFailure::NoEvaluation))?;
            value.get_or_insert(eval.value);
            let best = (0..request.legal_steps.len())
                .max_by(|&a, &b| eval.priors[a].total_cmp(&eval.priors[b]))
                .expect("a game in progress has a legal step");
            let taken = turn.take(request.legal_steps[best]).expect("a legal step");
            if let Some(mv) = taken {
                return Ok(Choice { mv, value, pv: vec![mv] });
            }
        }
    }
}
