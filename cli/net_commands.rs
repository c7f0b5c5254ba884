//! The commands that need libtorch, with their arguments. Their code lives in the net library
//! (`cli-torch/`, loaded by the binary only for these commands); the arguments live here so that
//! the binary parses, checks and explains every command line itself.

use ::egdb::MAX_PIECES;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use support::DeviceSpec;

/// The commands that need libtorch.
#[derive(Subcommand)]
pub enum NetCommand {
    /// The whole loop: self-play, training and gating until the budget is spent (resumes).
    Run(RunArgs),
    /// Self-play games with a run's best net into its trajectory shards.
    Selfplay(SelfplayArgs),
    /// Train on a run's shards (resumes), writing candidate nets for the gate.
    Train(TrainArgs),
    /// The evaluator: gate each new candidate against the run's best net, promoting the winners.
    Gate(GateArgs),
    /// Export a checkpoint for other engines (TorchScript, ONNX, safetensors) with a JSON description.
    Export(ExportArgs),
    /// Grow a sparse checkpoint (a wider accumulator, a value stack per bucket of material); the grown net computes the same outputs.
    Widen(WidenArgs),
    /// Average checkpoints of one architecture weight by weight (late nets of a run) into one.
    Average(AverageArgs),
    /// Elo ratings of every player in a run's recorded games, with a plot against training step.
    Ladder(LadderArgs),
    /// Every performance figure in one run: perft, search, forward, self-play, training.
    Bench(BenchArgs),
}

/// The run directory and config flags that `run`, `selfplay`, `train` and `gate` share.
#[derive(Args)]
pub struct RunDirArgs {
    /// The run: a folder, or `s3://bucket/prefix` with the endpoint and credentials in the AWS
    /// environment variables (created if new, resumed if not).
    #[arg(long, default_value = "checkpoints/default", value_name = "DIR|s3://BUCKET/PREFIX")]
    pub run_dir: String,
    /// For an `s3://` run: this process's local folder for the run's files (default:
    /// `$CHECKERS_ZERO_CACHE/runs/BUCKET/PREFIX/ROLE`, the cache under ~/.cache/checkers-zero);
    /// give each process on one machine its own. A local run works in its own folder.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Config of a new run (default: configs/default.toml); an existing run uses its own copy.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// `checkers-zero run`.
#[derive(Args)]
pub struct RunArgs {
    /// The run and its config.
    #[command(flatten)]
    pub run: RunDirArgs,
    /// The budget: total training steps. Any budget option replaces the config's whole budget
    /// for this call (the limits not given are off).
    #[arg(long)]
    pub train_steps: Option<u64>,
    /// The budget: total self-play games.
    #[arg(long)]
    pub selfplay_games: Option<u64>,
    /// The budget: total wall-clock minutes.
    #[arg(long)]
    pub wall_minutes: Option<f64>,
    /// The budget: total hours of the run process's CPU time (all its threads).
    #[arg(long)]
    pub cpu_hours: Option<f64>,
}

/// `checkers-zero selfplay`.
#[derive(Args)]
pub struct SelfplayArgs {
    /// The run and its config.
    #[command(flatten)]
    pub run: RunDirArgs,
    /// Games to play (default: the config's games per generation); with `--follow`, games per
    /// batch (a batch's summary line and its TensorBoard figures; a newly promoted net is taken up
    /// within seconds, in a batch too).
    #[arg(long)]
    pub games: Option<u64>,
    /// Worker threads (default: the config's; 0: one per core but one).
    #[arg(long)]
    pub workers: Option<usize>,
    /// Keep playing batch after batch with the newest best net (Ctrl-C stops).
    #[arg(long)]
    pub follow: bool,
}

/// `checkers-zero gate`.
#[derive(Args)]
pub struct GateArgs {
    /// The run and its config.
    #[command(flatten)]
    pub run: RunDirArgs,
    /// Keep waiting for new candidates instead of stopping when none is left to gate (Ctrl-C
    /// stops).
    #[arg(long)]
    pub follow: bool,
}

/// `checkers-zero train`.
#[derive(Args)]
pub struct TrainArgs {
    /// The run and its config.
    #[command(flatten)]
    pub run: RunDirArgs,
    /// Stop after this many training steps in this call (default: all the data pays for).
    #[arg(long)]
    pub steps: Option<u64>,
    /// Keep waiting for new shards instead of stopping when the data is used up (Ctrl-C stops).
    #[arg(long)]
    pub follow: bool,
}

/// `checkers-zero export`.
#[derive(Args)]
pub struct ExportArgs {
    /// The checkpoint (.safetensors) to export.
    pub checkpoint: PathBuf,
    /// The format to write (quantised: the sparse net's integer value path for alpha-beta
    /// engines, see docs/export.md).
    #[arg(long, value_parser = ["torchscript", "onnx", "safetensors", "quantised"])]
    pub format: String,
    /// The file to write; its description goes to FILE.json.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// `checkers-zero widen`.
#[derive(Args)]
pub struct WidenArgs {
    /// The sparse checkpoint (.safetensors) to grow.
    pub checkpoint: PathBuf,
    /// The new accumulator width (above the checkpoint's).
    #[arg(long, required_unless_present = "buckets")]
    pub accumulator: Option<usize>,
    /// Value stacks, one per bucket of material (2 to 8; the checkpoint's must be one): each a
    /// copy of the checkpoint's.
    #[arg(long)]
    pub buckets: Option<usize>,
    /// The file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Seed of the new units' random incoming weights.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// `checkers-zero average`.
#[derive(Args)]
pub struct AverageArgs {
    /// The checkpoints (.safetensors) to average: two or more of one architecture.
    #[arg(required = true, num_args = 2..)]
    pub checkpoints: Vec<PathBuf>,
    /// Each checkpoint's weight, in their order (normalised to sum 1; default: equal).
    #[arg(long, value_delimiter = ',', value_name = "W1,W2,...")]
    pub weights: Option<Vec<f64>>,
    /// The file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// `checkers-zero ladder`.
#[derive(Args)]
pub struct LadderArgs {
    /// The run: a folder or `s3://bucket/prefix`; its games are read from RUN/games/results.jsonl
    /// (on S3 also from the objects under RUN/games/results/).
    #[arg(value_name = "RUN_DIR|s3://BUCKET/PREFIX")]
    pub run_dir: String,
    /// For an `s3://` run: the local folder for its records and plots (default: under
    /// `$CHECKERS_ZERO_CACHE/runs/`).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// The player rated 0 (default: `random` when it played, else the fixed player with the most games,
    /// else the net of the lowest step).
    #[arg(long)]
    pub anchor: Option<String>,
    /// Where to write the plot against training step (default: RUN/elo.svg, in the cache for an
    /// S3 run); the plot against wall
    /// time goes beside it, with `-time` added before the extension (RUN/elo-time.svg).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}

/// `egdb accuracy` (run by the net library; the other `egdb` subcommands are the binary's).
#[derive(Args)]
pub struct AccuracyArgs {
    /// The checkpoint file (a net or a training state).
    pub net: PathBuf,
    /// Folder of the tables [default: the per-machine cache, `$CHECKERS_ZERO_CACHE/egdb`].
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Positions of at most this many pieces.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=MAX_PIECES as i64))]
    pub pieces: u32,
    /// Seed of the set (a run's `seed` gives the set that run measures on).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// `checkers-zero bench`.
#[derive(Args)]
pub struct BenchArgs {
    /// Short measurements (under a minute on a 2-core CPU), for smoke tests.
    #[arg(long)]
    pub quick: bool,
    /// Also write the figures as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Where the net runs: cpu, cuda, cuda:N or auto (default: the config's device).
    #[arg(long)]
    pub device: Option<DeviceSpec>,
    /// The config whose net, self-play and training settings are measured.
    #[arg(long, default_value = "configs/default.toml")]
    pub config: PathBuf,
}
