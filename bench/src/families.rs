//! The two net families side by side on one thread of this machine, in one run: the sparse net
//! of the default sizes (native inference) against the 4x32 ResNet (libtorch, one thread).
//! Each figure is measured for both and reported as the sparse net's over the ResNet's:
//! evaluations per second at batch 1 and 8 (features or planes, forward pass and priors
//! included), playouts per second of a lone search as a player under a clock searches, and
//! self-play positions and games per hour with the bench config's self-play settings (one
//! worker). Both nets have random weights, so their games differ; positions per second is the
//! steadier figure.

use super::self_play::play_rounds;
use arena::{player_config, Thinking};
use draughts::{DrawRules, Game};
use model::NetEvaluator;
use model::{Extras, Inference, ModelError, NetConfig, PolicyValueNet};
use runconfig::SelfPlayConfig;
use search::{BoxedEvaluator, Budget, CachedEvaluator, EvalRequest, Evaluator, Search};
use selfplay::SessionError;
use sparsenet::{SparseEvaluator, SparseWeights};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long each family's figures are measured.
#[derive(Clone, Copy, Debug)]
pub struct FamilyPlan {
    /// Each evaluation figure.
    pub evaluations: Duration,
    /// The lone search figure.
    pub search: Duration,
    /// Self-play rounds (at least one round).
    pub selfplay: Duration,
    /// Games of a self-play round, at most (the config's games per generation otherwise).
    pub games_per_round: u64,
}

/// One family's figures.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct FamilyFigures {
    /// The net (`resnet 4x32`, `sparse 128-32x2`).
    pub net: String,
    /// Evaluations per second, one position per call.
    pub evals_per_s_b1: f64,
    /// Evaluations per second, eight positions per call.
    pub evals_per_s_b8: f64,
    /// Playouts per second of a lone search (the players' settings under a clock).
    pub search_playouts_per_s: f64,
    /// Self-play: positions the net evaluated per second.
    pub selfplay_pos_per_s: f64,
    /// Self-play: games finished per hour.
    pub selfplay_games_per_hour: f64,
}

/// Both families' figures.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FamilyBench {
    /// The 4x32 ResNet.
    pub resnet: FamilyFigures,
    /// The sparse net.
    pub sparse: FamilyFigures,
}

impl FamilyBench {
    /// Each figure of the sparse net over the ResNet's, in the order of [`FamilyFigures`].
    pub fn ratios(&self) -> [(&'static str, f64); 5] {
        let (r, s) = (&self.resnet, &self.sparse);
        [
            ("evaluations/s, batch 1", s.evals_per_s_b1 / r.evals_per_s_b1),
            ("evaluations/s, batch 8", s.evals_per_s_b8 / r.evals_per_s_b8),
            ("playouts/s of a lone search", s.search_playouts_per_s / r.search_playouts_per_s),
            ("self-play positions/s", s.selfplay_pos_per_s / r.selfplay_pos_per_s),
            ("self-play games/h", s.selfplay_games_per_hour / r.selfplay_games_per_hour),
        ]
    }
}

/// Measures both families (the caller has set libtorch to one thread).
pub fn bench_families(
    selfplay: &SelfPlayConfig,
    games_per_round: u64,
    plan: FamilyPlan,
) -> anyhow::Result<FamilyBench> {
    let selfplay = SelfPlayConfig { workers: 1, ..selfplay.clone() };
    let resnet_config = NetConfig::new(4, 32);
    let resnet = || -> Result<BoxedEvaluator, ModelError> {
        tch::manual_seed(1);
        let net = PolicyValueNet::new(&resnet_config, tch::Device::Cpu)?;
        Ok(Box::new(NetEvaluator::new(Inference::new(net, false))))
    };
    let sparse_config = NetConfig::sparse();
    let sparse =
        super::in_scratch_dir("families", |scratch| sparse_weights(&sparse_config, scratch))?;
    let sparse = || -> Result<BoxedEvaluator, ModelError> {
        Ok(Box::new(SparseEvaluator::new(Arc::clone(&sparse))))
    };
    Ok(FamilyBench {
        resnet: measure(&resnet_config, &resnet, &selfplay, games_per_round, plan)?,
        sparse: measure(&sparse_config, &sparse, &selfplay, games_per_round, plan)?,
    })
}

/// A randomly initialised sparse net, saved and loaded back natively (the players' path).
pub(super) fn sparse_weights(
    config: &NetConfig,
    scratch: &Path,
) -> anyhow::Result<Arc<SparseWeights>> {
    std::fs::create_dir_all(scratch)?;
    tch::manual_seed(1);
    let path = scratch.join("sparse.safetensors");
    model::checkpoint::save(
        &path,
        &PolicyValueNet::new(config, tch::Device::Cpu)?,
        0,
        None,
        &Extras::default(),
    )?;
    Ok(Arc::new(SparseWeights::load(&path)?.0))
}

fn measure(
    config: &NetConfig,
    make: &(impl Fn() -> Result<BoxedEvaluator, ModelError> + Sync),
    selfplay: &SelfPlayConfig,
    games_per_round: u64,
    plan: FamilyPlan,
) -> anyhow::Result<FamilyFigures> {
    let requests = model::decision_requests(0x5eed, 4096);
    let mut evaluator = make()?;
    let evals_per_s_b1 = evaluations_per_sec(&mut evaluator, &requests, 1, plan.evaluations)?;
    let evals_per_s_b8 = evaluations_per_sec(&mut evaluator, &requests, 8, plan.evaluations)?;
    let search_playouts_per_s = search_playouts_per_sec(&mut evaluator, &requests, plan.search)?;
    let make_evaluator = |_| make().map(|net| CachedEvaluator::new(net, selfplay.eval_cache));
    let rounds = super::in_scratch_dir("families-selfplay", |scratch| {
        let games = games_per_round.min(plan.games_per_round);
        play_rounds(scratch, selfplay, games, &make_evaluator, plan.selfplay, &mut |_| {})
    })?;
    let seconds = rounds.elapsed.as_secs_f64();
    Ok(FamilyFigures {
        net: config.short_name(),
        evals_per_s_b1,
        evals_per_s_b8,
        search_playouts_per_s,
        selfplay_pos_per_s: rounds.stats.net_positions() as f64 / seconds,
        selfplay_games_per_hour: rounds.games as f64 * 3600.0 / seconds,
    })
}

/// Requests evaluated per second in calls of `batch`, cycling through `requests`.
pub(super) fn evaluations_per_sec(
    evaluator: &mut BoxedEvaluator,
    requests: &[EvalRequest],
    batch: usize,
    duration: Duration,
) -> Result<f64, SessionError> {
    let mut chunks = requests.chunks_exact(batch).cycle();
    let evaluate = |evaluator: &mut BoxedEvaluator, chunk| {
        evaluator
            .evaluate(chunk)
            .map_err(|e| SessionError::Evaluator { worker: 0, source: e.into() })
    };
    for _ in 0..8 {
        evaluate(evaluator, chunks.next().expect("cycled"))?;
    }
    let (start, mut calls) = (Instant::now(), 0u64);
    while calls < 16 || start.elapsed() < duration {
        evaluate(evaluator, chunks.next().expect("cycled"))?;
        calls += 1;
    }
    Ok((calls * batch as u64) as f64 / start.elapsed().as_secs_f64())
}

/// Playouts per second of searches with the players' settings under a clock, each from one of the
/// positions of `requests` (start-of-move ones), until `duration` has passed.
fn search_playouts_per_sec(
    evaluator: &mut BoxedEvaluator,
    requests: &[EvalRequest],
    duration: Duration,
) -> anyhow::Result<f64> {
    let config = player_config(Thinking::Time(duration));
    let positions: Vec<_> = requests
        .iter()
        .filter(|r| r.observation.moving_piece.is_none())
        .step_by(97)
        .map(|r| r.observation.position)
        .collect();
    let (start, mut playouts) = (Instant::now(), 0u64);
    for (seed, position) in positions.iter().cycle().enumerate() {
        if playouts > 0 && start.elapsed() >= duration {
            break;
        }
        let game = Game::new(*position, DrawRules::default());
        let Ok(mut search) = Search::new(&config, &game, seed as u64) else { continue };
        // Rounds of visits as a timed player adds them, until a tenth of the time is spent.
        let searched = Instant::now();
        let mut visits = 0;
        while searched.elapsed() < duration / 10 {
            visits += 32;
            search.run(evaluator, Budget { visits, root_noise: false })?;
        }
        playouts += u64::from(search.root_visits());
    }
    Ok(playouts as f64 / start.elapsed().as_secs_f64())
}
