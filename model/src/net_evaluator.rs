//! The bridge between the search and the net: `search::Evaluator` over [`crate::Inference`].
//!
//! Built for self-play's hot loop: the requests are encoded straight into one input buffer kept
//! across calls, and the priors and values are read from the net's output rows without building
//! intermediate per-position values (no allocation per position; priors live inline).

use crate::{Inference, OUTPUT_SIZE, WDL_OFFSET};
use search::{
    priors_from_logits, BoxedEvaluator, CachedEvaluator, EvalError, EvalRequest, Evaluation,
    Evaluator, InferenceServer, LoadedNet, NetLoader, DEFAULT_EVAL_CACHE,
};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use support::DeviceSpec;

/// Evaluates a batch of search requests with one forward pass of the net.
#[derive(Debug)]
pub struct NetEvaluator {
    net: Inference,
    /// The encoded batch (`requests * size` values, the net's input), reused across calls.
    input: Vec<f32>,
}

impl NetEvaluator {
    /// An evaluator over `net`, with an empty input buffer.
    pub fn new(net: Inference) -> NetEvaluator {
        NetEvaluator { net, input: Vec::new() }
    }

    /// The net it evaluates with.
    pub fn net(&self) -> &Inference {
        &self.net
    }

    /// The encoded batch of the last call (`requests * size` values).
    pub fn last_input(&self) -> &[f32] {
        &self.input
    }
}

impl Evaluator for NetEvaluator {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        let input = self.net.input();
        self.input.resize(requests.len() * input.size(), 0.0);
        for (request, encoded) in requests.iter().zip(self.input.chunks_exact_mut(input.size())) {
            input.encode_into(&request.observation, encoded);
        }
        let output =
            self.net.forward_encoded(&self.input).map_err(|e| EvalError::new(requests.len(), e))?;
        Ok(requests
            .iter()
            .zip(output.chunks_exact(OUTPUT_SIZE))
            .map(|(request, row)| to_evaluation(request, row))
            .collect())
    }
}

/// Priors over the request's legal steps (softmax of their logits alone), the value W - L and the
/// draw probability D (from the softmax of the WDL logits), read from one output row.
fn to_evaluation(request: &EvalRequest, row: &[f32]) -> Evaluation {
    let wdl = priors_from_logits(row[WDL_OFFSET..WDL_OFFSET + 3].iter().copied());
    Evaluation {
        priors: priors_from_logits(request.policy_indices().map(|i| row[i])),
        value: wdl[0] - wdl[2],
        draw: wdl[1],
    }
}

/// The search requests of the first `count` (at least one) decision points of random games
/// played from `seed`, mid-capture ones included: inputs for tests and benchmarks of evaluators.
pub fn decision_requests(seed: u64, count: usize) -> Vec<EvalRequest> {
    let mut out = Vec::with_capacity(count);
    crate::sample::for_each_decision(seed, usize::MAX, |observation, turn| {
        out.push(EvalRequest { observation: *observation, legal_steps: turn.legal_steps() });
        if out.len() < count {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(())
        }
    });
    out
}

/// The largest batch a players' inference server runs (the CPU's best forward throughput was at
/// batch 256 in `bench`).
pub const PLAYERS_MAX_BATCH: usize = 256;

/// Loads checkpoints for players (matches, gates, the Hub engine): one net per checkpoint behind
/// an inference server, so the players' searches on their separate threads share its forward
/// passes (batches of at most [`PLAYERS_MAX_BATCH`] positions), and the cache in front of it
/// (every game's searches share it: [`DEFAULT_EVAL_CACHE`] evaluations); inference in fp32.
#[derive(Clone, Copy, Debug, Default)]
pub struct TorchNetLoader;

impl NetLoader for TorchNetLoader {
    fn load(
        &self,
        checkpoint: &Path,
        device: DeviceSpec,
    ) -> Result<LoadedNet, Box<dyn std::error::Error + Send + Sync>> {
        let device = crate::resolve_device(device)?;
        let loaded = crate::checkpoint::load(checkpoint, None, device)?;
        let net = NetEvaluator::new(Inference::new(loaded.net, false));
        Ok(served(Box::new(CachedEvaluator::new(net, DEFAULT_EVAL_CACHE)), loaded.meta.step))
    }

    fn set_cpu_threads(&self, threads: usize) {
        crate::set_cpu_threads(threads);
    }
}

/// The loader of every net player (matches, gates, evaluations, the Hub engine): sparse nets run
/// natively (`sparsenet`), the ResNet's through libtorch ([`TorchNetLoader`]).
pub fn players_loader() -> Arc<dyn NetLoader> {
    Arc::new(sparsenet::ByFamily::new(Some(Arc::new(TorchNetLoader))))
}

/// A net for players: `evaluator` behind an inference server of batches of at most
/// [`PLAYERS_MAX_BATCH`], each player's evaluator a client of it.
pub fn served(evaluator: BoxedEvaluator, step: u64) -> LoadedNet {
    let server = InferenceServer::start(evaluator, PLAYERS_MAX_BATCH);
    LoadedNet {
        step,
        evaluators: Box::new(move || Box::new(server.client())),
        leaves_per_batch: None,
        leaf_evaluators: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NetConfig, PolicyValueNet};

    fn requests(count: usize) -> Vec<EvalRequest> {
        decision_requests(7, count)
    }

    #[test]
    fn evaluations_match_the_net_evals_of_the_model() {
        let net = PolicyValueNet::new(&NetConfig::new(1, 8), tch::Device::Cpu).unwrap();
        let mut evaluator = NetEvaluator::new(Inference::new(net, false));
        assert!(evaluator.evaluate(&[]).unwrap().is_empty());
        for count in [5, 2, 1] {
            let requests = requests(count);
            let observations: Vec<_> = requests.iter().map(|r| r.observation).collect();
            let expected = evaluator.net().evaluate(&observations).unwrap();
            let got = evaluator.evaluate(&requests).unwrap();
            assert_eq!(got.len(), count);
            for ((request, eval), got) in requests.iter().zip(&expected).zip(&got) {
                assert!(
                    (got.value - eval.value()).abs() < 1e-5,
                    "{} vs {}",
                    got.value,
                    eval.value()
                );
                let priors = eval.priors(&request.legal_steps, request.mover());
                assert_eq!(got.priors.len(), priors.len());
                assert!(
                    got.priors.iter().zip(&priors).all(|(a, b)| (a - b).abs() < 1e-5),
                    "{:?} vs {priors:?}",
                    got.priors
                );
            }
        }
    }

    #[test]
    fn an_inference_server_gives_exactly_what_a_direct_forward_gives() {
        let first = PolicyValueNet::new(&NetConfig::new(1, 8), tch::Device::Cpu).unwrap();
        let net = || {
            let mut copy = PolicyValueNet::new(&NetConfig::new(1, 8), tch::Device::Cpu).unwrap();
            copy.var_store_mut().copy(first.var_store()).unwrap();
            NetEvaluator::new(Inference::new(copy, false))
        };
        let all = requests(96);
        let expected = net().evaluate(&all).unwrap();
        let batching =
            search::Batching { max_batch: 40, max_wait: std::time::Duration::from_millis(1) };
        let server =
            InferenceServer::start_threads(vec![Box::new(net()), Box::new(net())], batching);
        std::thread::scope(|scope| {
            for (chunk, answers) in all.chunks(12).zip(expected.chunks(12)) {
                let mut client = server.client();
                scope.spawn(move || {
                    let got = client.evaluate(chunk).unwrap();
                    for (got, want) in got.iter().zip(answers) {
                        assert!((got.value - want.value).abs() < 1e-5, "{got:?} vs {want:?}");
                        let close = got.priors.iter().zip(&want.priors);
                        assert!(close.into_iter().all(|(a, b)| (a - b).abs() < 1e-5));
                    }
                });
            }
        });
    }
}
