//! The sparse net as the search's evaluator: each request's features, one forward pass, the
//! legal steps' logits alone, softmaxed. No batching queue: a batch is evaluated position by
//! position, as cheap per position as a batch of one.

use crate::features;
use crate::forward::Scratch;
use crate::weights::SparseWeights;
use search::{priors_from_logits, EvalError, EvalRequest, Evaluation, Evaluator, Priors};
use std::sync::Arc;

/// Evaluates search requests with a sparse net on this thread.
#[derive(Clone, Debug)]
pub struct SparseEvaluator {
    weights: Arc<SparseWeights>,
    scratch: Scratch,
}

impl SparseEvaluator {
    /// An evaluator over `weights` (shared with every other evaluator of the same net).
    pub fn new(weights: Arc<SparseWeights>) -> SparseEvaluator {
        SparseEvaluator { weights, scratch: Scratch::default() }
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
}
