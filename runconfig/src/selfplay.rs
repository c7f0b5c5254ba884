//! Self-play settings: workers, games in flight, draw rules and the search, as one serde section.

use draughts::DrawRules;
use search::{MctsConfig, DEFAULT_EVAL_CACHE};
use serde::{Deserialize, Serialize};

/// The `[selfplay]` section of a run config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// Worker threads, each with its own batch of games (and its own copy of the net unless the
    /// workers share an inference server, `server.threads`).
    pub workers: usize,
    /// Games one worker keeps in flight; their leaves form one batch for the net
    /// (batch size up to `games_in_flight * mcts.leaves_per_batch`).
    pub games_in_flight: usize,
    /// Finished games written together in one shard. 1 makes every finished game durable at once.
    pub games_per_shard: usize,
    /// Evaluations each worker keeps to answer a repeated position without the net (see
    /// `search::CachedEvaluator`); 0: none.
    pub eval_cache: usize,
    /// Also write every game as PDN (one file per shard) under the run's `games/` folder.
    pub write_pdn: bool,
    /// End a game at the first position (at the start of a move) the endgame tables of the run's
    /// `[egdb]` section cover, with their result; off, the tables only guide the search.
    pub adjudicate_egdb: bool,
    /// One inference server the workers share, or none.
    pub server: ServerConfig,
    /// When a game is drawn.
    pub draw: DrawConfig,
    /// The search of every decision: visits, noise, temperature, resignation.
    pub mcts: MctsConfig,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            workers: 1,
            games_in_flight: 64,
            games_per_shard: 1,
            eval_cache: DEFAULT_EVAL_CACHE,
            write_pdn: true,
            adjudicate_egdb: false,
            server: ServerConfig::default(),
            draw: DrawConfig::default(),
            mcts: MctsConfig::default(),
        }
    }
}

/// The `[selfplay.server]` section: whether the workers send their leaves to one inference server
/// (see `search::InferenceServer`) that merges them into larger batches, instead of each worker
/// running its own copy of the net. Meant for a GPU, where one big batch beats many small ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    /// Server threads, each with its own copy of the net, overlapping one batch's host work with
    /// another's forward pass; 0: no server, each worker evaluates its own batches.
    pub threads: usize,
    /// The most positions in one batch of the server.
    pub max_batch: usize,
    /// Microseconds a batch may wait for more workers' leaves (it runs at once when every worker
    /// is waiting for answers, or it is full).
    pub max_wait_us: u64,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig { threads: 0, max_batch: 4096, max_wait_us: 500 }
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

/// Draw rules (see `draughts::DrawRules`); 0 turns a rule off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DrawConfig {
    /// The same position reached this many times is a draw.
    pub repetitions: u8,
    /// This many moves by each side without a capture or a man's move is a draw.
    pub no_progress_moves: u16,
    /// A hard cap on a game's length in plies.
    pub max_plies: u16,
}

impl Default for DrawConfig {
    fn default() -> Self {
        let rules = DrawRules::default();
        DrawConfig {
            repetitions: rules.repetitions,
            no_progress_moves: rules.no_progress_moves,
            max_plies: rules.max_plies,
        }
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

/// A self-play setting out of range, named by its dotted path from the config's root.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SelfPlayConfigError {
    /// A setting of `[selfplay]` itself.
    #[error("`selfplay.{field}` is invalid: {problem}")]
    Field {
        /// The dotted path inside `[selfplay]`, e.g. `draw.repetitions`.
        field: &'static str,
        /// The allowed range, or why the value cannot work.
        problem: &'static str,
    },
    /// A setting of `[selfplay.mcts]`.
    #[error("in section [selfplay.mcts]")]
    Mcts(#[source] search::ConfigError),
}

impl SelfPlayConfig {
    /// The threads that run the net's forward passes: the server's, or else the workers.
    pub fn forward_threads(&self) -> usize {
        match self.server.threads {
            0 => self.workers,
            threads => threads,
        }
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), SelfPlayConfigError> {
        let bad = |field, problem| Err(SelfPlayConfigError::Field { field, problem });
        if !(1..=256).contains(&self.workers) {
            return bad("workers", "must be in 1..=256");
        }
        if !(1..=65_536).contains(&self.games_in_flight) {
            return bad("games_in_flight", "must be in 1..=65536");
        }
        if self.eval_cache > 1 << 24 {
            return bad("eval_cache", "must be at most 16777216 evaluations");
        }
        if !(1..=100_000).contains(&self.games_per_shard) {
            return bad("games_per_shard", "must be in 1..=100000");
        }
        if self.server.threads > 16 {
            return bad("server.threads", "must be in 0..=16");
        }
        if !(1..=65_536).contains(&self.server.max_batch) {
            return bad("server.max_batch", "must be in 1..=65536");
        }
        if self.server.max_wait_us > 1_000_000 {
            return bad("server.max_wait_us", "must be at most 1000000 (one second)");
        }
        if self.draw.repetitions == 1 {
            return bad(
                "draw.repetitions",
                "1 would end every game at once; use 0 (off) or at least 2",
            );
        }
        self.mcts.validate().map_err(SelfPlayConfigError::Mcts)
    }
}
