//! The training loop: feed the replay window from new shards, train as many steps as the new
//! positions pay for, log, and checkpoint every K steps. Batches are drawn ahead on a background
//! thread ([`crate::prefetch`]) while the window stays as it is, with the batches the training
//! thread would draw itself.

mod step;

use step::Meter;

use crate::aux_heads::{AuxHeads, AuxTarget};
use crate::average::WeightAverage;
use crate::batch::HostBatch;
use crate::endgame::{EndgameAccuracy, EndgameSet, ENDGAME_LOG_FILE};
use crate::error::TrainError;
use crate::init::initial_net;
use crate::optim::Optimizer;
use crate::prefetch::Prefetcher;
use crate::replay::{Growth, Refresh, ReplayBuffer};
use crate::schedule::learning_rate;
use crate::state::{list_states, load_latest, save_state, state_path, Parts, TrainState};
use crate::tb::TbLogger;
use model::{NetConfig, PolicyValueNet};
use runconfig::TrainConfig;
use rundata::{append_lines, RunDir, RunDirError};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use support::SplitMix64;
use tch::Device;

/// State files kept in the state folder (older ones are removed after a checkpoint).
const KEEP_STATES: usize = 2;

/// Where the trainer reads and writes.
#[derive(Clone, Debug)]
pub struct TrainPaths {
    /// Trajectory shards (read).
    pub shards: PathBuf,
    /// Training states (written, read on resume).
    pub states: PathBuf,
    /// Candidate nets for the evaluator (written).
    pub nets: PathBuf,
    /// TensorBoard events of the trainer (written).
    pub tb: PathBuf,
}

impl TrainPaths {
    /// The standard places in a run directory.
    pub fn of(run: &RunDir) -> TrainPaths {
        TrainPaths {
            shards: run.shards_dir(),
            states: run.train_dir(),
            nets: run.nets_dir(),
            tb: run.tb_dir().join("train"),
        }
    }
}

/// The candidate net written at `step` into the nets folder.
pub fn candidate_path(nets: &Path, step: u64) -> PathBuf {
    nets.join(format!("step-{step:010}.safetensors"))
}

/// What opening a trainer found.
#[derive(Debug, Default)]
pub struct Opened {
    /// The state resumed from; `None` for a fresh net.
    pub resumed_from: Option<PathBuf>,
    /// Newer states that were refused (damaged, or for another net), each naming its file.
    pub refused: Vec<TrainError>,
    /// The shards re-read into the replay window.
    pub replay: Refresh,
    /// Auxiliary heads the config asks for that the state resumed from does not hold: they
    /// start fresh.
    pub fresh_aux_heads: Vec<AuxTarget>,
    /// The config keeps averaged weights and the state resumed from holds none: the average
    /// starts from the resumed net.
    pub fresh_average: bool,
    /// The architecture of the state resumed from, when the config's is larger (a wider
    /// accumulator, more value stacks) and the net grew to it (see [`crate::state`]).
    pub widened_from: Option<NetConfig>,
}

/// The result of one attempted step.
#[derive(Clone, Debug, PartialEq)]
pub enum StepOutcome {
    /// An update was applied; the batch's total loss.
    Trained {
        /// The batch's total loss.
        loss: f64,
    },
    /// The loss or gradient was not finite; nothing was updated.
    Skipped {
        /// The batch's total loss.
        loss: f64,
        /// The gradient norm before clipping (NaN when the loss was not finite).
        grad_norm: f64,
    },
}

/// Trains a run's net on its shards: replay window, optimizer, checkpoints and TensorBoard logs, resuming where the last commit point left off.
pub struct Trainer {
    config: TrainConfig,
    paths: TrainPaths,
    net: PolicyValueNet,
    optimizer: Optimizer,
    /// The auxiliary heads, when the config trains an auxiliary target.
    aux: Option<AuxHeads>,
    /// The averaged weights the candidates are made of, with `ema_decay` above 0.
    average: Option<WeightAverage>,
    /// Shared with the batch thread while it runs; changed only after it stopped.
    replay: Arc<ReplayBuffer>,
    /// The sampling generator after the last batch trained on (or assembled here).
    rng: SplitMix64,
    /// The thread drawing the next batches, from `replay` and `rng` as they were when it started.
    prefetch: Option<Prefetcher>,
    step: u64,
    skipped: u64,
    bad_in_row: u32,
    host: HostBatch,
    tb: TbLogger,
    meter: Meter,
    since: Instant,
    last_checkpoint: Option<PathBuf>,
    /// The step of the last checkpoint, written or resumed from (0 for a fresh net): the next one
    /// is due `checkpoint_every` steps after it (see [`Trainer::next_checkpoint`]).
    saved_step: u64,
    endgame: Option<EndgameSet>,
    /// The step last measured on the endgame set (the resumed step: measured before the stop).
    endgame_measured: Option<u64>,
    /// The last measurement, until [`Trainer::take_endgame_accuracy`] takes it.
    endgame_new: Option<EndgameAccuracy>,
    /// The share of the run's budget spent, as the run last reported it (for a schedule over
    /// the budget).
    budget_spent: Option<f64>,
}

impl Trainer {
    /// Resumes from the newest loadable state in `paths.states`, or starts a fresh net of
    /// `net_config` (seeded by `config.seed`).
    pub fn open(
        paths: TrainPaths,
        net_config: &NetConfig,
        config: TrainConfig,
        device: Device,
    ) -> Result<(Trainer, Opened), TrainError> {
        config.validate()?;
        for dir in [&paths.states, &paths.nets] {
            std::fs::create_dir_all(dir).map_err(|e| TrainError::io(dir, e))?;
        }
        let (restored, refused) = load_latest(&paths.states, net_config, &config, device)?;
        let mut replay = ReplayBuffer::new(config.window.clone());
        let mut opened = Opened { refused, ..Opened::default() };
        let (net, optimizer, aux, average, state) = match restored {
            Some(r) => {
                opened.replay =
                    replay.restore(&paths.shards, &r.state.shards, r.state.positions_read);
                opened.resumed_from = Some(r.path);
                opened.fresh_aux_heads = r.fresh_aux;
                opened.fresh_average =
                    config.ema_decay > 0.0 && r.average.is_none() && r.widened_from.is_none();
                opened.widened_from = r.widened_from;
                (r.net, r.optimizer, r.aux, r.average, r.state)
            }
            None => {
                let net = initial_net(net_config, &config, device)?;
                let optimizer =
                    Optimizer::new(net.var_store(), &config.optimizer, config.weight_decay);
                let aux = AuxHeads::of(net_config, &config, device);
                let state = TrainState { rng: config.seed, ..TrainState::default() };
                (net, optimizer, aux, None, state)
            }
        };
        let average = match average {
            None if config.ema_decay > 0.0 => Some(WeightAverage::start(&net, config.ema_decay)?),
            average => average,
        };
        let trainer = Trainer {
            tb: TbLogger::create(&paths.tb)?,
            endgame: None,
            endgame_measured: opened.resumed_from.as_ref().map(|_| state.step),
            endgame_new: None,
            budget_spent: None,
            last_checkpoint: opened.resumed_from.clone(),
            saved_step: state.step,
            paths,
            net,
            optimizer,
            aux,
            average,
            replay: Arc::new(replay),
            rng: SplitMix64::new(state.rng),
            prefetch: None,
            step: state.step,
            skipped: state.skipped_steps,
            bad_in_row: 0,
            host: HostBatch::default(),
            meter: Meter::default(),
            since: Instant::now(),
            config,
        };
        Ok((trainer, opened))
    }

    /// The net being trained.
    pub fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    /// The optimizer with its state.
    pub fn optimizer(&self) -> &Optimizer {
        &self.optimizer
    }

    /// The auxiliary heads, when the config trains an auxiliary target.
    pub fn aux_heads(&self) -> Option<&AuxHeads> {
        self.aux.as_ref()
    }

    /// The averaged weights, when the config keeps them.
    pub fn average(&self) -> Option<&WeightAverage> {
        self.average.as_ref()
    }

    /// The net a checkpoint writes as the candidate: the averaged weights when kept, else the
    /// net as trained.
    pub fn candidate_net(&self) -> &PolicyValueNet {
        self.average.as_ref().map_or(&self.net, WeightAverage::net)
    }

    /// Samples trained per position read so far (`step * batch_size / seen`), what `reuse`
    /// caps; 0 before any position.
    pub fn reuse(&self) -> f64 {
        let samples = self.step as f64 * self.config.batch_size as f64;
        samples / self.replay.seen().max(1) as f64
    }

    /// The learning rate of the next update: the schedule at this step, data and budget.
    pub fn learning_rate(&self) -> f64 {
        learning_rate(&self.config, self.step, self.replay.seen(), self.budget_spent)
    }

    /// The replay window.
    pub fn replay(&self) -> &ReplayBuffer {
        &self.replay
    }

    /// The training settings.
    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    /// Updates applied so far.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Steps skipped for a non-finite loss, over the whole run.
    pub fn skipped_steps(&self) -> u64 {
        self.skipped
    }

    /// Measures the value head on `set` at every checkpoint from now on (see
    /// [`Trainer::checkpoint`]).
    pub fn set_endgame_set(&mut self, set: EndgameSet) {
        self.endgame = Some(set);
    }

    /// The measurement of the last checkpoint on the endgame set, once (`None` when there was no
    /// new one since the last call).
    pub fn take_endgame_accuracy(&mut self) -> Option<EndgameAccuracy> {
        self.endgame_new.take()
    }

    /// The share of the run's budget spent (0..=1), for a schedule over the budget.
    pub fn set_budget_spent(&mut self, share: f64) {
        self.budget_spent = Some(share);
    }

    /// Reads new shards into the replay window, then widens the net when `train.grow` asks for a
    /// wider accumulator at the positions read so far ([`Trainer::grow`]).
    pub fn refresh(&mut self) -> Result<Refresh, TrainError> {
        // The batch thread drew from the old window: it stops, and what it drew ahead is dropped.
        self.prefetch = None;
        let replay =
            Arc::get_mut(&mut self.replay).expect("only the batch thread shares the window");
        let mut refresh = replay.refresh(&self.paths.shards)?;
        refresh.grown = self.grow()?;
        Ok(refresh)
    }

    /// Widens the net's accumulator to the width `train.grow` asks for at the positions read so
    /// far, when that is wider than the net's: the same outputs, with the optimizer's buffers,
    /// the auxiliary heads and the averaged weights started afresh (as a resume widened by
    /// `net.accumulator` starts them).
    pub fn grow(&mut self) -> Result<Option<Growth>, TrainError> {
        let positions = self.replay.seen();
        let (Some(to), NetConfig::Sparse(now)) =
            (self.config.grow.accumulator_at(positions), self.net.config())
        else {
            return Ok(None);
        };
        let from = now.accumulator;
        if to <= from {
            return Ok(None);
        }
        tch::manual_seed(self.config.seed.wrapping_add(positions) as i64);
        self.net = model::widen_accumulator(&self.net, to)?;
        let config = &self.config;
        self.optimizer =
            Optimizer::new(self.net.var_store(), &config.optimizer, config.weight_decay);
        self.aux = AuxHeads::of(self.net.config(), config, self.net.device());
        if config.ema_decay > 0.0 {
            self.average = Some(WeightAverage::start(&self.net, config.ema_decay)?);
        }
        Ok(Some(Growth { from, to, positions }))
    }

    /// Positions the window must hold before training (goes on): `min_positions`, or more while
    /// a window left short by a resume refills ([`ReplayBuffer::refill_target`]).
    pub fn positions_needed(&self) -> usize {
        self.config.min_positions.max(self.replay.refill_target())
    }

    /// Steps the positions seen so far pay for (`seen * reuse / batch_size`), once the window
    /// holds [`Trainer::positions_needed`]; the steps still to train are this minus
    /// [`Trainer::step`].
    pub fn steps_paid(&self) -> u64 {
        if self.replay.len() < self.positions_needed() {
            return 0;
        }
        (self.replay.seen() as f64 * self.config.reuse / self.config.batch_size as f64) as u64
    }

    /// The step at which the next checkpoint is due: `checkpoint_every` steps after the last one
    /// (written, or resumed from), so a run resumed at any step keeps checkpointing every
    /// `checkpoint_every` steps and never writes the same state twice.
    pub fn next_checkpoint(&self) -> u64 {
        self.saved_step().saturating_add(self.config.checkpoint_every)
    }

    /// The step of the last checkpoint written or resumed from.
    pub fn saved_step(&self) -> u64 {
        self.saved_step
    }

    /// Writes the candidate net of the current step ([`Trainer::candidate_net`]) to its place in
    /// the nets folder ([`candidate_path`]) and returns that path: part of [`Trainer::checkpoint`],
    /// and on its own it puts back the candidate of a resumed state whose file is gone.
    pub fn save_candidate(&self) -> Result<PathBuf, TrainError> {
        let path = candidate_path(&self.paths.nets, self.step);
        model::checkpoint::save(&path, self.candidate_net(), self.step, None, &Default::default())?;
        Ok(path)
    }

    /// Writes the candidate net ([`Trainer::candidate_net`]) and then the training state (the
    /// commit point) for the current step, and removes states older than the last two. Then, with
    /// an endgame set (and once per step), measures the candidate on it: TensorBoard `egdb/{value_accuracy,value_mae}` and a line in
    /// `egdb_accuracy.jsonl` of the state folder. Returns the state's path.
    pub fn checkpoint(&mut self) -> Result<PathBuf, TrainError> {
        self.save_candidate()?;
        let path = state_path(&self.paths.states, self.step);
        let state = TrainState {
            step: self.step,
            optimizer_updates: self.optimizer.updates(),
            rng: self.rng.state,
            skipped_steps: self.skipped,
            shards: self.replay.added().to_vec(),
            positions_read: Some(self.replay.seen()),
        };
        let parts = Parts {
            net: &self.net,
            optimizer: &self.optimizer,
            aux: self.aux.as_ref(),
            average: self.average.as_ref(),
        };
        save_state(&path, parts, &state, &self.config)?;
        self.last_checkpoint = Some(path.clone());
        self.saved_step = self.step;
        for old in list_states(&self.paths.states)?.into_iter().skip(KEEP_STATES) {
            std::fs::remove_file(&old).map_err(|e| TrainError::io(&old, e))?;
        }
        self.measure_endgame()?;
        Ok(path)
    }

    /// Measures the net on the endgame set, if any and not yet at this step, and logs it.
    fn measure_endgame(&mut self) -> Result<(), TrainError> {
        let Some(set) = self.endgame.as_ref().filter(|_| self.endgame_measured != Some(self.step))
        else {
            return Ok(());
        };
        let m = set.measure(self.candidate_net(), self.step);
        self.tb.scalars(
            self.step,
            &[("egdb/value_accuracy", m.accuracy as f32), ("egdb/value_mae", m.mae as f32)],
        )?;
        let log = self.paths.states.join(ENDGAME_LOG_FILE);
        let line = serde_json::to_string(&m).expect("a measurement always serialises") + "\n";
        append_lines(&log, &line).map_err(|e| match e {
            RunDirError::Io { path, source } => TrainError::io(path, source),
            other => TrainError::io(&log, std::io::Error::other(other)),
        })?;
        self.endgame_measured = Some(self.step);
        self.endgame_new = Some(m);
        Ok(())
    }
}
