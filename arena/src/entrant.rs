//! A contestant built from a [`PlayerSpec`]: nets loaded once and shared by all games.

use crate::clock::GameClock;
use crate::error::ArenaError;
use crate::player::{Contestant, Player};
use crate::players::alphabeta::AlphaBetaPlayer;
use crate::players::mcts::{player_config, MctsPlayer, Thinking, PLAYER_PLAYOUTS};
use crate::players::policy::PolicyPlayer;
use crate::players::random::RandomPlayer;
use crate::spec::{NetSource, PlayerSpec, SearchLimit};
use egdb::Tables;
use search::alphabeta::{Limit, SearchFeatures};
use search::{BoxedEvaluator, LoadedNet, MctsConfig, NetLoader};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use support::DeviceSpec;

/// Settings for net players that their spec does not give.
#[derive(Clone, Debug)]
pub struct NetOptions {
    /// MCTS playouts per decision for `mcts:` players that name none.
    pub playouts: u32,
    /// Time per move, for `mcts:` players that name no playouts and for `alphabeta` without a
    /// depth or time: the same for both sides of an equal-time match.
    pub time: Option<Duration>,
    /// The game clock of a match under one (`match --clock`): players that name no budget are
    /// named by it (`alphabeta:60+0.5`), and every player thinks within each move's budget of
    /// it.
    pub clock: Option<GameClock>,
    /// Where loaded nets run (CPU or a CUDA device).
    pub device: DeviceSpec,
    /// Endgame tables the `mcts:` players' searches take as exact leaves (see
    /// `search::Search::with_tables`).
    pub egdb: Option<Arc<Tables>>,
    /// Loads the nets of `mcts:`, `policy:` and `alphabeta...,net=` players; without one, such
    /// players are refused.
    pub nets: Option<Arc<dyn NetLoader>>,
}

impl Default for NetOptions {
    fn default() -> Self {
        NetOptions {
            playouts: PLAYER_PLAYOUTS,
            time: None,
            clock: None,
            device: DeviceSpec::Cpu,
            egdb: None,
            nets: None,
        }
    }
}

/// A player ready to play: its name, its training step, and what it plays with.
pub struct Entrant {
    name: String,
    step: Option<u64>,
    run_dir: Option<PathBuf>,
    net: Option<NetName>,
    kind: Kind,
}

/// The checkpoint a net player is named by: where its stem sits in the player's name, and the
/// run folder the checkpoint belongs to.
struct NetName {
    /// Byte offset of the checkpoint's stem in the player's name.
    at: usize,
    checkpoint: PathBuf,
    /// The run directory the player was named by, or the run around a checkpoint in its `nets/`.
    run: Option<PathBuf>,
    /// Whether the name already says the folder (`RUN/step-N`).
    qualified: bool,
}

impl NetName {
    fn of(net: &NetSource, at: usize) -> NetName {
        // A run's `nets/` sits beside its config; a lone `nets/` folder (the shipped net's) is
        // no run.
        let in_nets = |parent: &Path| parent.file_name() == Some(rundata::layout::NETS.as_ref());
        let run = net.run_dir.clone().or_else(|| {
            let parent = net.checkpoint.parent().filter(|p| in_nets(p))?.parent()?;
            parent.join(rundata::layout::CONFIG).is_file().then(|| parent.to_path_buf())
        });
        NetName { at, checkpoint: net.checkpoint.clone(), run, qualified: false }
    }

    /// The folder a qualified name gives: the run's, else the checkpoint's own.
    fn folder(&self) -> Option<String> {
        let folder =
            self.run.clone().or_else(|| self.checkpoint.parent().map(Path::to_path_buf))?;
        let folder = folder.canonicalize().ok()?;
        Some(folder.file_name()?.to_string_lossy().into_owned())
    }

    fn same_folder(&self, run: &Path) -> bool {
        let canonical = |p: &Path| p.canonicalize().ok();
        self.run.as_deref().and_then(canonical).is_some_and(|own| Some(own) == canonical(run))
    }
}

enum Kind {
    Random,
    /// The engine's limit, and the net that scores its leaves with the tables its search
    /// probes, if any.
    AlphaBeta(Limit, Option<(Arc<LoadedNet>, Option<Arc<Tables>>)>, SearchFeatures),
    Mcts(Arc<LoadedNet>, Thinking, Option<Arc<Tables>>, MctsConfig),
    Policy(Arc<LoadedNet>),
}

impl Entrant {
    /// Builds the player `spec` names, loading its net if it has one.
    pub fn load(spec: &PlayerSpec, options: &NetOptions) -> Result<Entrant, ArenaError> {
        let builtin =
            |name: String, kind| Entrant { name, step: None, run_dir: None, net: None, kind };
        Ok(match spec {
            PlayerSpec::Random => builtin("random".into(), Kind::Random),
            PlayerSpec::AlphaBeta { limit, net, search } => {
                let (limit, name) =
                    match (limit.or(options.time.map(SearchLimit::Time)), options.clock) {
                        (Some(SearchLimit::Depth(depth)), _) => {
                            (Limit::Depth(depth), format!("alphabeta:{depth}"))
                        }
                        (Some(SearchLimit::Time(time)), _) => {
                            (Limit::Time(time), format!("alphabeta:{}s", time.as_secs_f64()))
                        }
                        (None, Some(clock)) => {
                            (clock.first_move_limit(), format!("alphabeta:{clock}"))
                        }
                        (None, None) => {
                            return Err(ArenaError::PlayerSpec {
                                text: "alphabeta".into(),
                                reason: "names no depth or time: write alphabeta:DEPTH or \
                                     alphabeta:SECONDSs, or give a time per move (--time)"
                                    .into(),
                            })
                        }
                    };
                // The classic engine alone, the full one with a net; then the spec's changes.
                let mut features = match net {
                    None => SearchFeatures::classic(),
                    Some(_) => SearchFeatures::full(),
                };
                let mut changes = String::new();
                for (key, value) in search {
                    features
                        .set(key, value)
                        .map_err(|reason| ArenaError::PlayerSpec { text: name.clone(), reason })?;
                    changes.push_str(&format!(",{key}={value}"));
                }
                match net {
                    None => builtin(name + &changes, Kind::AlphaBeta(limit, None, features)),
                    Some(net) => {
                        let (shared, step) = load_net(net, options)?;
                        let with_net = Some((shared, options.egdb.clone()));
                        let at = name.len() + ",net=".len();
                        Entrant {
                            name: format!("{name},net={}{changes}", net.stem()),
                            step: Some(step),
                            run_dir: net.run_dir.clone(),
                            net: Some(NetName::of(net, at)),
                            kind: Kind::AlphaBeta(limit, with_net, features),
                        }
                    }
                }
            }
            PlayerSpec::Mcts { net, playouts, settings } => {
                let clock_time = options.clock.map(|clock| clock.first_move_target());
                let thinking = match (playouts, options.time.or(clock_time)) {
                    (Some(p), _) => Thinking::Playouts(*p),
                    (None, Some(time)) => Thinking::Time(time),
                    (None, None) => Thinking::Playouts(options.playouts),
                };
                let budget = match (thinking, options.clock) {
                    (Thinking::Playouts(p), _) => p.to_string(),
                    (Thinking::Time(_), Some(clock)) if options.time.is_none() => clock.to_string(),
                    (Thinking::Time(t), _) => format!("{}s", t.as_secs_f64()),
                };
                let (shared, step) = load_net(net, options)?;
                let mut config = player_config(thinking);
                // A net as cheap one position at a time as in batches needs no virtual loss.
                if let Some(leaves) = shared.leaves_per_batch {
                    config.leaves_per_batch = leaves;
                }
                let mut name = format!("mcts:{}:{budget}", net.stem());
                for (key, value) in settings {
                    config
                        .set(key, value)
                        .map_err(|reason| ArenaError::PlayerSpec { text: name.clone(), reason })?;
                    name.push_str(&format!(",{key}={value}"));
                }
                Entrant {
                    name,
                    step: Some(step),
                    run_dir: net.run_dir.clone(),
                    net: Some(NetName::of(net, "mcts:".len())),
                    kind: Kind::Mcts(shared, thinking, options.egdb.clone(), config),
                }
            }
            PlayerSpec::Policy { net } => {
                let (shared, step) = load_net(net, options)?;
                Entrant {
                    name: format!("policy:{}", net.stem()),
                    step: Some(step),
                    run_dir: net.run_dir.clone(),
                    net: Some(NetName::of(net, "policy:".len())),
                    kind: Kind::Policy(shared),
                }
            }
        })
    }

    /// Whether the player plays with a net.
    pub fn has_net(&self) -> bool {
        matches!(self.kind, Kind::Mcts(..) | Kind::Policy(_) | Kind::AlphaBeta(_, Some(_), _))
    }

    /// A fresh evaluator over the player's net; `None` for a player without one.
    pub fn evaluator(&self) -> Option<BoxedEvaluator> {
        match &self.kind {
            Kind::Mcts(net, ..) | Kind::Policy(net) | Kind::AlphaBeta(_, Some((net, _)), _) => {
                Some((net.evaluators)())
            }
            Kind::Random | Kind::AlphaBeta(_, None, _) => None,
        }
    }

    /// The run directory the player was named by, where its games are recorded.
    pub fn run_dir(&self) -> Option<&Path> {
        self.run_dir.as_deref()
    }

    /// Names the player's net by its folder too (`mcts:RUN/step-N:400`), once: what a name
    /// needs where a bare checkpoint name could stand for another net.
    fn qualify(&mut self) {
        let Some(net) = self.net.as_mut().filter(|net| !net.qualified) else { return };
        if let Some(folder) = net.folder() {
            self.name.insert_str(net.at, &format!("{folder}/"));
            net.qualified = true;
        }
    }

    /// Names the player's net by its run too when its games go into the records of `run`, a
    /// run other than its own: there a bare `step-N` could be one of `run`'s own nets.
    pub fn qualify_outside(&mut self, run: &Path) {
        if self.net.as_ref().is_some_and(|net| !net.same_folder(run)) {
            self.qualify();
        }
    }

    /// Tells two players apart that are named alike but play different checkpoints (the best
    /// nets of two runs at the same step, say) by naming each net by its folder; players that
    /// still share a name are refused, since their games could not be told apart.
    pub fn distinguish(a: &mut Entrant, b: &mut Entrant) -> Result<(), ArenaError> {
        let checkpoint = |e: &Entrant| e.net.as_ref().map(|net| net.checkpoint.clone());
        let differ = checkpoint(a)
            .zip(checkpoint(b))
            .is_some_and(|(x, y)| x.canonicalize().ok() != y.canonicalize().ok());
        if a.name != b.name || !differ {
            return Ok(());
        }
        a.qualify();
        b.qualify();
        if a.name == b.name {
            return Err(ArenaError::PlayerSpec {
                text: a.name.clone(),
                reason: "both players have this name but play different checkpoints; rename \
                         one checkpoint so that their games can be told apart"
                    .into(),
            });
        }
        Ok(())
    }
}

fn load_net(net: &NetSource, options: &NetOptions) -> Result<(Arc<LoadedNet>, u64), ArenaError> {
    let no_loader = || ArenaError::NoNets { checkpoint: net.checkpoint.clone() };
    let loader = options.nets.as_ref().ok_or_else(no_loader)?;
    let loaded = loader
        .load(&net.checkpoint, options.device)
        .map_err(|source| ArenaError::Net { checkpoint: net.checkpoint.clone(), source })?;
    let step = loaded.step;
    Ok((Arc::new(loaded), step))
}

impl Contestant for Entrant {
    fn name(&self) -> &str {
        &self.name
    }

    fn step(&self) -> Option<u64> {
        self.step
    }

    fn shares_batches(&self) -> bool {
        match &self.kind {
            Kind::Random | Kind::Policy(_) | Kind::Mcts(_, Thinking::Playouts(_), ..) => true,
            Kind::AlphaBeta(..) | Kind::Mcts(_, Thinking::Time(_), ..) => false,
        }
    }

    fn player(&self, seed: u64) -> Result<Box<dyn Player>, ArenaError> {
        Ok(match &self.kind {
            Kind::Random => Box::new(RandomPlayer::new(seed)),
            Kind::AlphaBeta(limit, None, features) => {
                Box::new(AlphaBetaPlayer::new(*limit).with_features(*features))
            }
            Kind::AlphaBeta(limit, Some((net, tables)), features) => {
                Box::new(AlphaBetaPlayer::new(*limit).with_net(
                    self.name.clone(),
                    net,
                    tables.clone(),
                    *features,
                ))
            }
            Kind::Mcts(net, thinking, tables, config) => Box::new(
                MctsPlayer::new(self.name.clone(), (net.evaluators)(), *thinking, seed)
                    .with_config(config.clone())
                    .with_tables(tables.clone()),
            ),
            Kind::Policy(net) => Box::new(PolicyPlayer::new(self.name.clone(), (net.evaluators)())),
        })
    }
}
