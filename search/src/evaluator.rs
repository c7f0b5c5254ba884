//! The search's only view of a net: decision points in, priors and values out, in batches.
//! Also two evaluators that need no net: uniform, and scripted (for tests); and [`NetLoader`],
//! through which players get nets without this crate (or the arena) depending on libtorch.

use draughts::{Color, Observation, Position, Step, StepList};
use smallvec::SmallVec;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use support::DeviceSpec;

/// One prior per legal step, in the order of [`EvalRequest::legal_steps`].
pub type Priors = SmallVec<[f32; 48]>;

/// A decision point to evaluate.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalRequest {
    /// What the net sees (the board, a capture in progress, the draw counters).
    pub observation: Observation,
    /// The legal next steps, in `draughts::Turn::legal_steps()` order; never empty.
    pub legal_steps: StepList,
}

/// The evaluator's answer for one request.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// One prior per legal step (same order as the request). The search normalises them; they
    /// must be finite and not negative.
    pub priors: Priors,
    /// Expected result for the side to move at the request, in [-1, 1] (clamped by the search).
    pub value: f32,
    /// Probability that the game is drawn, in [0, 1 - |value|] (clamped by the search); 0 from an
    /// evaluator that does not estimate it.
    pub draw: f32,
}

/// Evaluates decision points in batches. One call per batch: a net runs one forward pass for all
/// of `requests`.
pub trait Evaluator {
    /// Returns one evaluation per request, in order, or why the batch could not be evaluated
    /// (e.g. the device ran out of memory).
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError>;

    /// Requests answered so far without the net, from a cache in front of it (see
    /// [`crate::CachedEvaluator`]); 0 for an evaluator without one.
    fn answered_from_cache(&self) -> u64 {
        0
    }

    /// An incremental evaluator for alpha-beta over the same net as it is now (see
    /// [`crate::alphabeta::LeafEvaluator`]), for a net that has one (the sparse family's,
    /// natively); `None` for the others.
    fn leaf_evaluator(&mut self) -> Option<Box<dyn crate::alphabeta::LeafEvaluator>> {
        None
    }
}

impl<E: Evaluator + ?Sized> Evaluator for Box<E> {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        (**self).evaluate(requests)
    }

    fn answered_from_cache(&self) -> u64 {
        (**self).answered_from_cache()
    }

    fn leaf_evaluator(&mut self) -> Option<Box<dyn crate::alphabeta::LeafEvaluator>> {
        (**self).leaf_evaluator()
    }
}

/// Why an evaluator could not evaluate a batch: the batch's size and the cause (the net's error,
/// naming its device). Cheap to clone, so one failure can answer every search that waited on it.
#[derive(Clone, Debug, thiserror::Error)]
#[error("evaluating a batch of {batch} positions")]
pub struct EvalError {
    /// Positions in the batch.
    pub batch: usize,
    /// What failed.
    #[source]
    pub source: Arc<dyn std::error::Error + Send + Sync>,
}

/// Equal when the batch and the cause's message are (errors carry no other identity).
impl PartialEq for EvalError {
    fn eq(&self, other: &EvalError) -> bool {
        self.batch == other.batch && self.source.to_string() == other.source.to_string()
    }
}

impl EvalError {
    /// A failure of a batch of `batch` positions, caused by `source`.
    pub fn new(batch: usize, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        EvalError { batch, source: Arc::from(source.into()) }
    }
}

/// An evaluator that can move to another thread (each game of a match plays on its own).
pub type BoxedEvaluator = Box<dyn Evaluator + Send>;

/// Loads nets for net players: implemented by the crate that runs nets (libtorch), handed to the
/// code that builds players, so that the search and the arena need no tch.
pub trait NetLoader: Send + Sync + std::fmt::Debug {
    /// Loads the checkpoint at `checkpoint` onto `device`, once for every player that uses it.
    fn load(
        &self,
        checkpoint: &Path,
        device: DeviceSpec,
    ) -> Result<LoadedNet, Box<dyn std::error::Error + Send + Sync>>;

    /// Sets the CPU threads each forward pass of the nets may use (libtorch's intra-op threads,
    /// for the whole process), for a process that plays only with its nets (a match, the Hub
    /// engine). A loader whose nets have no CPU threads of their own ignores it.
    fn set_cpu_threads(&self, _threads: usize) {}
}

/// A loaded net: its training step, and evaluators over it (one per player, all sharing it).
pub struct LoadedNet {
    /// The checkpoint's training step.
    pub step: u64,
    /// Makes one more evaluator over the net.
    pub evaluators: Box<dyn Fn() -> BoxedEvaluator + Send + Sync>,
    /// Leaves per batch a search of this net's evaluators should send, where it is not the
    /// players' default: `Some(1)` for a net that evaluates one position as cheaply as many, so
    /// its searches need no virtual loss.
    pub leaves_per_batch: Option<u32>,
    /// Makes one more incremental evaluator for alpha-beta over the net, for a net that has one
    /// (the sparse family's, natively); an alpha-beta player of a net without one asks its
    /// evaluators about each leaf.
    pub leaf_evaluators: Option<LeafEvaluators>,
}

/// Makes incremental evaluators for alpha-beta over one net (see [`LoadedNet::leaf_evaluators`]).
pub type LeafEvaluators = Box<dyn Fn() -> Box<dyn crate::alphabeta::LeafEvaluator> + Send + Sync>;

impl std::fmt::Debug for LoadedNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedNet").field("step", &self.step).finish_non_exhaustive()
    }
}

impl EvalRequest {
    /// The side to move (the one that takes the next step).
    pub fn mover(&self) -> Color {
        self.observation.position.side_to_move()
    }

    /// The policy index (0..128, mover's frame) of each legal step, in order.
    pub fn policy_indices(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        let mover = self.mover();
        self.legal_steps.iter().map(move |step| step.index_for(mover))
    }
}

/// Priors from the logits of the legal steps (in their order): their softmax, shifted by the
/// largest logit for stability, computed inline.
pub fn priors_from_logits(logits: impl Iterator<Item = f32>) -> Priors {
    let mut out: Priors = logits.collect();
    let max = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    out.iter_mut().for_each(|l| *l = (*l - max).exp());
    let sum: f32 = out.iter().sum();
    out.iter_mut().for_each(|p| *p /= sum);
    out
}

/// Equal priors and value 0 everywhere: pure search guided only by terminal positions.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(requests.iter().map(uniform).collect())
    }
}

fn uniform(request: &EvalRequest) -> Evaluation {
    let n = request.legal_steps.len();
    Evaluation { priors: std::iter::repeat_n(1.0 / n as f32, n).collect(), value: 0.0, draw: 0.0 }
}

/// A uniform evaluator with chosen values for chosen positions and chosen prior weights for
/// chosen steps; counts its calls. For tests.
#[derive(Clone, Debug, Default)]
pub struct ScriptedEvaluator {
    values: HashMap<Position, f32>,
    step_weights: HashMap<Step, f32>,
    /// Number of `evaluate` calls so far.
    pub calls: usize,
    /// Number of requests evaluated so far.
    pub requests: usize,
}

impl ScriptedEvaluator {
    /// An evaluator with no scripted values: uniform priors and value 0 everywhere.
    pub fn new() -> Self {
        Self::default()
    }

    /// Answer `value` (side to move's view) at every decision point of a move from `position`
    /// (the position before the move, as in [`Observation::position`]).
    pub fn with_value(mut self, position: Position, value: f32) -> Self {
        self.values.insert(position, value);
        self
    }

    /// Give `step` prior weight `weight` wherever it is legal (others weigh 1), before normalising.
    pub fn with_step_weight(mut self, step: Step, weight: f32) -> Self {
        self.step_weights.insert(step, weight);
        self
    }
}

impl Evaluator for ScriptedEvaluator {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        self.calls += 1;
        self.requests += requests.len();
        Ok(requests
            .iter()
            .map(|request| {
                let weights: Priors = request
                    .legal_steps
                    .iter()
                    .map(|s| *self.step_weights.get(s).unwrap_or(&1.0))
                    .collect();
                let total: f32 = weights.iter().sum();
                Evaluation {
                    priors: weights.iter().map(|w| w / total).collect(),
                    value: self.values.get(&request.observation.position).copied().unwrap_or(0.0),
                    draw: 0.0,
                }
            })
            .collect())
    }
}
