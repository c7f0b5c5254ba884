//! Self-play throughput, and the inference-efficiency ratio: self-play's
//! positions evaluated per second over the raw forward throughput of the same net at the same
//! batch size and thread setting.
//!
//! Self-play is measured as `run` plays it: whole rounds of games (a generation), with shards
//! written to a scratch run directory, so its figure includes the search, the evaluator's
//! encoding and priors, the shrinking batches at the end of a round and the shard writing. The
//! raw forward is measured by raw forward passes ([`super::raw_forward`]) on the workers' own threads between
//! their batches, so both sides of the ratio see the same machine load; the raw forward time is taken
//! out of self-play's time. With `selfplay.server` the same rounds are played a second time with
//! the workers sharing one inference server, for the speed-up over their own nets.

use super::raw_forward::{RawForwardTimer, RawForwardTotals};
use model::NetEvaluator;
use model::{Inference, ModelError};
use runconfig::SelfPlayConfig;
use rundata::RunDir;
use search::{BoxedEvaluator, CachedEvaluator, Evaluator, InferenceServer};
use selfplay::worker::WorkerStats;
use selfplay::{Session, SessionError, SessionTotals};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Figures of one self-play benchmark.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SelfPlayBench {
    /// Rounds of `games_per_round` games played.
    pub rounds: u64,
    /// Games finished.
    pub games: u64,
    /// Positions evaluated by the net (search leaves its cache did not answer).
    pub positions: u64,
    /// The share of the search's leaves the evaluation cache answered (`selfplay.eval_cache`).
    pub cache_hit_rate: f64,
    /// Net calls.
    pub batches: u64,
    /// `positions / batches`.
    pub mean_batch: f64,
    /// Self-play worker threads.
    pub workers: usize,
    /// Wall-clock seconds of all rounds, raw forward passes taken out.
    pub seconds: f64,
    /// Positions evaluated per second, over all workers.
    pub positions_per_s: f64,
    /// Games finished per hour, over all workers.
    pub games_per_hour: f64,
    /// Share of the workers' time spent inside the evaluator (encoding, forward, priors).
    pub net_busy_share: f64,
    /// Raw forward positions/s repeating self-play's own batches (so at its batch sizes), times
    /// the workers.
    pub raw_forward_per_s: f64,
    /// `positions_per_s / raw_forward_per_s`.
    pub inference_efficiency: f64,
    /// Raw forward positions/s at the running mean batch size, times the workers.
    pub raw_forward_mean_batch_per_s: f64,
    /// `positions_per_s / raw_forward_mean_batch_per_s`: also charges self-play for the spread
    /// of its batch sizes (small batches while a round's last games finish).
    pub inference_efficiency_mean_batch: f64,
}

/// Plays rounds of `games_per_round` games with `config` until `duration` has passed (at least
/// one round; a round is never cut short), each worker with its own net from `make_inference`
/// (called on the worker's thread; the same architecture every time, the weights only change
/// which games are played), under the caller's thread setting. `progress` gets the running
/// totals of the current round after each game.
pub fn bench_selfplay<F>(
    config: &SelfPlayConfig,
    games_per_round: u64,
    make_inference: F,
    duration: Duration,
    mut progress: impl FnMut(&SessionTotals),
) -> Result<SelfPlayBench, SessionError>
where
    F: Fn() -> Result<Inference, ModelError> + Sync,
{
    let raw = Mutex::new(RawForwardTotals::default());
    let max_batch = config.games_in_flight * config.mcts.leaves_per_batch as usize;
    let make_evaluator = |_| {
        let net = |net| RawForwardTimer::new(NetEvaluator::new(net), max_batch, &raw);
        make_inference().map(|inference| CachedEvaluator::new(net(inference), config.eval_cache))
    };
    let played = super::in_scratch_dir("selfplay", |scratch| {
        play_rounds(scratch, config, games_per_round, &make_evaluator, duration, &mut progress)
    });
    let Rounds { rounds, games, stats, elapsed } = played?;
    let raw = raw.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
    let workers = config.worker_threads() as f64;
    let raw_time = raw.time().as_secs_f64();
    let seconds = elapsed.as_secs_f64() - raw_time / workers;
    let positions_per_s = stats.net_positions() as f64 / seconds;
    let raw_forward_per_s = workers * raw.same_batch.per_sec();
    let raw_forward_mean_batch_per_s = workers * raw.mean_batch.per_sec();
    Ok(SelfPlayBench {
        rounds,
        games,
        positions: stats.net_positions(),
        cache_hit_rate: stats.cache_hit_rate(),
        batches: stats.batches,
        mean_batch: stats.net_positions() as f64 / stats.batches.max(1) as f64,
        workers: config.worker_threads(),
        seconds,
        positions_per_s,
        games_per_hour: games as f64 * 3600.0 / seconds,
        net_busy_share: (stats.eval_time.as_secs_f64() - raw_time)
            / (stats.total_time.as_secs_f64() - raw_time),
        raw_forward_per_s,
        inference_efficiency: positions_per_s / raw_forward_per_s,
        raw_forward_mean_batch_per_s,
        inference_efficiency_mean_batch: positions_per_s / raw_forward_mean_batch_per_s,
    })
}

/// Figures of self-play through one inference server the workers share (`selfplay.server`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ServedBench {
    /// Games finished.
    pub games: u64,
    /// The server's threads, each with a copy of the net.
    pub server_threads: usize,
    /// Wall-clock seconds of all rounds.
    pub seconds: f64,
    /// Positions the net evaluated per second.
    pub positions_per_s: f64,
    /// Games finished per hour.
    pub games_per_hour: f64,
    /// Positions per forward pass of the server (the workers' batches merged).
    pub mean_batch: f64,
}

/// Plays rounds as [`bench_selfplay`] does, with every worker sending its leaves to one inference
/// server of `config.server.threads` nets from `make_inference` (no raw forward passes).
pub fn bench_selfplay_served<F>(
    config: &SelfPlayConfig,
    games_per_round: u64,
    make_inference: F,
    duration: Duration,
    mut progress: impl FnMut(&SessionTotals),
) -> Result<ServedBench, SessionError>
where
    F: Fn() -> Result<Inference, ModelError>,
{
    let net = || make_inference().map(|i| Box::new(NetEvaluator::new(i)) as BoxedEvaluator);
    let nets = (0..config.server.threads.max(1)).map(|_| net()).collect::<Result<Vec<_>, _>>();
    let nets = nets.map_err(|e| SessionError::Evaluator { worker: 0, source: e.into() })?;
    let server = InferenceServer::start_threads(nets, config.server.batching());
    let make_evaluator =
        |_| Ok::<_, ModelError>(CachedEvaluator::new(server.client(), config.eval_cache));
    let played = super::in_scratch_dir("selfplay-served", |scratch| {
        play_rounds(scratch, config, games_per_round, &make_evaluator, duration, &mut progress)
    });
    let Rounds { games, stats, elapsed, .. } = played?;
    let seconds = elapsed.as_secs_f64();
    Ok(ServedBench {
        games,
        server_threads: server.threads(),
        seconds,
        positions_per_s: stats.net_positions() as f64 / seconds,
        games_per_hour: games as f64 * 3600.0 / seconds,
        mean_batch: server.served().mean_batch(),
    })
}

/// What the rounds played, summed.
pub(super) struct Rounds {
    pub(super) rounds: u64,
    pub(super) games: u64,
    pub(super) stats: WorkerStats,
    /// Wall-clock time of the rounds.
    pub(super) elapsed: Duration,
}

/// Plays rounds of `games_per_round` games in a run folder at `scratch`, each worker with an
/// evaluator from `make_evaluator`, until `duration` has passed (at least one round).
pub(super) fn play_rounds<E: Evaluator>(
    scratch: &std::path::Path,
    config: &SelfPlayConfig,
    games_per_round: u64,
    make_evaluator: &(impl Fn(usize) -> Result<E, ModelError> + Sync),
    duration: Duration,
    progress: &mut impl FnMut(&SessionTotals),
) -> Result<Rounds, SessionError> {
    let run = RunDir::create(scratch)?;
    let (mut rounds, mut games, mut stats, mut elapsed) =
        (0, 0, WorkerStats::default(), Duration::ZERO);
    let start = Instant::now();
    while rounds == 0 || start.elapsed() < duration {
        let session = Session {
            run: &run,
            config,
            seed: rounds,
            generation: &|| None,
            openings: selfplay::Openings::none(),
            tables: None,
            shard_written: None,
        };
        let report = session.play(games_per_round, make_evaluator, &|| false, &mut *progress)?;
        stats.add(&report.workers);
        games += report.totals.games;
        elapsed += report.totals.elapsed;
        rounds += 1;
    }
    Ok(Rounds { rounds, games, stats, elapsed })
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{NetConfig, PolicyValueNet};

    #[test]
    fn a_tiny_benchmark_gives_finite_positive_figures() {
        let mut config =
            SelfPlayConfig { games_in_flight: 3, write_pdn: false, ..SelfPlayConfig::default() };
        config.mcts.playout_cap.full_visits = 4;
        config.mcts.playout_cap.cheap_visits = 2;
        config.draw.max_plies = 20;
        let net = || {
            PolicyValueNet::new(&NetConfig::new(1, 8), tch::Device::Cpu)
                .map(|n| Inference::new(n, false))
        };
        let figures = bench_selfplay(&config, 3, net, Duration::ZERO, |_| {}).unwrap();
        assert_eq!((figures.rounds, figures.games), (1, 3));
        for x in [
            figures.mean_batch,
            figures.positions_per_s,
            figures.games_per_hour,
            figures.raw_forward_per_s,
            figures.inference_efficiency,
            figures.inference_efficiency_mean_batch,
        ] {
            assert!(x.is_finite() && x > 0.0, "{figures:?}");
        }
    }
}
