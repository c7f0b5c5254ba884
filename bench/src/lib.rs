//! `checkers-zero bench`: every performance figure in one run (move generation, search, forward
//! passes, self-play with its inference efficiency, training, the alpha-beta engine with the
//! shipped net), as a table and optionally as JSON. Each measurement has its own module; this one
//! only orchestrates and prints.

mod alphabeta;
mod families;
mod forward;
mod matches;
mod mcts;
mod raw_forward;
mod report;
mod self_play;
mod sizes;
mod training;

use alphabeta::{bench_alphabeta, AlphaBetaBench};
use anyhow::{Context, Result};
use families::{bench_families, FamilyPlan};
use matches::{bench_matches, MatchBench};
use model::{Inference, ModelError, PolicyValueNet};
use report::Figures;
use runconfig::RunConfig;
use self_play::{bench_selfplay, bench_selfplay_served, SelfPlayBench, ServedBench};
use selfplay::{SessionError, SessionTotals};
use sizes::{bench_sizes, SizePlan};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::DeviceSpec;
use training::{bench_train, TrainBench};

/// How long each measurement runs.
struct Plan {
    perft_depth: u32,
    mcts: Duration,
    /// Each forward figure: this long in all, in this many interleaved slices.
    forward: Duration,
    forward_slices: u32,
    /// Self-play rounds are played until this much time has passed (at least one round).
    selfplay: Duration,
    train_steps: u64,
    train_positions: usize,
    /// Games of the match figure, all in flight at once as in `match` (at self-play's full
    /// playouts, or at most `match_playouts`).
    match_games: usize,
    /// The match figure's playouts a move when fewer than self-play's: a short stage whose games
    /// still fill the nets' batches as a real match's do (two games at once would give batches
    /// of one or two positions, a figure of latency, not of throughput).
    match_playouts: Option<u32>,
    /// The two families side by side.
    families: FamilyPlan,
    /// The alpha-beta engines: time a move, positions, and the depth of the refinements' node
    /// counts.
    alphabeta: (Duration, usize, u32),
    /// The sparse net at each size.
    sizes: SizePlan,
}

const FULL: Plan = Plan {
    perft_depth: 11,
    mcts: Duration::from_secs(5),
    forward: Duration::from_secs(8),
    forward_slices: 4,
    selfplay: Duration::from_secs(120),
    train_steps: 60,
    train_positions: 100_000,
    match_games: 64,
    match_playouts: None,
    families: FamilyPlan {
        evaluations: Duration::from_secs(3),
        search: Duration::from_secs(5),
        selfplay: Duration::from_secs(60),
        games_per_round: u64::MAX,
    },
    alphabeta: (Duration::from_millis(100), 60, 10),
    sizes: SizePlan {
        evaluations: Duration::from_secs(3),
        per_move: Duration::from_millis(100),
        positions: 30,
    },
};

const QUICK: Plan = Plan {
    perft_depth: 11,
    mcts: Duration::from_secs(1),
    forward: Duration::from_millis(800),
    forward_slices: 1,
    selfplay: Duration::ZERO,
    train_steps: 10,
    train_positions: 4_096,
    match_games: 64,
    match_playouts: Some(16),
    families: FamilyPlan {
        evaluations: Duration::from_millis(200),
        search: Duration::from_millis(300),
        selfplay: Duration::ZERO,
        games_per_round: 4,
    },
    alphabeta: (Duration::from_millis(20), 4, 4),
    sizes: SizePlan {
        evaluations: Duration::from_millis(200),
        per_move: Duration::from_millis(20),
        positions: 2,
    },
};

/// Batch sizes of the forward-pass figures.
const FORWARD_BATCHES: [usize; 5] = [1, 64, 256, 1024, 4096];

/// What `checkers-zero bench` measures.
pub struct BenchOptions {
    /// Short measurements (under a minute on a 2-core CPU), for smoke tests.
    pub quick: bool,
    /// Also write the figures as JSON to this file.
    pub json: Option<PathBuf>,
    /// Where the net runs (default: the config's device).
    pub device: Option<DeviceSpec>,
    /// The config whose net, self-play and training settings are measured.
    pub config: PathBuf,
    /// The shipped net's checkpoint, which the alpha-beta engine plays.
    pub shipped_net: PathBuf,
}

/// `checkers-zero bench`: every performance figure, as a table and optionally JSON.
pub fn run(options: BenchOptions) -> Result<()> {
    let mut config = RunConfig::load(&options.config)?;
    if let Some(device) = options.device {
        config.device = device;
    }
    let plan = if options.quick { QUICK } else { FULL };
    let device = model::resolve_device(config.device)?;
    // One thread setting for every net figure: the one self-play uses.
    model::configure_cpu_threads(config.cpu_threads, config.selfplay.worker_threads());
    tch::manual_seed(config.seed as i64);
    let clock = Clock(Instant::now());

    clock.stage(format!("perft depth {} (one thread)", plan.perft_depth));
    let t = Instant::now();
    let perft_nodes = draughts::perft(&draughts::Position::start(), plan.perft_depth);
    let perft_nodes_per_s = perft_nodes as f64 / t.elapsed().as_secs_f64();

    clock.stage("MCTS with the uniform evaluator (one thread)");
    let mcts_sims_per_s = mcts::uniform_sims_per_sec(plan.mcts);

    let NetFigures { forward, selfplay, served, matches, train } =
        measure_nets(&config, &plan, device, &clock)?;

    // The net figures' thread setting, for the report, before the families take one thread.
    let threads = tch::get_num_threads();
    clock.stage("the sparse net against the 4x32 ResNet, one thread each");
    model::set_cpu_threads(1);
    let families =
        bench_families(&config.selfplay, config.budget.games_per_generation, plan.families)?;

    let alphabeta = measure_alphabeta(&options.shipped_net, &plan, &clock)?;

    let shown = sizes::SIZES.map(|(a, b)| format!("{a}x{b}"));
    clock.stage(format!("the sparse net at (accumulator x buckets) {shown:?} (one thread)"));
    let sizes = bench_sizes(&model::decision_requests(0x5eed, 4096), plan.sizes)?;

    let figures = Figures {
        perft_nodes_per_s,
        perft_depth: plan.perft_depth,
        perft_nodes,
        mcts_sims_per_s,
        forward_pos_per_s_b1: forward[0],
        forward_pos_per_s_b64: forward[1],
        forward_pos_per_s_b256: forward[2],
        forward_pos_per_s_b1024: forward[3],
        forward_pos_per_s_b4096: forward[4],
        selfplay_pos_per_s: selfplay.positions_per_s,
        inference_efficiency: selfplay.inference_efficiency,
        selfplay_cache_hit_rate: selfplay.cache_hit_rate,
        selfplay_games_per_hour: selfplay.games_per_hour,
        selfplay_server_pos_per_s: served.as_ref().map(|s| s.positions_per_s),
        selfplay_server_games_per_hour: served.as_ref().map(|s| s.games_per_hour),
        selfplay_server_mean_batch: served.as_ref().map(|s| s.mean_batch),
        selfplay_server_speedup: served
            .as_ref()
            .map(|s| s.positions_per_s / selfplay.positions_per_s.max(1e-9)),
        match_pos_per_s: matches.positions_per_s,
        match_efficiency: matches.positions_per_s / selfplay.positions_per_s.max(1e-9),
        match_games_per_hour: matches.games_per_hour,
        match_mean_batch: matches.mean_batch,
        train_samples_per_s: train.pipeline_samples_per_s,
        train_sync_samples_per_s: train.sync_samples_per_s,
        train_efficiency: train.ratio,
        train_aux_samples_per_s: train.aux_samples_per_s,
        train_aux_ratio: train.aux_samples_per_s / train.pipeline_samples_per_s.max(1e-9),
        families,
        alphabeta,
        sizes,
        threads,
        device: report::device_name(device),
        version: env!("CARGO_PKG_VERSION").to_string(),
        date: report::utc_now(),
        machine: report::machine(),
    };
    clock.stage("done");
    report::print_table(
        &figures,
        &config,
        &selfplay,
        served.as_ref(),
        &matches,
        &train,
        options.quick,
    );
    if let Some(path) = &options.json {
        write_json(path, &figures)?;
    }
    Ok(())
}

/// Self-play rounds with a progress bar per round.
/// The figures of the net in the config: forward passes, self-play (through an inference server
/// too, when the config has one), matches and training.
struct NetFigures {
    forward: [f64; 5],
    selfplay: SelfPlayBench,
    served: Option<ServedBench>,
    matches: MatchBench,
    train: TrainBench,
}

/// Measures the config's net on `device`, each figure a stage of `clock`.
fn measure_nets(
    config: &RunConfig,
    plan: &Plan,
    device: tch::Device,
    clock: &Clock,
) -> Result<NetFigures> {
    let bf16 = config.bf16 && device.is_cuda();
    let new_inference = || -> Result<Inference, ModelError> {
        PolicyValueNet::new(&config.net, device).map(|net| Inference::new(net, bf16))
    };
    clock.stage(format!("forward passes, batches {FORWARD_BATCHES:?}"));
    let forward = forward_rates(&new_inference()?, plan)?;

    clock.stage(format!("self-play, rounds of {} games", config.budget.games_per_generation));
    let selfplay = measure_selfplay(config, plan, &new_inference)?;
    let served = match config.selfplay.server.threads {
        0 => None,
        threads => {
            clock.stage(format!(
                "self-play again, through an inference server of {threads} threads"
            ));
            model::configure_cpu_threads(config.cpu_threads, threads);
            let served = measure_served(config, plan, &new_inference)?;
            model::configure_cpu_threads(config.cpu_threads, config.selfplay.worker_threads());
            Some(served)
        }
    };

    let full = config.selfplay.mcts.playout_cap.full_visits;
    let playouts = plan.match_playouts.map_or(full, |cap| cap.min(full));
    clock.stage(format!("matches, {} games at {playouts} playouts", plan.match_games));
    let matches = bench_matches(&new_inference, playouts, plan.match_games)?;

    clock.stage(format!("training, batch {}", config.train.batch_size));
    let train =
        bench_train(&config.net, &config.train, plan.train_steps, plan.train_positions, device)?;
    Ok(NetFigures { forward, selfplay, served, matches, train })
}

/// The alpha-beta engines with the shipped net at `shipped` (one thread), a stage of `clock`.
fn measure_alphabeta(shipped: &Path, plan: &Plan, clock: &Clock) -> Result<AlphaBetaBench> {
    let (per_move, positions, feature_depth) = plan.alphabeta;
    clock.stage(format!(
        "alpha-beta with the shipped net, {positions} positions at {} s (one thread)",
        per_move.as_secs_f64()
    ));
    let shipped = std::sync::Arc::new(sparsenet::SparseWeights::load(shipped)?.0);
    let requests = model::decision_requests(0x5eed, 4096);
    Ok(bench_alphabeta(&shipped, &requests, per_move, positions, feature_depth))
}

fn measure_selfplay(
    config: &RunConfig,
    plan: &Plan,
    new_inference: &(impl Fn() -> Result<Inference, ModelError> + Sync),
) -> Result<SelfPlayBench> {
    with_round_bar(config, |games, shown| {
        bench_selfplay(&config.selfplay, games, new_inference, plan.selfplay, shown)
    })
}

/// The same rounds through one inference server, with a progress bar per round.
fn measure_served(
    config: &RunConfig,
    plan: &Plan,
    new_inference: &impl Fn() -> Result<Inference, ModelError>,
) -> Result<ServedBench> {
    with_round_bar(config, |games, shown| {
        bench_selfplay_served(&config.selfplay, games, new_inference, plan.selfplay, shown)
    })
}

/// Runs `measure(games per round, show)` with a bar of the round's games.
fn with_round_bar<T>(
    config: &RunConfig,
    measure: impl FnOnce(u64, &mut dyn FnMut(&SessionTotals)) -> Result<T, SessionError>,
) -> Result<T> {
    let games = config.budget.games_per_generation;
    let bar = progress::bar(games, "games");
    let figures = measure(games, &mut |totals| {
        bar.set_position(totals.games);
        bar.set_message(totals.describe());
    })?;
    bar.finish_and_clear();
    Ok(figures)
}

/// Positions/s at each of [`FORWARD_BATCHES`], measured in interleaved slices of equal time, so a
/// change of machine load during the measurement touches every batch size alike.
fn forward_rates(inference: &Inference, plan: &Plan) -> Result<[f64; 5], ModelError> {
    let mut sums = [0.0; 5];
    for _ in 0..plan.forward_slices {
        for (sum, batch) in sums.iter_mut().zip(FORWARD_BATCHES) {
            *sum += forward::forward_positions_per_sec(
                inference,
                batch,
                plan.forward / plan.forward_slices,
            )?;
        }
    }
    Ok(sums.map(|sum| sum / f64::from(plan.forward_slices)))
}

/// The progress shown while the bench runs: each stage on stderr with the time so far.
struct Clock(Instant);

impl Clock {
    fn stage(&self, what: impl std::fmt::Display) {
        eprintln!("[{:5.1} s] {what}", self.0.elapsed().as_secs_f64());
    }
}

/// Runs `measure` in a scratch folder named after `what` and this process, then removes the folder
/// (one left behind is harmless: its removal cannot fail the benchmark).
fn in_scratch_dir<T>(what: &str, measure: impl FnOnce(&Path) -> T) -> T {
    let scratch =
        std::env::temp_dir().join(format!("checkers-zero-{what}-bench-{}", std::process::id()));
    let result = measure(&scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn write_json(path: &Path, figures: &Figures) -> Result<()> {
    let text = serde_json::to_string_pretty(figures).expect("figures always serialise");
    std::fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
}
