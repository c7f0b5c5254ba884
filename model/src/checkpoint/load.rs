//! Reading checkpoints: every check happens before a tensor is allocated, and every failure is a
//! [`ModelError`] naming the file and what is wrong.

use super::save::CRC_KEY;
use super::tensors::{checksum, kind_of};
use super::{
    Checkpoint, CheckpointMeta, Extras, EXTRA_META_PREFIX, EXTRA_TENSOR_PREFIX, FORMAT,
    FORMAT_VERSION, MAX_HEADER_BYTES,
};
use crate::config::NetConfig;
use crate::encoding::ENCODING_VERSION;
use crate::error::ModelError;
use crate::net::PolicyValueNet;
use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensorError, SafeTensors};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use tch::{Device, Kind, Tensor};

/// Loads a checkpoint onto `device`. With `expected`, a checkpoint of another architecture is
/// refused ([`ModelError::ArchitectureMismatch`]).
pub fn load(
    path: &Path,
    expected: Option<&NetConfig>,
    device: Device,
) -> Result<Checkpoint, ModelError> {
    let bytes = read_file(path)?;
    let file = SafeTensors::deserialize(&bytes).map_err(|e| parse_error(path, e))?;
    let (_, header) = SafeTensors::read_metadata(&bytes).map_err(|e| parse_error(path, e))?;
    let Some(meta) = header.metadata().clone() else {
        return Err(not_ours(path, "the header has no __metadata__"));
    };
    let meta: BTreeMap<String, String> = meta.into_iter().collect();
    let ckpt_meta = read_meta(path, &meta)?;
    let mut tensors = file.tensors();
    tensors.sort_by(|a, b| a.0.cmp(&b.0));
    let crc =
        checksum(&meta, tensors.iter().map(|(n, v)| (n.as_str(), v.dtype(), v.shape(), v.data())));
    let stored = meta.get(CRC_KEY).ok_or_else(|| damaged(path, "no crc32 entry"))?;
    if *stored != format!("{crc:08x}") {
        return Err(damaged(
            path,
            &format!("checksum mismatch: stored {stored}, contents give {crc:08x}"),
        ));
    }
    if let Some(expected) = expected {
        if *expected != ckpt_meta.config {
            return Err(ModelError::ArchitectureMismatch {
                path: path.to_path_buf(),
                expected: expected.to_json(),
                found: ckpt_meta.config.to_json(),
            });
        }
    }
    let views: HashMap<String, TensorView> = tensors.into_iter().collect();
    let net = PolicyValueNet::new(&ckpt_meta.config, device)?;
    fill_variables(path, &net, &views)?;
    let extras = Extras {
        meta: meta
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(EXTRA_META_PREFIX)?.to_string(), v.clone())))
            .collect(),
        tensors: read_extra_tensors(path, &views)?,
    };
    Ok(Checkpoint { meta: ckpt_meta, net, extras })
}

/// The whole file, after checking that its header length is sane and fits in the file.
fn read_file(path: &Path) -> Result<Vec<u8>, ModelError> {
    let io = |e| ModelError::io(path, e);
    let mut f = File::open(path).map_err(io)?;
    let size = f.metadata().map_err(io)?.len();
    if size < 8 {
        return Err(not_ours(path, &format!("only {size} bytes")));
    }
    let mut len = [0u8; 8];
    f.read_exact(&mut len).map_err(io)?;
    let header_len = u64::from_le_bytes(len);
    if header_len > MAX_HEADER_BYTES {
        return Err(not_ours(
            path,
            &format!("header length {header_len} is over the {MAX_HEADER_BYTES} limit"),
        ));
    }
    if 8 + header_len > size {
        return Err(not_ours(
            path,
            &format!(
                "header length {header_len} runs past the end of the {size}-byte file (truncated?)"
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(8 + header_len as usize);
    bytes.extend_from_slice(&len);
    f.by_ref().take(header_len).read_to_end(&mut bytes).map_err(io)?;
    let expected = declared_size(&bytes[8..])
        .ok_or_else(|| not_ours(path, "the header is not a safetensors header"))?;
    if expected != Some(size) {
        let declared = expected
            .map_or("more bytes than a file can have".to_string(), |n| format!("{n} bytes"));
        return Err(damaged(path, &format!("the file has {size} bytes, its header describes {declared} (truncated or extended?)")));
    }
    bytes
        .try_reserve_exact((size - 8 - header_len) as usize)
        .map_err(|e| io(std::io::Error::other(e)))?;
    f.take(size - 8 - header_len).read_to_end(&mut bytes).map_err(io)?;
    Ok(bytes)
}

/// The file size a safetensors header describes (8 + header + the end of the last tensor's
/// data), so that a file is checked against it before its data is read: `None` when the header
/// is not JSON of the right shape, `Some(None)` when the size overflows.
fn declared_size(header: &[u8]) -> Option<Option<u64>> {
    let entries: HashMap<String, serde_json::Value> = serde_json::from_slice(header).ok()?;
    let mut end = 0u64;
    for (name, entry) in &entries {
        if name != "__metadata__" {
            end = end.max(entry.get("data_offsets")?.get(1)?.as_u64()?);
        }
    }
    Some(end.checked_add(8 + header.len() as u64))
}

fn parse_error(path: &Path, e: SafeTensorError) -> ModelError {
    match e {
        SafeTensorError::MetadataIncompleteBuffer => {
            damaged(path, "the tensor data does not end where the file ends (truncated?)")
        }
        SafeTensorError::InvalidOffset(name) => {
            damaged(path, &format!("tensor `{name}` has invalid data offsets"))
        }
        SafeTensorError::TensorInvalidInfo
        | SafeTensorError::ValidationOverflow
        | SafeTensorError::InvalidTensorView(..) => {
            damaged(path, "a tensor's shape and dtype do not match its data size")
        }
        e => not_ours(path, &format!("not a safetensors file ({e:?})")),
    }
}

fn not_ours(path: &Path, reason: &str) -> ModelError {
    ModelError::NotACheckpoint { path: path.to_path_buf(), reason: reason.to_string() }
}

fn damaged(path: &Path, reason: &str) -> ModelError {
    ModelError::Damaged { path: path.to_path_buf(), reason: reason.to_string() }
}

/// Our metadata from the header's entries, with the format and encoding versions checked.
fn read_meta(path: &Path, meta: &BTreeMap<String, String>) -> Result<CheckpointMeta, ModelError> {
    if meta.get("format").map(String::as_str) != Some(FORMAT) {
        return Err(not_ours(path, "a safetensors file without checkers-zero metadata"));
    }
    let get = |key: &str| {
        meta.get(key).ok_or_else(|| damaged(path, &format!("metadata entry `{key}` is missing")))
    };
    let number = |key: &str| {
        get(key)?
            .parse::<u64>()
            .map_err(|_| damaged(path, &format!("metadata entry `{key}` is not a number")))
    };
    let version = |key: &str, what: &'static str, supported: u32| -> Result<u32, ModelError> {
        let found = get(key)?;
        match found.parse::<u32>() {
            Ok(v) if v == supported => Ok(v),
            _ => Err(ModelError::UnsupportedVersion {
                path: path.to_path_buf(),
                what,
                found: found.clone(),
                supported,
            }),
        }
    };
    let format_version = version("format_version", "checkpoint format", FORMAT_VERSION)?;
    let encoding_version = version("encoding_version", "input encoding", ENCODING_VERSION)?;
    let config: NetConfig = serde_json::from_str(get("architecture")?)
        .map_err(|e| damaged(path, &format!("metadata entry `architecture`: {e}")))?;
    config.validate().map_err(|e| damaged(path, &format!("metadata entry `architecture`: {e}")))?;
    Ok(CheckpointMeta {
        config,
        format_version,
        encoding_version,
        step: number("step")?,
        parent: meta.get("parent").cloned(),
        created_unix: number("created_unix")?,
        crate_version: get("crate_version")?.clone(),
    })
}

/// Copies each of the net's variables from the file, after checking name, dtype and shape; a file
/// tensor that is neither a variable nor an extra is an error too.
fn fill_variables(
    path: &Path,
    net: &PolicyValueNet,
    views: &HashMap<String, TensorView>,
) -> Result<(), ModelError> {
    let bad = |name: &str, problem: String| ModelError::Tensor {
        path: path.to_path_buf(),
        name: name.to_string(),
        problem,
    };
    let mut vars = net.var_store().variables();
    let mut names: Vec<&String> =
        views.keys().filter(|n| !n.starts_with(EXTRA_TENSOR_PREFIX)).collect();
    names.sort();
    for name in names {
        let var = vars
            .get_mut(name)
            .ok_or_else(|| bad(name, "is not a variable of this architecture".into()))?;
        let view = &views[name];
        let shape: Vec<i64> = view.shape().iter().map(|&d| d as i64).collect();
        if view.dtype() != Dtype::F32 {
            return Err(bad(name, format!("dtype {:?}, expected F32", view.dtype())));
        }
        if shape != var.size() {
            return Err(bad(name, format!("shape {shape:?}, expected {:?}", var.size())));
        }
        let src = Tensor::f_from_data_size(view.data(), &shape, Kind::Float)?;
        tch::no_grad(|| var.f_copy_(&src))?;
    }
    if let Some(missing) = vars.keys().find(|n| !views.contains_key(*n)) {
        return Err(bad(missing, "is missing".into()));
    }
    Ok(())
}

fn read_extra_tensors(
    path: &Path,
    views: &HashMap<String, TensorView>,
) -> Result<BTreeMap<String, Tensor>, ModelError> {
    let mut out = BTreeMap::new();
    for (name, view) in views {
        let Some(short) = name.strip_prefix(EXTRA_TENSOR_PREFIX) else {
            continue;
        };
        let kind = kind_of(view.dtype()).ok_or_else(|| ModelError::Tensor {
            path: PathBuf::from(path),
            name: name.clone(),
            problem: format!("dtype {:?} is not stored by checkpoints", view.dtype()),
        })?;
        let shape: Vec<i64> = view.shape().iter().map(|&d| d as i64).collect();
        out.insert(short.to_string(), Tensor::f_from_data_size(view.data(), &shape, kind)?);
    }
    Ok(out)
}
