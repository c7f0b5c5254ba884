//! Self-play settings: workers, games in flight, draw rules and the search, as one serde section.

use draughts::DrawRules;
use search::settings::{Invalid, Range};
use search::{MctsConfig, DEFAULT_EVAL_CACHE};
use serde::{Deserialize, Serialize};

search::settings! {
    /// The `[selfplay]` section of a run config. Each setting is declared once below: its type,
    /// default and range (see [`search::settings!`]); the search has a table of its own.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct SelfPlayConfig ("selfplay.") {
        /// Worker threads, each with its own batch of games (and its own copy of the net unless
        /// the workers share an inference server, `server.threads`); 0: one per core of the
        /// machine but one (the trainer's), at least one (see [`SelfPlayConfig::worker_threads`]).
        workers: usize = 1, Range::Whole(0, 256);
        /// Games one worker keeps in flight; their leaves form one batch for the net
        /// (batch size up to `games_in_flight * mcts.leaves_per_batch`).
        games_in_flight: usize = 64, Range::Whole(1, 65_536);
        /// Finished games written together in one shard. 1 makes every finished game durable at once.
        games_per_shard: usize = 1, Range::Whole(1, 100_000);
        /// Evaluations each worker keeps to answer a repeated position without the net (see
        /// `search::CachedEvaluator`); 0: none.
        eval_cache: usize = DEFAULT_EVAL_CACHE, Range::AtMost(16_777_216.0);
        /// Also write every game as PDN (one file per shard) under the run's `games/` folder.
        write_pdn: bool = true, Range::Any;
        /// The searches take the positions (at the start of a move) the endgame tables of the
        /// run's `[egdb]` section cover as exact leaves; off, they ask the net there as anywhere
        /// (the tables then only adjudicate or rescore, and measure the value head).
        search_egdb: bool = true, Range::Any;
        /// End a game at the first position (at the start of a move) the endgame tables of the
        /// run's `[egdb]` section cover, with their result; off, the game is played to its end.
        adjudicate_egdb: bool = false, Range::Any;
        /// Play every game to its end, then give each decision the result the endgame tables give
        /// from the first position they cover (and each decision there its own position's exact
        /// value as result and search value): the endings are trained on, with best-play results.
        rescore_egdb: bool = false, Range::Any;
        /// Nodes of the alpha-beta engine (the full one, the net at its quiet leaves) that score
        /// each decision at the start of a move once its game has ended: its score becomes the
        /// decision's search value (`train.search_value_weight` mixes it with the game's
        /// result) in place of the MCTS root's. 0: the root's value. Needs the sparse net.
        value_search_nodes: u64 = 0, Range::AtMost(1e9);
        /// Once a game has ended, each decision's search value becomes the λ-return of the
        /// game's root values from it on: `(1 - λ)` times its own plus `λ` times the next
        /// decision's return (from its side; after the last decision, the result). 0: its own
        /// root value; 1: the result. Applied after `value_search_nodes` and `rescore_egdb`.
        value_lambda: f32 = 0.0, Range::Closed(0.0, 1.0);
        sections:
        /// Where the games start: the start position, or ballots of an opening deck.
        openings: OpeningsConfig;
        /// One inference server the workers share, or none.
        server: ServerConfig;
        /// When a game is drawn.
        draw: DrawConfig;
        tables:
        /// The search of every decision: visits, noise, temperature, resignation.
        mcts: MctsConfig;
    }
}

search::settings! {
    /// The `[selfplay.openings]` section: a share of the games start from a ballot of an opening
    /// deck (its moves played from the start position, a ballot drawn uniformly per game) instead
    /// of the start position, so that self-play meets the openings matches are played from.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct OpeningsConfig ("selfplay.openings.") {
        /// The share of games that start from a ballot of `deck`.
        share: f64 = 1.0, Range::Closed(0.0, 1.0);
        rules:
        /// The deck: "" (every game from the start position), `standard` (the ACF 3-move deck
        /// the project ships), or a deck file (a ballot a line, as `match --openings` reads).
        deck: String = String::new(), "`\"\"`, `standard` or a deck file", |_: &String| Ok::<(), Invalid>(());
    }
}

impl OpeningsConfig {
    /// The deck named by `deck = "standard"`.
    pub const STANDARD: &'static str = "standard";
}

search::settings! {
    /// The `[selfplay.server]` section: whether the workers send their leaves to one inference
    /// server (see `search::InferenceServer`) that merges them into larger batches, instead of
    /// each worker running its own copy of the net. Meant for a GPU, where one big batch beats
    /// many small ones.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct ServerConfig ("selfplay.server.") {
        /// Server threads, each with its own copy of the net, overlapping one batch's host work
        /// with another's forward pass; 0: no server, each worker evaluates its own batches.
        threads: usize = 0, Range::Whole(0, 16);
        /// The most positions in one batch of the server.
        max_batch: usize = 4096, Range::Whole(1, 65_536);
        /// Microseconds a batch may wait for more workers' leaves (it runs at once when every
        /// worker is waiting for answers, or it is full).
        max_wait_us: u64 = 500, Range::AtMost(1_000_000.0);
    }
}

impl ServerConfig {
    /// How the server forms its batches.
    pub fn batching(&self) -> search::Batching {
        search::Batching {
            max_batch: self.max_batch,
            max_wait: std::time::Duration::from_micros(self.max_wait_us),
        }
    }
}

search::settings! {
    /// Draw rules (see `draughts::DrawRules`, whose defaults these are); 0 turns a rule off.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct DrawConfig ("selfplay.draw.") {
        /// The same position reached this many times is a draw (1 would end every game at once).
        repetitions: u8 = DrawRules::default().repetitions, Range::OffOrAtLeast(2.0);
        /// This many moves by each side without a capture or a man's move is a draw.
        no_progress_moves: u16 = DrawRules::default().no_progress_moves, Range::Any;
        /// A hard cap on a game's length in plies.
        max_plies: u16 = DrawRules::default().max_plies, Range::Any;
    }
}

impl From<DrawConfig> for DrawRules {
    fn from(c: DrawConfig) -> DrawRules {
        DrawRules {
            repetitions: c.repetitions,
            no_progress_moves: c.no_progress_moves,
            max_plies: c.max_plies,
        }
    }
}

/// `workers = 0`'s worker threads on a machine with `cores` cores: one core is left to the
/// trainer (and the gate) when there are two or more.
fn workers_for_cores(cores: usize) -> usize {
    cores.saturating_sub(1).max(1)
}

/// A self-play setting out of range, named by its dotted path from the config's root.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SelfPlayConfigError {
    /// A setting of `[selfplay]` itself or of a section in it (`selfplay.draw.repetitions`).
    #[error(transparent)]
    Field(#[from] Invalid),
    /// A setting of `[selfplay.mcts]`.
    #[error("in section [selfplay.mcts]")]
    Mcts(#[source] search::ConfigError),
}

impl SelfPlayConfig {
    /// The worker threads self-play runs: `workers`, or with 0 one per core the process may use
    /// but one, at least one.
    pub fn worker_threads(&self) -> usize {
        match self.workers {
            0 => workers_for_cores(std::thread::available_parallelism().map_or(1, |n| n.get())),
            workers => workers,
        }
    }

    /// The threads that run the net's forward passes: the server's, or else the workers.
    pub fn forward_threads(&self) -> usize {
        match self.server.threads {
            0 => self.worker_threads(),
            threads => threads,
        }
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), SelfPlayConfigError> {
        self.check_ranges()?;
        self.mcts.validate().map_err(SelfPlayConfigError::Mcts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_workers_means_every_core_but_the_trainers() {
        assert_eq!([1, 2, 3, 16].map(workers_for_cores), [1, 1, 2, 15]);
        let auto = SelfPlayConfig { workers: 0, ..SelfPlayConfig::default() };
        let cores = std::thread::available_parallelism().unwrap().get();
        assert_eq!(auto.worker_threads(), workers_for_cores(cores));
        assert_eq!(auto.forward_threads(), auto.worker_threads());
        let fixed = SelfPlayConfig { workers: 3, ..SelfPlayConfig::default() };
        assert_eq!((fixed.worker_threads(), fixed.forward_threads()), (3, 3));
        assert!(auto.validate().is_ok());
    }
}
