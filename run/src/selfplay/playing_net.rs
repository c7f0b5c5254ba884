//! The net self-play plays with, replaced while games are in flight: [`PlayingNet`] holds the
//! run's best net of the moment and looks for a newer one as games finish (at most every
//! [`LOOK_EVERY`]); each worker's [`FollowingEvaluator`] loads a newer net before its next batch
//! of leaves. So self-play picks up a promotion within seconds instead of at the end of its batch
//! of games, and the games in flight finish with the newer net (as KataGo's self-play does). Each
//! net a worker loads has an evaluation cache of its own (`selfplay.eval_cache`), so a newer net
//! never answers from an older one's cache. With `selfplay.server.threads` the workers share one
//! inference server instead of a net each: a newer net replaces the server's before any worker
//! sends it a leaf.

use crate::run_state::{fetch_net, load_inference};
use crate::store_retry::unreachable;
use anyhow::{Context, Result};
use model::NetConfig;
use model::NetEvaluator;
use runconfig::RunConfig;
use rundata::{BestNet, CachedRun};
use search::alphabeta::LeafEvaluator;
use search::{
    BoxedEvaluator, CachedEvaluator, EvalError, EvalRequest, Evaluation, Evaluator, InferenceServer,
};
use sparsenet::{SparseEvaluator, SparseWeights};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How often self-play reads the best-net pointer while it plays.
pub const LOOK_EVERY: Duration = Duration::from_secs(2);

/// How often it tries again while the store cannot be reached: each try waits for the store's
/// timeout on the thread that writes the shards, so self-play does not pay it every 2 s.
pub const LOOK_WHILE_UNREACHABLE: Duration = Duration::from_secs(15);

/// The best net self-play plays with, and where a newer one comes from.
pub struct PlayingNet<'a> {
    cached: &'a CachedRun,
    config: &'a RunConfig,
    /// Counts the nets taken up; a worker whose evaluator is older loads [`PlayingNet::best`].
    version: AtomicU64,
    state: Mutex<Looking>,
    /// The server every worker sends its leaves to (`selfplay.server.threads` > 0), else none.
    server: Option<InferenceServer>,
}

struct Looking {
    best: BestNet,
    last_look: Instant,
    /// Whether the last look found the store unreachable (said once per outage).
    unreachable: bool,
    /// A failed look (other than an unreachable store): self-play stops and reports it.
    failure: Option<anyhow::Error>,
}

impl<'a> PlayingNet<'a> {
    /// Plays with `best` (in the cache) until a newer best net of the run turns up; starts the
    /// inference server, if the config asks for one.
    pub fn new(
        cached: &'a CachedRun,
        config: &'a RunConfig,
        best: BestNet,
    ) -> Result<PlayingNet<'a>> {
        let server = &config.selfplay.server;
        let server = match server.threads {
            0 => None,
            threads => {
                let nets = server_nets(cached, config, &best, threads)?;
                Some(InferenceServer::start_threads(nets, server.batching()))
            }
        };
        let state = Looking { best, last_look: Instant::now(), unreachable: false, failure: None };
        let version = AtomicU64::new(0);
        Ok(PlayingNet { cached, config, version, state: Mutex::new(state), server })
    }

    fn lock(&self) -> MutexGuard<'_, Looking> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The net played now.
    pub fn best(&self) -> BestNet {
        self.lock().best.clone()
    }

    /// The generation of the net played now.
    pub fn generation(&self) -> u32 {
        self.lock().best.generation
    }

    /// Looks for a newer best net if the last look is [`LOOK_EVERY`] old (`at_once`: now), and
    /// takes it up: fetched into the cache, then loaded by each worker before its next batch.
    /// While the store cannot be reached self-play goes on with the net it has, and looks again
    /// only every [`LOOK_WHILE_UNREACHABLE`] (`at_once` too). Returns whether
    /// a look failed otherwise: self-play should stop, and [`PlayingNet::failure`] says why.
    pub fn look(&self, at_once: bool) -> bool {
        let mut state = self.lock();
        if state.failure.is_some() {
            return true;
        }
        let wait = if state.unreachable { LOOK_WHILE_UNREACHABLE } else { LOOK_EVERY };
        if (!at_once || state.unreachable) && state.last_look.elapsed() < wait {
            return false;
        }
        state.last_look = Instant::now();
        match self.newer_than(&state.best) {
            Ok(newer) => {
                state.unreachable = false;
                if let Some(newer) = newer {
                    // The server's nets first: a worker that sees the new version sends its
                    // leaves to them.
                    if let Some(server) = &self.server {
                        match server_nets(self.cached, self.config, &newer, server.threads()) {
                            Ok(nets) => server.replace(nets),
                            Err(e) => {
                                state.failure = Some(e);
                                return true;
                            }
                        }
                    }
                    state.best = newer;
                    self.version.fetch_add(1, Ordering::Release);
                }
            }
            Err(e) if unreachable(&e) => {
                if !state.unreachable {
                    eprintln!(
                        "store unreachable ({e:#}): self-play goes on with generation {}",
                        state.best.generation
                    );
                }
                state.unreachable = true;
            }
            Err(e) => state.failure = Some(e),
        }
        state.failure.is_some()
    }

    /// Why a look failed, if one did.
    pub fn failure(&self) -> Result<()> {
        self.lock().failure.take().map_or(Ok(()), Err)
    }

    /// The run's best net when it is newer than `best`, in the cache.
    fn newer_than(&self, best: &BestNet) -> Result<Option<BestNet>> {
        let Some(newest) = self.cached.best()?.filter(|b| b.generation > best.generation) else {
            return Ok(None);
        };
        fetch_net(self.cached, &newest)?;
        let age = support::unix_seconds().saturating_sub(newest.promoted_at);
        progress::line(format!(
            "picked up generation {} ({}, promoted {age} s ago)",
            newest.generation,
            newest.checkpoint.display()
        ));
        Ok(Some(newest))
    }

    /// An evaluator with the net played now, for one worker; it follows the nets taken up later.
    pub fn evaluator(&self) -> Result<FollowingEvaluator<'_>> {
        let version = self.version.load(Ordering::Acquire);
        Ok(FollowingEvaluator { playing: self, version, net: self.load()?, earlier_hits: 0 })
    }

    /// The evaluator of one worker: a client of the server, or a net of its own.
    fn load(&self) -> Result<CachedEvaluator<BoxedEvaluator>> {
        let net: BoxedEvaluator = match &self.server {
            Some(server) => Box::new(server.client()),
            None => load_net(self.cached, self.config, &self.best())?,
        };
        Ok(CachedEvaluator::new(net, self.config.selfplay.eval_cache))
    }
}

/// The net `best` as one worker's evaluator: a sparse net natively, a ResNet through libtorch.
/// A sparse net of any size plays: a run that widened its net (`net.accumulator` raised) plays
/// its narrower best net until a wider one is promoted.
fn load_net(cached: &CachedRun, config: &RunConfig, best: &BestNet) -> Result<BoxedEvaluator> {
    let path = cached.run().root().join(&best.checkpoint);
    Ok(match &config.net {
        NetConfig::Sparse(_) => {
            let file = netfile::CheckpointFile::read(&path, None)
                .with_context(|| format!("loading net {}", path.display()))?;
            let weights = SparseWeights::from_file(&file)?;
            Box::new(SparseEvaluator::new(Arc::new(weights)))
        }
        NetConfig::Resnet(_) => Box::new(NetEvaluator::new(load_inference(&path, config)?)),
    })
}

/// `threads` copies of the net `best`, one per server thread.
fn server_nets(
    cached: &CachedRun,
    config: &RunConfig,
    best: &BestNet,
    threads: usize,
) -> Result<Vec<BoxedEvaluator>> {
    (0..threads).map(|_| load_net(cached, config, best)).collect()
}

/// A worker's evaluator: the net played now, loaded anew when a newer one was taken up.
pub struct FollowingEvaluator<'a> {
    playing: &'a PlayingNet<'a>,
    /// The [`PlayingNet`] version `net` is.
    version: u64,
    net: CachedEvaluator<BoxedEvaluator>,
    /// What the caches of the nets before `net` answered.
    earlier_hits: u64,
}

impl FollowingEvaluator<'_> {
    /// The net played now, loaded first if a newer one was taken up since this worker's last ask.
    fn current(&mut self) -> Result<&mut CachedEvaluator<BoxedEvaluator>> {
        let version = self.playing.version.load(Ordering::Acquire);
        if version != self.version {
            let newer = self.playing.load()?;
            self.earlier_hits += std::mem::replace(&mut self.net, newer).answered_from_cache();
            self.version = version;
        }
        Ok(&mut self.net)
    }
}

impl Evaluator for FollowingEvaluator<'_> {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        let net = self.current().map_err(|e| EvalError::new(requests.len(), format!("{e:#}")))?;
        net.evaluate(requests)
    }

    fn answered_from_cache(&self) -> u64 {
        self.earlier_hits + self.net.answered_from_cache()
    }

    /// The newest net's; the net this worker has when the newer one cannot be loaded (its
    /// next batch of leaves reports that failure).
    fn leaf_evaluator(&mut self) -> Option<Box<dyn LeafEvaluator>> {
        match self.current() {
            Ok(net) => net.leaf_evaluator(),
            Err(_) => self.net.leaf_evaluator(),
        }
    }
}
