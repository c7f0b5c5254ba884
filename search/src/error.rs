//! What can go wrong when driving a search: evaluations that do not fit the requests, steps that
//! are not legal, a game that is already over.

use draughts::Step;

/// Why a search could not go on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SearchError {
    /// The position has no legal move or a draw rule has ended the game.
    #[error("the game is already over; there is nothing to search")]
    GameOver,
    /// The evaluator answered a different number of requests than it was given.
    #[error("got {got} evaluations for {expected} pending leaves")]
    EvaluationCount {
        /// Pending leaves (requests handed out).
        expected: usize,
        /// Evaluations given back.
        got: usize,
    },
    /// An evaluation's priors do not match its request's legal steps.
    #[error("evaluation {index}: {got} priors for {expected} legal steps")]
    PriorCount {
        /// Index of the evaluation among the batch.
        index: usize,
        /// Legal steps of its position.
        expected: usize,
        /// Priors it holds.
        got: usize,
    },
    /// An evaluation holds a NaN or infinite value or prior.
    #[error("evaluation {index}: {what} is not a finite, usable number")]
    BadNumber {
        /// Index of the evaluation among the batch.
        index: usize,
        /// Which number: the value, a prior, the moves left.
        what: &'static str,
    },
    /// The tree reached the most nodes a search may hold (its memory ceiling) before the
    /// search's budget: a budget that large is refused rather than left to exhaust memory.
    #[error("the search tree reached its limit of {limit} nodes (about {} MB) before its budget; ask for fewer playouts, or raise the limit with {}=N", (limit * crate::tree::NODE_BYTES) >> 20, crate::tree::MAX_TREE_NODES_VAR)]
    TreeFull {
        /// The limit in nodes.
        limit: usize,
    },
    /// The search was advanced or run again before its pending leaves were evaluated.
    #[error("{count} leaves still await evaluation; apply their evaluations first")]
    LeavesPending {
        /// Leaves awaiting evaluation.
        count: usize,
    },
    /// The evaluator could not evaluate a batch of leaves.
    #[error("the evaluator failed")]
    Evaluator(#[from] crate::evaluator::EvalError),
    /// A step that is not legal at the root was asked for.
    #[error("step from square {} towards {:?} is not legal at the root", .step.square, .step.dir)]
    IllegalStep {
        /// The step asked for.
        step: Step,
    },
}
