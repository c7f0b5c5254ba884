//! The bridge between the search and the net: `search::Evaluator` over `model::Inference`.

use model::{Inference, NetEval};
use search::{EvalRequest, Evaluation, Evaluator};

/// Evaluates a batch of search requests with one forward pass of the net.
#[derive(Debug)]
pub struct NetEvaluator {
    inference: Inference,
    observations: Vec<draughts::Observation>,
}

impl NetEvaluator {
    pub fn new(inference: Inference) -> NetEvaluator {
        NetEvaluator { inference, observations: Vec::new() }
    }

    pub fn inference(&self) -> &Inference {
        &self.inference
    }
}

impl Evaluator for NetEvaluator {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Vec<Evaluation> {
        self.observations.clear();
        self.observations.extend(requests.iter().map(|r| r.observation));
        let evals = self.inference.evaluate(&self.observations);
        requests.iter().zip(evals).map(|(request, eval)| to_evaluation(request, &eval)).collect()
    }
}

/// Priors over the request's legal steps (softmax of their logits) and the value W - L.
fn to_evaluation(request: &EvalRequest, eval: &NetEval) -> Evaluation {
    Evaluation { priors: eval.priors(&request.legal_steps, request.mover()).into(), value: eval.value() }
}
