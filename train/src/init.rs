//! The net a training state starts from when there is none to resume: random weights seeded by
//! the run's seed, or (`train.init`, a warm start) a trained checkpoint. A checkpoint's sparse
//! net narrower than `net.accumulator`, or of one value stack where `net.buckets` asks for more,
//! grows to it (widened, then split: the same outputs), as a resumed state does; any other
//! difference of architecture is an error naming the file.

use crate::error::TrainError;
use model::checkpoint::load;
use model::{Checkpoint, CheckpointError, ModelError, NetConfig, PolicyValueNet, SparseConfig};
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
/// are equal, grown when `wanted` is `stored` grown (a wider accumulator, more value stacks from
/// one; returned with the architecture it had), else a [`CheckpointError::ArchitectureMismatch`]
/// naming `path`. The new units' weights are seeded by `seed`.
pub(crate) fn fit(
    path: &Path,
    net: PolicyValueNet,
    stored: &NetConfig,
    wanted: &NetConfig,
    seed: u64,
) -> Result<(PolicyValueNet, Option<NetConfig>), TrainError> {
    if stored == wanted {
        return Ok((net, None));
    }
    let Some((small, large)) = growth(stored, wanted) else {
        let mismatch = CheckpointError::ArchitectureMismatch {
            path: path.to_path_buf(),
            expected: wanted.to_json(),
            found: stored.to_json(),
        };
        return Err(ModelError::from(mismatch).into());
    };
    tch::manual_seed(seed as i64);
    let mut net = net;
    if large.accumulator > small.accumulator {
        net = model::widen_accumulator(&net, large.accumulator)?;
    }
    if large.buckets > small.buckets {
        net = model::split_value_stacks(&net, large.buckets)?;
    }
    Ok((net, Some(stored.clone())))
}

/// `(stored, wanted)` when `wanted` is `stored` grown: an accumulator at least as wide, and the
/// same value stacks or several from one, the rest alike.
fn growth<'a>(
    stored: &'a NetConfig,
    wanted: &'a NetConfig,
) -> Option<(&'a SparseConfig, &'a SparseConfig)> {
    match (stored, wanted) {
        (NetConfig::Sparse(s), NetConfig::Sparse(w))
            if s.accumulator <= w.accumulator
                && (s.buckets == w.buckets || s.buckets == 1)
                && (s.hidden, s.layers) == (w.hidden, w.layers) =>
        {
            Some((s, w))
        }
        _ => None,
    }
}
