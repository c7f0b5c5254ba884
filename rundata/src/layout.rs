//! The names of a run folder's parts, relative to its root: the one place they are spelt, for a
//! local folder ([`crate::RunDir`]'s paths) and an S3 run's keys alike.

/// The resolved config, headed by the version and commit that wrote it.
pub const CONFIG: &str = "config.toml";
/// The budget spent so far (wall time over every resumed session).
pub const PROGRESS: &str = "progress.json";
/// Candidate nets written by the trainer (`step-N.safetensors`).
pub const NETS: &str = "nets";
/// The trainer's states for resuming (`state-N.safetensors`).
pub const TRAIN: &str = "train";
/// Trajectory shards from self-play.
pub const SHARDS: &str = "shards";
/// Games as PDN, and the results log.
pub const GAMES: &str = "games";
/// TensorBoard event files.
pub const TB: &str = "tb";
/// The per-generation best-net pointers (`gen-NNNNNN.json`).
pub const BEST_POINTERS: &str = "best";
/// The single best-net pointer of the old layout, still read.
pub const LEGACY_BEST: &str = "best.json";
/// The gate log: one record per gate decision (on S3, objects under `gates/`).
pub const GATES_LOG: &str = "gates.jsonl";
/// The results log: one record per game of a gate, an evaluation or a match (the ladder's input;
/// on S3, objects under `games/results/`).
pub const RESULTS_LOG: &str = "games/results.jsonl";
/// The evaluation log: one record per net and fixed opponent (on S3, objects under `eval/`).
pub const EVALUATIONS_LOG: &str = "eval.jsonl";
