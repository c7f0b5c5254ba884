//! Self-play throughput for the `bench` command, beside the raw forward throughput of the same
//! net at the same mean batch size and thread setting: the inference-efficiency ratio.
//!
//! Self-play is measured as `run` plays it: whole rounds of games (a generation), with shards
//! written to a scratch run directory, so the figure includes the search, the evaluator's
//! encoding and priors, the shrinking batches at the end of a round and the shard writing.

use crate::config::SelfPlayConfig;
use crate::net_evaluator::NetEvaluator;
use crate::run_dir::RunDir;
use crate::session::{Session, SessionError, SessionTotals};
use crate::worker::WorkerStats;
use model::bench::forward_positions_per_sec;
use model::Inference;
use std::time::{Duration, Instant};

/// Figures of one self-play benchmark.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SelfPlayBench {
    /// Rounds of `games_per_round` games played.
    pub rounds: u64,
    pub games: u64,
    /// Positions evaluated by the net (search leaves, not only the positions played).
    pub positions: u64,
    /// Net calls.
    pub batches: u64,
    /// `positions / batches`.
    pub mean_batch: f64,
    pub workers: usize,
    /// Wall-clock seconds of all rounds.
    pub seconds: f64,
    /// Positions evaluated per wall-clock second, over all workers.
    pub positions_per_s: f64,
    pub games_per_hour: f64,
    /// Share of the workers' time spent inside the evaluator (encoding, forward, priors).
    pub net_busy_share: f64,
    /// Raw forward positions/s of one net at each round's mean batch size (rounded), times the
    /// workers, averaged over the rounds weighted by their duration.
    pub raw_forward_per_s: f64,
    /// `positions_per_s / raw_forward_per_s`.
    pub inference_efficiency: f64,
}

/// How long to measure.
#[derive(Clone, Copy, Debug)]
pub struct BenchTimes {
    /// Rounds are played until this much time has passed (at least one round, never cut short).
    pub selfplay: Duration,
    /// The raw forward measurement after each round.
    pub forward: Duration,
}

/// Plays rounds of `games_per_round` games with `config` until `times.selfplay` has passed, each
/// worker with its own net from `make_inference` (called on the worker's thread; the same
/// architecture every time, the weights only change which games are played). After each round,
/// measures the raw forward throughput ([`forward_positions_per_sec`]) of one more net from
/// `make_inference` at that round's mean batch size, on a new thread as the workers run, under
/// the caller's thread setting: pairing each round with its own raw figure keeps the ratio fair
/// on a machine whose load changes. `progress` gets the running totals of the current round.
pub fn bench_selfplay<F>(
    config: &SelfPlayConfig,
    games_per_round: u64,
    make_inference: F,
    times: BenchTimes,
    mut progress: impl FnMut(&SessionTotals),
) -> Result<SelfPlayBench, SessionError>
where
    F: Fn() -> Result<Inference, String> + Sync,
{
    let scratch = std::env::temp_dir().join(format!("checkers-zero-selfplay-bench-{}", std::process::id()));
    let played = play_rounds(&scratch, config, games_per_round, &make_inference, times, &mut progress);
    // A scratch folder left behind is harmless; its removal cannot fail the benchmark.
    let _ = std::fs::remove_dir_all(&scratch);
    let Rounds { rounds, games, stats, seconds, raw_forward_seconds } = played?;
    let positions_per_s = stats.positions as f64 / seconds;
    let raw_forward_per_s = config.workers as f64 * raw_forward_seconds / seconds;
    Ok(SelfPlayBench {
        rounds,
        games,
        positions: stats.positions,
        batches: stats.batches,
        mean_batch: mean_batch(&stats),
        workers: config.workers,
        seconds,
        positions_per_s,
        games_per_hour: games as f64 * 3600.0 / seconds,
        net_busy_share: stats.net_busy_share(),
        raw_forward_per_s,
        inference_efficiency: positions_per_s / raw_forward_per_s,
    })
}

/// What the rounds played, summed.
struct Rounds {
    rounds: u64,
    games: u64,
    stats: WorkerStats,
    /// Wall-clock seconds of the rounds.
    seconds: f64,
    /// Each round's raw forward rate times its seconds, summed (for the weighted mean).
    raw_forward_seconds: f64,
}

fn play_rounds(
    scratch: &std::path::Path,
    config: &SelfPlayConfig,
    games_per_round: u64,
    make_inference: &(impl Fn() -> Result<Inference, String> + Sync),
    times: BenchTimes,
    progress: &mut impl FnMut(&SessionTotals),
) -> Result<Rounds, SessionError> {
    let run = RunDir::create(scratch)?;
    let mut sum = Rounds { rounds: 0, games: 0, stats: WorkerStats::default(), seconds: 0.0, raw_forward_seconds: 0.0 };
    let start = Instant::now();
    while sum.rounds == 0 || start.elapsed() < times.selfplay {
        let session = Session { run: &run, config, seed: sum.rounds, generation: None };
        let report = session.play(games_per_round, |_| make_inference().map(NetEvaluator::new), &|| false, &mut *progress)?;
        let seconds = report.totals.elapsed.as_secs_f64();
        let batch = mean_batch(&report.workers).round() as usize;
        let raw = std::thread::scope(|scope| {
            scope.spawn(|| make_inference().map(|net| forward_positions_per_sec(&net, batch, times.forward))).join()
        })
        .expect("the raw forward measurement panicked")
        .map_err(|message| SessionError::Evaluator { worker: 0, message })?;
        sum.stats.add(&report.workers);
        sum.games += report.totals.games;
        sum.seconds += seconds;
        sum.raw_forward_seconds += raw * seconds;
        sum.rounds += 1;
    }
    Ok(sum)
}

fn mean_batch(stats: &WorkerStats) -> f64 {
    stats.positions as f64 / stats.batches.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{NetConfig, PolicyValueNet};

    #[test]
    fn a_tiny_benchmark_gives_finite_positive_figures() {
        let mut config = SelfPlayConfig { games_in_flight: 3, write_pdn: false, ..SelfPlayConfig::default() };
        config.mcts.playout_cap.full_visits = 4;
        config.mcts.playout_cap.cheap_visits = 2;
        config.draw.max_plies = 20;
        let net = || PolicyValueNet::new(&NetConfig::new(1, 8), tch::Device::Cpu).map(|n| Inference::new(n, false));
        let times = BenchTimes { selfplay: Duration::ZERO, forward: Duration::from_millis(10) };
        let figures = bench_selfplay(&config, 3, || net().map_err(|e| e.to_string()), times, |_| {}).unwrap();
        assert_eq!((figures.rounds, figures.games), (1, 3));
        for x in [figures.mean_batch, figures.positions_per_s, figures.games_per_hour, figures.raw_forward_per_s, figures.inference_efficiency] {
            assert!(x.is_finite() && x > 0.0, "{figures:?}");
        }
    }
}

#[cfg(test)]
mod experiment {
    use crate::worker::{run_worker, GameCounter, GamePlan};
    use crate::NetEvaluator;
    use model::{Inference, NetConfig, PolicyValueNet};
    use search::{EvalRequest, Evaluation, Evaluator, MctsConfig};
    use std::time::{Duration, Instant};

    struct Rec(NetEvaluator, Vec<(usize, Duration)>);
    impl Evaluator for Rec {
        fn evaluate(&mut self, r: &[EvalRequest]) -> Vec<Evaluation> {
            let t = Instant::now();
            let out = self.0.evaluate(r);
            self.1.push((r.len(), t.elapsed()));
            out
        }
    }

    #[test]
    #[ignore]
    fn histogram() {
        let threads: i32 = std::env::var("T").map_or(2, |t| t.parse().unwrap());
        tch::set_num_threads(threads);
        let mut mcts = MctsConfig::default();
        mcts.leaves_per_batch = 4;
        mcts.playout_cap.full_visits = 64;
        mcts.playout_cap.cheap_visits = 16;
        let plan = GamePlan { mcts, draw_rules: draughts::DrawRules { max_plies: 200, ..Default::default() }, seed: 1, games_in_flight: 96 };
        std::thread::scope(|s| { s.spawn(|| {
            let inf = Inference::new(PolicyValueNet::new(&NetConfig::new(4, 32), tch::Device::Cpu).unwrap(), false);
            let mut rec = Rec(NetEvaluator::new(inf), Vec::new());
            let (tx, _rx) = std::sync::mpsc::channel();
            let stats = run_worker(&plan, &mut rec, &GameCounter::new(0, 96), &tx).unwrap();
            println!("threads {threads} {stats:?} pos/s {:.0}", stats.positions as f64 / stats.total_time.as_secs_f64());
            for (lo, hi) in [(0, 32), (32, 128), (128, 256), (256, 400)] {
                let sel: Vec<_> = rec.1.iter().filter(|(n, _)| *n >= lo && *n < hi).collect();
                let pos: usize = sel.iter().map(|x| x.0).sum();
                let t: f64 = sel.iter().map(|x| x.1.as_secs_f64()).sum();
                println!("batch {lo}..{hi}: {} calls, {pos} pos, {t:.2} s, {:.0} pos/s", sel.len(), pos as f64 / t);
            }
        }); });
    }
}
