//! The search's `Evaluator` over a loaded net: one forward pass per batch of requests, priors
//! from the legal steps' logits, value = win minus loss probability.

use model::Inference;
use search::{EvalRequest, Evaluation, Evaluator};
use std::sync::{Arc, Mutex, PoisonError};

/// A net shared by the games of a match (tch tensors are not `Sync`, so behind a mutex).
pub type SharedNet = Arc<Mutex<Inference>>;

#[derive(Clone)]
pub struct NetEvaluator {
    net: SharedNet,
}

impl NetEvaluator {
    pub fn new(net: SharedNet) -> NetEvaluator {
        NetEvaluator { net }
    }
}

impl Evaluator for NetEvaluator {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Vec<Evaluation> {
        let observations: Vec<_> = requests.iter().map(|r| r.observation).collect();
        let evals = self.net.lock().unwrap_or_else(PoisonError::into_inner).evaluate(&observations);
        requests
            .iter()
            .zip(evals)
            .map(|(request, eval)| Evaluation {
                priors: eval.priors(&request.legal_steps, request.mover()).into_iter().collect(),
                value: eval.value(),
            })
            .collect()
    }
}
