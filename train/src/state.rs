//! Training checkpoints: the model's checkpoint format (weights, step, checksum) with the
//! trainer's state as extras, so a resumed run continues exactly where it stopped.
//!
//! Files: `RUN/train/state-<step>.safetensors`. Extras: tensors `optim.<i>.<variable>` (the
//! optimizer's buffers); metadata `train.optimizer_updates`, `train.rng` (the sampling generator's
//! state), `train.skipped_steps`, `train.shards` (JSON list of the shard files in the replay
//! window's order), `train.positions_read` (the self-play positions read so far) and `train.config` (the TrainConfig as JSON, for people); with auxiliary
//! heads, their tensors and update counts (see [`crate::aux_heads`]); with `train.ema_decay`, the
//! averaged weights (see [`crate::average`]).
//!
//! A sparse net whose config asks for a wider accumulator than its state holds (a run's
//! `net.accumulator` raised in `RUN/config.toml`) resumes widened ([`model::widen_accumulator`]:
//! the same outputs), with the optimizer's buffers, the auxiliary heads and the averaged weights
//! started afresh. A state whose net `train.grow` widened already resumes as it is.

use crate::aux_heads::{AuxHeads, AuxTarget};
use crate::average::WeightAverage;
use crate::error::{StateError, TrainError};
use crate::init::fit;
use crate::optim::Optimizer;
use model::checkpoint::{load, save};
use model::{Checkpoint, Extras, NetConfig, PolicyValueNet};
use runconfig::TrainConfig;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tch::Device;

const PREFIX: &str = "state-";
const SUFFIX: &str = ".safetensors";

/// The trainer's counters beside the weights and optimizer buffers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrainState {
    /// Training steps taken, skipped ones included.
    pub step: u64,
    /// Optimizer updates applied (steps not skipped).
    pub optimizer_updates: u64,
    /// The sampling generator's state (see [`support::SplitMix64`]).
    pub rng: u64,
    /// Steps skipped for a non-finite loss or gradient.
    pub skipped_steps: u64,
    /// File names of the shards in the replay window, oldest first.
    pub shards: Vec<String>,
    /// Self-play positions read so far (`None` in a state written before it was kept).
    pub positions_read: Option<u64>,
}

/// The state file of `step` in `dir`.
pub fn state_path(dir: &Path, step: u64) -> PathBuf {
    dir.join(format!("{PREFIX}{step:010}{SUFFIX}"))
}

/// The step of the state file named `name` (`state-0000000120.safetensors` is step 120), or
/// `None` when `name` is not a state file's.
pub fn state_step(name: &str) -> Option<u64> {
    let digits = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    digits.bytes().all(|b| b.is_ascii_digit()).then(|| digits.parse().ok())?
}

/// State files in `dir`, newest first.
pub fn list_states(dir: &Path) -> Result<Vec<PathBuf>, TrainError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(TrainError::io(dir, e)),
    };
    let mut paths = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| TrainError::io(dir, e))?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if let Some(step) = state_step(&name) {
            paths.push((step, path));
        }
    }
    paths.sort_by(|a, b| b.cmp(a));
    Ok(paths.into_iter().map(|(_, path)| path).collect())
}

/// The trainer's parts a state file holds beside its counters.
pub struct Parts<'a> {
    /// The net being trained.
    pub net: &'a PolicyValueNet,
    /// The net's optimizer.
    pub optimizer: &'a Optimizer,
    /// The auxiliary heads, if the trainer has them.
    pub aux: Option<&'a AuxHeads>,
    /// The averaged weights, if the trainer keeps them.
    pub average: Option<&'a WeightAverage>,
}

/// Writes the trainer's `parts` and `state` to `path` atomically.
pub fn save_state(
    path: &Path,
    parts: Parts<'_>,
    state: &TrainState,
    config: &TrainConfig,
) -> Result<(), TrainError> {
    let mut meta = BTreeMap::from([
        ("train.optimizer_updates".to_string(), state.optimizer_updates.to_string()),
        ("train.rng".to_string(), state.rng.to_string()),
        ("train.skipped_steps".to_string(), state.skipped_steps.to_string()),
        (
            "train.shards".to_string(),
            serde_json::to_string(&state.shards).expect("strings serialise"),
        ),
        (
            "train.config".to_string(),
            serde_json::to_string(config).expect("a TrainConfig serialises"),
        ),
    ]);
    if let Some(read) = state.positions_read {
        meta.insert("train.positions_read".to_string(), read.to_string());
    }
    let mut tensors = parts.optimizer.state();
    for extras in [parts.aux.map(AuxHeads::state), parts.average.map(WeightAverage::state)] {
        let extras = extras.unwrap_or_default();
        meta.extend(extras.meta);
        tensors.extend(extras.tensors);
    }
    save(path, parts.net, state.step, None, &Extras { meta, tensors })?;
    Ok(())
}

/// A loaded training checkpoint: the net and optimizer restored, and the counters.
pub struct Restored {
    /// The state file read.
    pub path: PathBuf,
    /// The net with the saved weights.
    pub net: PolicyValueNet,
    /// The optimizer with its saved buffers.
    pub optimizer: Optimizer,
    /// The saved counters.
    pub state: TrainState,
    /// The auxiliary heads `config` asks for, restored (those the state holds).
    pub aux: Option<AuxHeads>,
    /// The heads of `aux` the state does not hold, which start fresh.
    pub fresh_aux: Vec<AuxTarget>,
    /// The averaged weights, when `config` keeps them and the state holds them.
    pub average: Option<WeightAverage>,
    /// The architecture of the state's net, when it was smaller than the config's (a narrower
    /// accumulator, one value stack) and the net grew to it.
    pub widened_from: Option<NetConfig>,
}

/// Whether `stored` is `net_config` widened to one of `train.grow`'s widths (a state saved after
/// the trainer grew its net).
fn grown(net_config: &NetConfig, config: &TrainConfig, stored: &NetConfig) -> bool {
    match (net_config, stored) {
        (NetConfig::Sparse(base), NetConfig::Sparse(stored)) => {
            (base.hidden, base.layers, base.buckets)
                == (stored.hidden, stored.layers, stored.buckets)
                && config.grow.widths().any(|width| width == stored.accumulator)
        }
        _ => false,
    }
}

/// Loads the state file at `path` for a net of `net_config`, rebuilding the optimizer of
/// `config`; a narrower sparse net is widened (see the module's header). Any damage or other
/// mismatch is an error naming the file.
pub fn load_state(
    path: &Path,
    net_config: &NetConfig,
    config: &TrainConfig,
    device: Device,
) -> Result<Restored, TrainError> {
    let Checkpoint { meta, net, extras } = load(path, None, device)?;
    let (net, widened_from) = if grown(net_config, config, &meta.config) {
        (net, None)
    } else {
        fit(path, net, &meta.config, net_config, config.seed)?
    };
    let bad = |problem| TrainError::BadState { path: path.to_path_buf(), problem };
    let entry = |key| extras.meta.get(key).ok_or_else(|| bad(StateError::MissingEntry { key }));
    let number = |key| -> Result<u64, TrainError> {
        let text = entry(key)?;
        text.parse().map_err(|_| bad(StateError::NotANumber { key, text: text.clone() }))
    };
    let shards_text = entry("train.shards")?;
    let state = TrainState {
        step: meta.step,
        optimizer_updates: number("train.optimizer_updates")?,
        rng: number("train.rng")?,
        skipped_steps: number("train.skipped_steps")?,
        shards: serde_json::from_str(shards_text).map_err(|e| bad(StateError::Shards(e)))?,
        positions_read: extras
            .meta
            .contains_key("train.positions_read")
            .then(|| number("train.positions_read"))
            .transpose()?,
    };
    let mut optimizer = Optimizer::new(net.var_store(), &config.optimizer, config.weight_decay);
    let mut aux = AuxHeads::of(net.config(), config, device);
    let (mut fresh_aux, mut average) = (Vec::new(), None);
    if widened_from.is_none() {
        optimizer.load_state(&extras.tensors, state.optimizer_updates).map_err(bad)?;
        if let Some(heads) = &mut aux {
            fresh_aux = heads.restore(&extras).map_err(bad)?;
        }
        if config.ema_decay > 0.0 {
            average = WeightAverage::restore(&net, config.ema_decay, &extras).map_err(bad)?;
        }
    }
    let path = path.to_path_buf();
    Ok(Restored { path, net, optimizer, state, aux, fresh_aux, average, widened_from })
}

/// The newest state in `dir` that loads, and the errors of newer ones that did not (each
/// naming its file). `None` when no state loads.
pub fn load_latest(
    dir: &Path,
    net_config: &NetConfig,
    config: &TrainConfig,
    device: Device,
) -> Result<(Option<Restored>, Vec<TrainError>), TrainError> {
    let mut refused = Vec::new();
    for path in list_states(dir)? {
        match load_state(&path, net_config, config, device) {
            Ok(restored) => return Ok((Some(restored), refused)),
            Err(err) => refused.push(err),
        }
    }
    Ok((None, refused))
}
