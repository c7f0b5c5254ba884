//! Matches through the batched path: two MCTS players over two nets of the config's shape, at
//! self-play's full playouts, as many games at once as `match` plays between nets (their leaves
//! share each net's inference server and its evaluation cache, as in `match`). Gives the positions
//! the nets evaluated per second (the cache's answers not counted), to set beside
//! self-play's at the same net and playouts (`match_efficiency`), and how many positions a
//! forward pass took (`match_mean_batch`).

use anyhow::Result;
use arena::{
    run_fixtures, schedule, standard_deck, Entrant, MatchConfig, NetOptions, NetSource, PlayerSpec,
};
use model::NetEvaluator;
use model::{Inference, ModelError};
use search::{
    CachedEvaluator, EvalError, EvalRequest, Evaluation, Evaluator, LoadedNet, NetLoader,
};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;
use support::DeviceSpec;

/// Figures of one match benchmark.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MatchBench {
    /// Games played.
    pub games: u64,
    /// Playouts per move of both players.
    pub playouts: u32,
    /// Positions evaluated by the two nets (not those their caches answered).
    pub positions: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// `positions / seconds`.
    pub positions_per_s: f64,
    /// Positions per forward pass of the nets (their inference servers' merged batches).
    pub mean_batch: f64,
    /// Games finished per hour.
    pub games_per_hour: f64,
}

/// Plays `games` games (at least 2) between two fresh nets from `make_inference` at `playouts`
/// per move over the standard ballots.
pub fn bench_matches(
    make_inference: &dyn Fn() -> Result<Inference, ModelError>,
    playouts: u32,
    games: usize,
) -> Result<MatchBench> {
    let (positions, batches) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let mut nets = Vec::new();
    for _ in 0..2 {
        let counted = Counted {
            net: NetEvaluator::new(make_inference()?),
            positions: positions.clone(),
            batches: batches.clone(),
        };
        let cached = CachedEvaluator::new(counted, search::DEFAULT_EVAL_CACHE);
        nets.push(model::served(Box::new(cached), 0));
    }
    let options = NetOptions {
        playouts,
        nets: Some(Arc::new(Preloaded(Mutex::new(nets)))),
        ..NetOptions::default()
    };
    let player = |name: &str| {
        let net = NetSource { checkpoint: name.into(), run_dir: None };
        Entrant::load(&PlayerSpec::mcts(net, Some(playouts)), &options)
    };
    let (a, b) = (player("a")?, player("b")?);
    let fixtures = schedule(&standard_deck()?, games.max(2), 0);
    let config =
        MatchConfig { rules: Default::default(), seed: 0, threads: 0, tables: None, clock: None };
    let start = Instant::now();
    let played = run_fixtures(&a, &b, &fixtures, config, |_| ControlFlow::Continue(()))?;
    let seconds = start.elapsed().as_secs_f64().max(1e-9);
    let positions = positions.load(Ordering::Relaxed);
    let batches = batches.load(Ordering::Relaxed);
    Ok(MatchBench {
        games: played.len() as u64,
        playouts,
        positions,
        seconds,
        positions_per_s: positions as f64 / seconds,
        mean_batch: positions as f64 / batches.max(1) as f64,
        games_per_hour: played.len() as f64 * 3600.0 / seconds,
    })
}

/// A net evaluator that counts the positions it evaluates and its calls (forward passes).
struct Counted {
    net: NetEvaluator,
    positions: Arc<AtomicU64>,
    batches: Arc<AtomicU64>,
}

impl Evaluator for Counted {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        self.positions.fetch_add(requests.len() as u64, Ordering::Relaxed);
        self.batches.fetch_add(1, Ordering::Relaxed);
        self.net.evaluate(requests)
    }
}

/// Hands out nets made beforehand, one per load, whatever the checkpoint's name.
#[derive(Debug)]
struct Preloaded(Mutex<Vec<LoadedNet>>);

impl NetLoader for Preloaded {
    fn load(
        &self,
        _checkpoint: &Path,
        _device: DeviceSpec,
    ) -> Result<LoadedNet, Box<dyn std::error::Error + Send + Sync>> {
        let mut nets = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        nets.pop().ok_or_else(|| "the bench made two nets, not more".into())
    }
}
