//! The net a training state starts from when there is none to resume: random weights seeded by
//! the run's seed, or (`train.init`, a warm start) a trained checkpoint. A checkpoint's sparse
//! net narrower than `net.accumulator` is widened to it (the same outputs), as a resumed state is;
//! any other difference of architecture is an error naming the file.

use crate::error::TrainError;
use model::checkpoint::load;
use model::{Checkpoint, CheckpointError, ModelError, NetConfig, PolicyValueNet};
use runconfig::TrainConfig;
use std::path::Path;
use tch::Device;

/// The first net of a training state (and of a run: its generation 0): `config.init`'s
/// checkpoint fitted to `net_config`, or, with no `init`, a fresh net seeded by `config.seed`.
pub fn initial_net(
    net_config: &NetConfig,
    config: &TrainConfig,
    device: Device,
) -> Result<PolicyValueNet, TrainError> {
    if config.init.is_empty() {
        tch::manual_seed(config.seed as i64);
        return Ok(PolicyValueNet::new(net_config, device)?);
    }
    let path = Path::new(&config.init);
    let warm = || -> Result<PolicyValueNet, TrainError> {
        let Checkpoint { meta, net, .. } = load(path, None, device)?;
        Ok(fit(path, net, &meta.config, net_config, config.seed)?.0)
    };
    warm().map_err(|e| TrainError::Init { path: path.to_path_buf(), source: Box::new(e) })
}

/// `net`, read from `path` with the architecture `stored`, as a net of `wanted`: itself when they
/// are equal, widened when `wanted` is `stored` with a wider accumulator (with the width it had),
/// else a [`CheckpointError::ArchitectureMismatch`] naming `path`. The new units' weights are
/// seeded by `seed`.
pub(crate) fn fit(
    path: &Path,
    net: PolicyValueNet,
    stored: &NetConfig,
    wanted: &NetConfig,
    seed: u64,
) -> Result<(PolicyValueNet, Option<usize>), TrainError> {
    if stored == wanted {
        return Ok((net, None));
    }
    let Some((narrow, wide)) = widening(stored, wanted) else {
        let mismatch = CheckpointError::ArchitectureMismatch {
            path: path.to_path_buf(),
            expected: wanted.to_json(),
            found: stored.to_json(),
        };
        return Err(ModelError::from(mismatch).into());
    };
    tch::manual_seed(seed as i64);
    Ok((model::widen_accumulator(&net, wide)?, Some(narrow)))
}

/// The accumulator widths `(stored, wanted)` when `wanted` is `stored` with a wider accumulator.
fn widening(stored: &NetConfig, wanted: &NetConfig) -> Option<(usize, usize)> {
    match (stored, wanted) {
        (NetConfig::Sparse(s), NetConfig::Sparse(w))
            if s.accumulator < w.accumulator && (s.hidden, s.layers) == (w.hidden, w.layers) =>
        {
            Some((s.accumulator, w.accumulator))
        }
        _ => None,
    }
}
