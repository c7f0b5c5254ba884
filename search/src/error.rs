//! What can go wrong when driving a search: evaluations that do not fit the requests, steps that
//! are not legal, a game that is already over.

use draughts::Step;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SearchError {
    #[error("the game is already over; there is nothing to search")]
    GameOver,
    #[error("got {got} evaluations for {expected} pending leaves")]
    EvaluationCount { expected: usize, got: usize },
    #[error("evaluation {index}: {got} priors for {expected} legal steps")]
    PriorCount { index: usize, expected: usize, got: usize },
    #[error("evaluation {index}: {what} is not a finite, usable number")]
    BadNumber { index: usize, what: &'static str },
    #[error("{count} leaves still await evaluation; apply their evaluations first")]
    LeavesPending { count: usize },
    #[error("step from square {} towards {:?} is not legal at the root", .step.square, .step.dir)]
    IllegalStep { step: Step },
}
