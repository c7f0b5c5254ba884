//! A checkpoint on disk: safetensors with everything needed to rebuild and trust the net in the
//! header's `__metadata__`, read and checked before any tensor is used.
//!
//! Metadata keys (all strings): `format` = `checkers-zero-checkpoint`, `format_version`,
//! `encoding_version` (of the family's input encoding), `architecture` (the [`NetConfig`] as JSON,
//! its `kind` the family), `step`, `parent` (absent for a first net), `created_unix` (seconds),
//! `crate_version`, `crc32` (see [`checksum`]), and `extra.<key>` for each extra metadata entry.
//! Net variables are stored under their names (`tower.0.conv1.weight`, f32); extra tensors under
//! `extra/<name>`.

use crate::config::NetConfig;
use crate::error::CheckpointError;
use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensorError, SafeTensors};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The value of the `format` metadata key.
pub const FORMAT: &str = "checkers-zero-checkpoint";
/// Bumped when the file layout or metadata keys change incompatibly.
pub const FORMAT_VERSION: u32 = 1;
/// A header longer than this is refused before it is read (ours are a few KiB; 16 MiB leaves room
/// for thousands of extra tensors).
pub const MAX_HEADER_BYTES: u64 = 16 << 20;
/// The largest checkpoint read (the biggest nets of the shipped configs are a few tens of MB);
/// a header declaring more is refused before the tensors are read.
pub const MAX_CHECKPOINT_BYTES: u64 = 1 << 30;
/// The metadata key of the checksum.
pub const CRC_KEY: &str = "crc32";
/// Prefix of the extra metadata keys.
pub const EXTRA_META_PREFIX: &str = "extra.";
/// Prefix of the extra tensors' names.
pub const EXTRA_TENSOR_PREFIX: &str = "extra/";

/// What a checkpoint says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointMeta {
    /// The architecture of the stored net (its family and sizes).
    pub config: NetConfig,
    /// Version of the checkpoint file layout (see [`FORMAT_VERSION`]).
    pub format_version: u32,
    /// Version of the input encoding the net was trained on (see
    /// [`NetConfig::encoding_version`]).
    pub encoding_version: u32,
    /// Training steps behind these weights.
    pub step: u64,
    /// The checkpoint these weights were trained from (a file name or id), if any.
    pub parent: Option<String>,
    /// When the file was written, seconds since the Unix epoch.
    pub created_unix: u64,
    /// Version of the crate that wrote the file.
    pub crate_version: String,
}

/// A checkpoint read into memory whose size, header, versions and checksum all passed.
#[derive(Debug)]
pub struct CheckpointFile {
    path: PathBuf,
    bytes: Vec<u8>,
    entries: BTreeMap<String, String>,
    meta: CheckpointMeta,
}

impl CheckpointFile {
    /// Reads and checks the checkpoint at `path`. With `expected`, a checkpoint of another
    /// architecture (or family) is refused ([`CheckpointError::ArchitectureMismatch`]).
    pub fn read(
        path: &Path,
        expected: Option<&NetConfig>,
    ) -> Result<CheckpointFile, CheckpointError> {
        let bytes = read_file(path)?;
        let file = SafeTensors::deserialize(&bytes).map_err(|e| parse_error(path, e))?;
        let entries = header_metadata(path, &bytes)?;
        let meta = read_meta(path, &entries)?;
        let mut tensors = file.tensors();
        tensors.sort_by(|a, b| a.0.cmp(&b.0));
        let crc = checksum(
            &entries,
            tensors.iter().map(|(n, v)| (n.as_str(), v.dtype(), v.shape(), v.data())),
        );
        let stored = entries.get(CRC_KEY).ok_or_else(|| damaged(path, "no crc32 entry"))?;
        if *stored != format!("{crc:08x}") {
            return Err(damaged(
                path,
                &format!("checksum mismatch: stored {stored}, contents give {crc:08x}"),
            ));
        }
        if let Some(expected) = expected {
            if *expected != meta.config {
                return Err(CheckpointError::ArchitectureMismatch {
                    path: path.to_path_buf(),
                    expected: expected.to_json(),
                    found: meta.config.to_json(),
                });
            }
        }
        Ok(CheckpointFile { path: path.to_path_buf(), bytes, entries, meta })
    }

    /// The file it was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the file says about itself.
    pub fn meta(&self) -> &CheckpointMeta {
        &self.meta
    }

    /// Every metadata entry, as stored.
    pub fn entries(&self) -> &BTreeMap<String, String> {
        &self.entries
    }

    /// The extra metadata entries, their prefix taken off.
    pub fn extra_meta(&self) -> BTreeMap<String, String> {
        self.entries
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(EXTRA_META_PREFIX)?.to_string(), v.clone())))
            .collect()
    }

    /// Every tensor by name (net variables and extras).
    pub fn tensors(&self) -> HashMap<String, TensorView<'_>> {
        SafeTensors::deserialize(&self.bytes)
            .expect("the file was checked when it was read")
            .tensors()
            .into_iter()
            .collect()
    }

    /// The f32 values of the net variable `name`, checked to have `shape`.
    pub fn f32_tensor(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, CheckpointError> {
        let tensors = self.tensors();
        let bad = |problem: String| CheckpointError::Tensor {
            path: self.path.clone(),
            name: name.to_string(),
            problem,
        };
        let view = tensors.get(name).ok_or_else(|| bad("is missing".into()))?;
        if view.dtype() != Dtype::F32 {
            return Err(bad(format!("dtype {:?}, expected F32", view.dtype())));
        }
        if view.shape() != shape {
            return Err(bad(format!("shape {:?}, expected {shape:?}", view.shape())));
        }
        Ok(view
            .data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }
}

/// The metadata of the checkpoint at `path` from its header alone, without reading the tensors or
/// checking the checksum: what a program decides by before it loads the net (e.g. its family).
pub fn read_header(path: &Path) -> Result<CheckpointMeta, CheckpointError> {
    let (_, header) = open_header(path)?;
    let entries = header_metadata(path, &header)?;
    read_meta(path, &entries)
}

/// The metadata entries of a checkpoint with `meta` and the extra entries `extra` (their prefix
/// added), without the checksum: what [`checksum`] covers before [`CRC_KEY`] is added.
pub fn header_entries(
    meta: &CheckpointMeta,
    extra: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut header = BTreeMap::from([
        ("format".to_string(), FORMAT.to_string()),
        ("format_version".to_string(), meta.format_version.to_string()),
        ("encoding_version".to_string(), meta.encoding_version.to_string()),
        ("architecture".to_string(), meta.config.to_json()),
        ("step".to_string(), meta.step.to_string()),
        ("created_unix".to_string(), meta.created_unix.to_string()),
        ("crate_version".to_string(), meta.crate_version.clone()),
    ]);
    if let Some(parent) = &meta.parent {
        header.insert("parent".to_string(), parent.clone());
    }
    for (k, v) in extra {
        header.insert(format!("{EXTRA_META_PREFIX}{k}"), v.clone());
    }
    header
}

/// CRC32 over the metadata entries (in key order, the `crc32` entry itself left out) and then every
/// tensor in name order: name, dtype, shape, bytes. Detects a flipped bit anywhere in the file that
/// still parses.
pub fn checksum<'a>(
    meta: &BTreeMap<String, String>,
    tensors: impl IntoIterator<Item = (&'a str, Dtype, &'a [usize], &'a [u8])>,
) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for (k, v) in meta.iter().filter(|(k, _)| k.as_str() != CRC_KEY) {
        h.update(k.as_bytes());
        h.update(&[0]);
        h.update(v.as_bytes());
        h.update(&[0]);
    }
    for (name, dtype, shape, data) in tensors {
        h.update(name.as_bytes());
        h.update(&[0]);
        h.update(format!("{dtype:?}").as_bytes());
        for d in shape {
            h.update(&(*d as u64).to_le_bytes());
        }
        h.update(data);
    }
    h.finalize()
}

/// The open file, its size, and its first `8 + header` bytes, after checking that the header
/// length is sane and fits in the file.
fn open_header(path: &Path) -> Result<((File, u64), Vec<u8>), CheckpointError> {
    let io = |source| CheckpointError::Io { path: path.to_path_buf(), source };
    // Checked by name before opening: opening a FIFO blocks until something writes to it.
    match support::check_regular(path) {
        Err(support::ReadError::Io(source)) => return Err(io(source)),
        Err(other) => return Err(not_ours(path, &other.to_string())),
        Ok(_) => {}
    }
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
    Ok(((f, size), bytes))
}

/// The whole file, after checking its header and that the size it declares is the file's.
fn read_file(path: &Path) -> Result<Vec<u8>, CheckpointError> {
    let io = |source| CheckpointError::Io { path: path.to_path_buf(), source };
    let ((f, size), mut bytes) = open_header(path)?;
    let header_len = bytes.len() as u64 - 8;
    let expected = declared_size(&bytes[8..])
        .ok_or_else(|| not_ours(path, "the header is not a safetensors header"))?;
    if expected != Some(size) {
        let declared = expected
            .map_or("more bytes than a file can have".to_string(), |n| format!("{n} bytes"));
        return Err(damaged(path, &format!("the file has {size} bytes, its header describes {declared} (truncated or extended?)")));
    }
    let limit = support::read::file_limit(MAX_CHECKPOINT_BYTES);
    if size > limit {
        return Err(not_ours(
            path,
            &format!(
                "its header declares {size} bytes, more than the {limit}-byte limit of a checkpoint (raise it with {}=MIB)",
                support::read::MAX_FILE_MB_VAR
            ),
        ));
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

/// The `__metadata__` entries of a header (`bytes`, already checked by [`open_header`], starts
/// with the header's length and the header).
fn header_metadata(path: &Path, bytes: &[u8]) -> Result<BTreeMap<String, String>, CheckpointError> {
    let len = u64::from_le_bytes(bytes[..8].try_into().expect("eight bytes")) as usize;
    let header = &bytes[8..8 + len];
    let entries: HashMap<String, serde_json::Value> = serde_json::from_slice(header)
        .map_err(|_| not_ours(path, "the header is not a safetensors header"))?;
    let Some(meta) = entries.get("__metadata__") else {
        return Err(not_ours(path, "the header has no __metadata__"));
    };
    serde_json::from_value(meta.clone())
        .map_err(|_| not_ours(path, "the header's __metadata__ is not a table of strings"))
}

fn parse_error(path: &Path, e: SafeTensorError) -> CheckpointError {
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

fn not_ours(path: &Path, reason: &str) -> CheckpointError {
    CheckpointError::NotACheckpoint { path: path.to_path_buf(), reason: reason.to_string() }
}

fn damaged(path: &Path, reason: &str) -> CheckpointError {
    CheckpointError::Damaged { path: path.to_path_buf(), reason: reason.to_string() }
}

/// Our metadata from the header's entries, with the format and the family's encoding version
/// checked.
fn read_meta(
    path: &Path,
    meta: &BTreeMap<String, String>,
) -> Result<CheckpointMeta, CheckpointError> {
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
    let version = |key: &str, what: String, supported: u32| -> Result<u32, CheckpointError> {
        let found = get(key)?;
        match found.parse::<u32>() {
            Ok(v) if v == supported => Ok(v),
            _ => Err(CheckpointError::UnsupportedVersion {
                path: path.to_path_buf(),
                what,
                found: found.clone(),
                supported,
            }),
        }
    };
    let format_version = version("format_version", "checkpoint format".into(), FORMAT_VERSION)?;
    let config: NetConfig = serde_json::from_str(get("architecture")?)
        .map_err(|e| damaged(path, &format!("metadata entry `architecture`: {e}")))?;
    config.validate().map_err(|e| damaged(path, &format!("metadata entry `architecture`: {e}")))?;
    let what = format!("{} input encoding", config.family());
    let encoding_version = version("encoding_version", what, config.encoding_version())?;
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
