//! The sparse net as the search's evaluator: each request's features, one forward pass, the
//! legal steps' logits alone, softmaxed. No batching queue: a batch is evaluated position by
//! position, as cheap per position as a batch of one. It also hands alpha-beta an incremental
//! evaluator over the same net (quantised once, on the first ask).

use crate::features;
use crate::forward::Scratch;
use crate::incremental::IncrementalNet;
use crate::quantised::QuantisedNet;
use crate::weights::SparseWeights;
use search::alphabeta::LeafEvaluator;
use search::{priors_from_logits, EvalError, EvalRequest, Evaluation, Evaluator, Priors};
use std::sync::Arc;

/// Evaluates search requests with a sparse net on this thread.
#[derive(Clone, Debug)]
pub struct SparseEvaluator {
    weights: Arc<SparseWeights>,
    scratch: Scratch,
    /// The net quantised for alpha-beta's incremental evaluators, made on the first ask.
    quantised: Option<Arc<QuantisedNet>>,
}

impl SparseEvaluator {
    /// An evaluator over `weights` (shared with every other evaluator of the same net).
    pub fn new(weights: Arc<SparseWeights>) -> SparseEvaluator {
        SparseEvaluator { weights, scratch: Scratch::default(), quantised: None }
    }

    /// The evaluation of one request.
    pub fn evaluate_one(&mut self, request: &EvalRequest) -> Evaluation {
        let active = features::active(&request.observation);
        let [win, draw, loss] = self.weights.forward(&active, &mut self.scratch).wdl();
        let mut logits = Priors::new();
        self.weights.policy_logits(&self.scratch, request.policy_indices(), &mut logits);
        Evaluation { priors: priors_from_logits(logits.into_iter()), value: win - loss, draw }
    }
}

impl Evaluator for SparseEvaluator {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(requests.iter().map(|r| self.evaluate_one(r)).collect())
    }

    fn leaf_evaluator(&mut self) -> Option<Box<dyn LeafEvaluator>> {
        let weights = &self.weights;
        let quantised = self.quantised.get_or_insert_with(|| Arc::new(QuantisedNet::new(weights)));
        Some(Box::new(IncrementalNet::new(Arc::clone(quantised))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantised::VALUE_ERROR_BOUND;
    use draughts::{DrawRules, Game, Position, Turn};
    use std::path::Path;

    #[test]
    fn the_leaf_evaluator_it_hands_out_values_as_the_net_does() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../docs/ab/2026-12-04-default-4h-best.safetensors");
        let weights = Arc::new(SparseWeights::load(&path).unwrap().0);
        let mut evaluator = SparseEvaluator::new(weights);
        let mut leaves = evaluator.leaf_evaluator().expect("the sparse net has one");
        let mut game = Game::new(Position::start(), DrawRules::default());
        leaves.start(game.position());
        for _ in 0..12 {
            let parent = *game.position();
            game.play(parent.legal_moves()[0]).unwrap();
            leaves.push(&parent, game.position());
            let request = EvalRequest {
                observation: game.observation(),
                legal_steps: Turn::new(*game.position()).legal_steps(),
            };
            let exact = evaluator.evaluate_one(&request).value;
            let incremental = leaves.value(&request.observation);
            assert!((exact - incremental).abs() <= VALUE_ERROR_BOUND, "{exact} {incremental}");
        }
    }
}
