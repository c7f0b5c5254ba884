//! Behaviour tests across the crate's modules: real players in real games.

mod alphabeta_net;
mod batched;
mod clock;
mod egdb;
mod forced_wins;
mod matches;
mod net_players;
