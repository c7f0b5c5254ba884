//! The bench figures as JSON keys and as a table, with the date and the machine they were measured on.

use super::alphabeta::AlphaBetaBench;
use super::families::FamilyBench;
use super::matches::MatchBench;
use super::raw_forward::RAW_FORWARD_EVERY;
use super::self_play::{SelfPlayBench, ServedBench};
use super::sizes::SizeFigures;
use super::training::TrainBench;
use runconfig::RunConfig;

use tch::Device;

/// Every figure of `checkers-zero bench`, named as in its JSON (rates per second).
#[derive(Debug, serde::Serialize)]
pub struct Figures {
    pub perft_nodes_per_s: f64,
    pub perft_depth: u32,
    pub perft_nodes: u64,
    pub mcts_sims_per_s: f64,
    pub forward_pos_per_s_b1: f64,
    pub forward_pos_per_s_b64: f64,
    pub forward_pos_per_s_b256: f64,
    pub forward_pos_per_s_b1024: f64,
    pub forward_pos_per_s_b4096: f64,
    pub selfplay_pos_per_s: f64,
    pub inference_efficiency: f64,
    /// The share of self-play's search leaves its evaluation cache answered.
    pub selfplay_cache_hit_rate: f64,
    pub selfplay_games_per_hour: f64,
    /// Self-play through one inference server the workers share (null without
    /// `selfplay.server.threads`): net positions/s, games/h, positions per forward pass, and
    /// `selfplay_server_pos_per_s / selfplay_pos_per_s`.
    pub selfplay_server_pos_per_s: Option<f64>,
    pub selfplay_server_games_per_hour: Option<f64>,
    pub selfplay_server_mean_batch: Option<f64>,
    pub selfplay_server_speedup: Option<f64>,
    pub match_pos_per_s: f64,
    /// `match_pos_per_s / selfplay_pos_per_s`.
    pub match_efficiency: f64,
    pub match_games_per_hour: f64,
    /// Positions per forward pass in the match (the servers' merged batches).
    pub match_mean_batch: f64,
    pub train_samples_per_s: f64,
    /// Training with each batch assembled on the training thread (before the batch thread).
    pub train_sync_samples_per_s: f64,
    pub train_efficiency: f64,
    /// Training with the auxiliary heads too, and its rate over `train_samples_per_s`.
    pub train_aux_samples_per_s: f64,
    pub train_aux_ratio: f64,
    /// The sparse net against the 4x32 ResNet on one thread: both families' figures.
    pub families: FamilyBench,
    /// The alpha-beta engine on one thread: the classic one with the static evaluation, the
    /// full one with the shipped net incremental and recomputed.
    pub alphabeta: AlphaBetaBench,
    /// The sparse net at each size on one thread: evaluations and alpha-beta nodes.
    pub sizes: Vec<SizeFigures>,
    pub threads: i32,
    pub device: String,
    pub version: String,
    /// UTC, ISO 8601.
    pub date: String,
    /// CPU model and logical cores.
    pub machine: String,
}

/// Prints the figures as a Markdown table (what docs/performance.md holds), with the
/// details behind the self-play and training ratios.
pub fn print_table(
    f: &Figures,
    config: &RunConfig,
    s: &SelfPlayBench,
    served: Option<&ServedBench>,
    m: &MatchBench,
    t: &TrainBench,
    quick: bool,
) {
    let net = config.net.short_name();
    let wait_policy = std::env::var("OMP_WAIT_POLICY")
        .map_or(String::new(), |p| format!(", OMP_WAIT_POLICY={p}"));
    println!(
        "checkers-zero {} bench{}, {}, {}, device {}, {} libtorch threads{wait_policy}",
        f.version,
        if quick { " --quick" } else { "" },
        f.date,
        f.machine,
        f.device,
        f.threads
    );
    println!();
    println!("| figure | value | how |");
    println!("| --- | ---: | --- |");
    engine_rows(f, &net);
    selfplay_rows(f, s, served, config, &net);
    match_and_training_rows(f, m, t, &net);
    family_ratio_rows(f);
    alphabeta_rows(f);
    family_rows(f);
    size_rows(f);
}

/// One row of the table.
fn row(name: &str, value: String, how: String) {
    println!("| {name} | {value} | {how} |");
}

/// The rows of move generation, the search and the forward passes.
fn engine_rows(f: &Figures, net: &str) {
    row(
        "perft",
        rate(f.perft_nodes_per_s, "nodes/s"),
        format!("start position, depth {}, {} nodes, one thread", f.perft_depth, f.perft_nodes),
    );
    row("MCTS", rate(f.mcts_sims_per_s, "sims/s"), "uniform evaluator, one thread".into());
    for (batch, value) in [
        (1, f.forward_pos_per_s_b1),
        (64, f.forward_pos_per_s_b64),
        (256, f.forward_pos_per_s_b256),
        (1024, f.forward_pos_per_s_b1024),
        (4096, f.forward_pos_per_s_b4096),
    ] {
        row(
            &format!("forward, batch {batch}"),
            rate(value, "pos/s"),
            format!("{net} net, encoded input, copies included"),
        );
    }
}

/// The rows of self-play, its inference efficiency and its server.
fn selfplay_rows(
    f: &Figures,
    s: &SelfPlayBench,
    served: Option<&ServedBench>,
    config: &RunConfig,
    net: &str,
) {
    row(
        "self-play",
        rate(f.selfplay_pos_per_s, "pos/s"),
        format!(
            "positions the net evaluated ({:.0}% more answered by the cache), {} games in {} round(s) of {:.0} s, {} worker(s), mean batch {:.0}, net busy {:.0}%",
            100.0 * s.cache_hit_rate / (1.0 - s.cache_hit_rate).max(1e-9),
            s.games,
            s.rounds,
            s.seconds / s.rounds as f64,
            s.workers,
            s.mean_batch,
            100.0 * s.net_busy_share
        ),
    );
    row(
        "raw forward, same batches",
        rate(s.raw_forward_per_s, "pos/s"),
        format!("every {RAW_FORWARD_EVERY}th self-play batch repeated on its worker's thread, times the workers"),
    );
    row(
        "inference efficiency",
        format!("{:.0}%", 100.0 * f.inference_efficiency),
        "self-play pos/s over raw forward pos/s at the same batches".into(),
    );
    row(
        "raw forward, mean batch",
        rate(s.raw_forward_mean_batch_per_s, "pos/s"),
        format!("running mean batch, every {RAW_FORWARD_EVERY}th batch on the worker's thread, times the workers"),
    );
    row(
        "inference efficiency, mean batch",
        format!("{:.0}%", 100.0 * s.inference_efficiency_mean_batch),
        "self-play pos/s over raw forward pos/s at the mean batch".into(),
    );
    row(
        "self-play games",
        format!("{:.0}/h", f.selfplay_games_per_hour),
        format!("{net} net, {} games in flight per worker", config.selfplay.games_in_flight),
    );
    if let Some(served) = served {
        row(
            "self-play through a server",
            rate(served.positions_per_s, "pos/s"),
            format!(
                "the same rounds, every worker's leaves sent to one inference server of {} thread(s) (mean batch {:.0}): {:.2}x the workers' own nets, {:.0} games/h",
                served.server_threads,
                served.mean_batch,
                served.positions_per_s / f.selfplay_pos_per_s.max(1e-9),
                served.games_per_hour
            ),
        );
    }
}

/// The rows of matches and training.
fn match_and_training_rows(f: &Figures, m: &MatchBench, t: &TrainBench, net: &str) {
    row(
        "match",
        rate(f.match_pos_per_s, "pos/s"),
        format!(
            "positions evaluated, two {net} nets at {} playouts, {} games at once, {:.0} games/h, \
             {:.1} positions a forward pass",
            m.playouts,
            arena::GAMES_SHARING_NETS.min(m.games as usize),
            f.match_games_per_hour,
            f.match_mean_batch
        ),
    );
    row(
        "match efficiency",
        format!("{:.0}%", 100.0 * f.match_efficiency),
        "match pos/s over self-play pos/s".into(),
    );
    row(
        "training",
        rate(f.train_samples_per_s, "samples/s"),
        format!(
            "replay window to train step, batch {}, {} steps, {} batches drawn ahead",
            t.batch_size, t.steps, t.prefetch_batches
        ),
    );
    row(
        "training, batches drawn in the step",
        rate(f.train_sync_samples_per_s, "samples/s"),
        format!(
            "the same, each batch assembled on the training thread ({})",
            rate(t.assembly_samples_per_s, "samples/s assembled")
        ),
    );
    row(
        "training with the auxiliary heads",
        rate(f.train_aux_samples_per_s, "samples/s"),
        format!(
            "the training row's pipeline with the soft-policy and opponent's-reply heads learning too: {:.2}x its rate",
            f.train_aux_ratio
        ),
    );
    row(
        "training efficiency",
        format!("{:.0}%", 100.0 * f.train_efficiency),
        format!("over raw train steps ({})", rate(t.raw_samples_per_s, "samples/s")),
    );
}

/// The sparse family's figures over the ResNet's.
fn family_ratio_rows(f: &Figures) {
    for (name, ratio) in f.families.ratios() {
        row(
            &format!("sparse / ResNet, {name}"),
            format!("{ratio:.1}x"),
            format!(
                "{} over {}, one thread each, random weights",
                f.families.sparse.net, f.families.resnet.net
            ),
        );
    }
}

/// The rows of the alpha-beta engines and their refinements.
fn alphabeta_rows(f: &Figures) {
    let ab = &f.alphabeta;
    for (name, engine, how) in [
        ("alpha-beta, static evaluation", &ab.classic_static, "the classic engine (`alphabeta`)"),
        (
            "alpha-beta, net incremental",
            &ab.net_incremental,
            "the full engine, the shipped net's integer accumulators kept move by move",
        ),
        (
            "alpha-beta, net recomputed",
            &ab.net_full_recompute,
            "the full engine, the shipped net's f32 forward pass from the features at each leaf",
        ),
    ] {
        row(
            name,
            rate(engine.nodes_per_s, "nodes/s"),
            format!(
                "{how}; one thread, {} positions at {} s: mean depth {:.1}, branching factor {:.2}",
                ab.positions, ab.seconds_per_move, engine.mean_depth, engine.branching
            ),
        );
    }
    for (name, ratio) in &ab.feature_node_ratios {
        row(
            &format!("alpha-beta without {name}"),
            format!("{ratio:.2}x nodes"),
            format!(
                "the full engine with the shipped net to depth {} over the same positions, \
                 nodes over those with every refinement on",
                ab.feature_depth
            ),
        );
    }
}

/// The sparse net at each size, against the first (the default's).
fn size_rows(f: &Figures) {
    let Some(first) = f.sizes.first() else { return };
    for size in &f.sizes {
        row(
            &format!("size: {}", size.net),
            rate(size.evals_per_s, "evals/s"),
            format!(
                "one position a call, {:.2}x the {}'s; full alpha-beta engine, net incremental: \
                 {}, {:.2}x; one thread, random weights",
                size.evals_per_s / first.evals_per_s,
                first.net,
                rate(size.alphabeta_nodes_per_s, "nodes/s"),
                size.alphabeta_nodes_per_s / first.alphabeta_nodes_per_s
            ),
        );
    }
}

/// Each family's own figures.
fn family_rows(f: &Figures) {
    for figures in [&f.families.resnet, &f.families.sparse] {
        row(
            &figures.net,
            rate(figures.evals_per_s_b1, "evals/s"),
            format!(
                "batch 1; {} at batch 8, {} in a lone search, self-play {} and {:.0} games/h",
                rate(figures.evals_per_s_b8, "evals/s"),
                rate(figures.search_playouts_per_s, "playouts/s"),
                rate(figures.selfplay_pos_per_s, "pos/s"),
                figures.selfplay_games_per_hour
            ),
        );
    }
}

/// `value` with a thousands-scaled unit, e.g. `94.5 M nodes/s`.
fn rate(value: f64, unit: &str) -> String {
    match value {
        v if v >= 1e6 => format!("{:.1} M {unit}", v / 1e6),
        v if v >= 1e4 => format!("{:.1} k {unit}", v / 1e3),
        v => format!("{v:.0} {unit}"),
    }
}

/// `cpu`, `cuda:N`.
pub fn device_name(device: Device) -> String {
    match device {
        Device::Cpu => "cpu".into(),
        Device::Cuda(n) => format!("cuda:{n}"),
        other => format!("{other:?}").to_lowercase(),
    }
}

/// The CPU model (from /proc/cpuinfo where there is one) and the logical cores.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {cores} cores")
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let secs = support::unix_seconds();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60)
}

/// The proleptic Gregorian date of `days` since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn dates_from_days() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_000), (2024, 10, 4));
    }
}
