//! The built-in players.

pub mod alphabeta;
pub mod mcts;
pub mod policy;
pub mod random;
