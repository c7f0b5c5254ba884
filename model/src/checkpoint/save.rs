//! Writing checkpoints: serialize, checksum, and replace the file atomically.

use super::tensors::RawTensor;
use super::{CheckpointMeta, Extras};
use crate::error::ModelError;
use crate::net::PolicyValueNet;
use netfile::{checksum, header_entries, CheckpointError, CRC_KEY, EXTRA_TENSOR_PREFIX};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Writes `net` (its variables as f32, on any device) with `extras` to `path`, atomically: a reader
/// sees the old file or the new one, never half of one. Returns the metadata written.
pub fn save(
    path: &Path,
    net: &PolicyValueNet,
    step: u64,
    parent: Option<&str>,
    extras: &Extras,
) -> Result<CheckpointMeta, ModelError> {
    let bad = |name: &str, problem: String| {
        ModelError::from(CheckpointError::Tensor {
            path: path.to_path_buf(),
            name: name.to_string(),
            problem,
        })
    };
    let mut tensors = BTreeMap::new();
    for (name, var) in net.var_store().variables() {
        let raw =
            RawTensor::from_tensor(&var.to_kind(tch::Kind::Float)).map_err(|p| bad(&name, p))?;
        tensors.insert(name, raw);
    }
    for (name, t) in &extras.tensors {
        let name = format!("{EXTRA_TENSOR_PREFIX}{name}");
        let raw = RawTensor::from_tensor(t).map_err(|p| bad(&name, p))?;
        tensors.insert(name, raw);
    }
    let meta = CheckpointMeta {
        config: net.config().clone(),
        format_version: netfile::FORMAT_VERSION,
        encoding_version: net.config().encoding_version(),
        step,
        parent: parent.map(str::to_string),
        created_unix: support::unix_seconds(),
        crate_version: env!("CARGO_PKG_VERSION").to_string(),
    };
    let mut header = header_entries(&meta, &extras.meta);
    let crc = checksum(
        &header,
        tensors.iter().map(|(n, t)| (n.as_str(), t.dtype, t.shape.as_slice(), t.data.as_slice())),
    );
    header.insert(CRC_KEY.to_string(), format!("{crc:08x}"));
    let header: HashMap<String, String> = header.into_iter().collect();
    let bytes = safetensors::serialize(tensors.iter().map(|(n, t)| (n.as_str(), t)), &Some(header))
        .map_err(|source| ModelError::Save { path: path.to_path_buf(), source })?;
    support::write_atomic(path, &bytes)?;
    Ok(meta)
}
