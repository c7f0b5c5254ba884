//! Export for other engines: TorchScript, ONNX or plain safetensors weights, or (for the sparse
//! family) the integer net an alpha-beta engine runs, each with a JSON description beside it
//! (`<out>.json`).

mod describe;
mod onnx;
mod protobuf;
mod torchscript;

use crate::checkpoint::{self, Extras};
use crate::error::ModelError;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use support::write_atomic;
use tch::Device;

/// The ResNet in words, for the description (and for a safetensors user rebuilding it).
pub(crate) const RESNET_TEXT: &str = "stem: conv3x3(stem.conv) + batchnorm(stem.bn) + relu; \
tower: for i in 0..blocks: y = relu(bn1(conv1(x))); x = relu(x + bn2(conv2(y))) (tower.{i}.conv1, tower.{i}.bn1, ...); \
policy: conv1x1(policy.conv) + bn(policy.bn) + relu, flatten, linear(policy.fc) -> 128; \
value: conv1x1(value.conv) + bn(value.bn) + relu, flatten, linear(value.fc) + relu -> hidden; \
linear(value.wdl) -> 3; linear(value.moves_left) -> 1; \
output = concat(policy, wdl, moves_left). Convolutions have no bias, padding k/2; batch norm eps 1e-5 \
with running statistics; linear weights are [out, in] (y = x W^T + b)";

/// The sparse net in words, for the description.
pub(crate) const SPARSE_TEXT: &str = "a = crelu(accumulator(x)) where x is the 0/1 feature row (an \
engine adds accumulator.weight's columns of the active features to accumulator.bias); \
policy = policy(a) -> 128 (an engine needs only the legal steps' rows); \
h = a; for i in 0..layers: h = crelu(hidden.{i}(h)); wdl = wdl(h) -> 3; moves_left = moves_left(h) -> 1; \
output = concat(policy, wdl, moves_left). crelu(x) = min(max(x, 0), 1); linear weights are [out, in] \
(y = x W^T + b). With architecture.buckets = K above 1, hidden.{i}, wdl and moves_left hold K stacks \
along their outputs ([K*H, in], [K*3, V], [K, V]; stack k's rows from k*outputs), and a position runs \
stack k = floor(min(n, 24) * K / 25) for n pieces on the board (the sum of features 0..128), its \
layer 0 reading a, each later layer stack k's previous one";

/// An export format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// A TorchScript module (`.pt`) of the traced forward pass, for libtorch and PyTorch.
    TorchScript,
    /// An ONNX model (`.onnx`) for ONNX runtimes.
    Onnx,
    /// The plain weights (`.safetensors`) with the JSON description, for any framework.
    Safetensors,
    /// The sparse net's value path in integers (`sparsenet::quantised_file`), for alpha-beta
    /// engines that keep its accumulator move by move.
    Quantised,
}

impl FromStr for ExportFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<ExportFormat, String> {
        match s {
            "torchscript" => Ok(ExportFormat::TorchScript),
            "onnx" => Ok(ExportFormat::Onnx),
            "safetensors" => Ok(ExportFormat::Safetensors),
            "quantised" => Ok(ExportFormat::Quantised),
            _ => Err(format!(
                "unknown export format `{}`: expected torchscript, onnx, safetensors or quantised",
                support::shown(s)
            )),
        }
    }
}

impl fmt::Display for ExportFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ExportFormat::TorchScript => "torchscript",
            ExportFormat::Onnx => "onnx",
            ExportFormat::Safetensors => "safetensors",
            ExportFormat::Quantised => "quantised",
        })
    }
}

/// Where the description of an export to `out` goes: `out` with `.json` appended.
pub fn description_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".json");
    PathBuf::from(name)
}

/// Exports the checkpoint at `checkpoint` as `format` to `out` (on the CPU, in f32), and writes the
/// description beside it. Returns the description's path. The safetensors export holds the net's
/// weights and metadata only (no trainer extras).
pub fn export(checkpoint: &Path, format: ExportFormat, out: &Path) -> Result<PathBuf, ModelError> {
    let mut ckpt = checkpoint::load(checkpoint, None, Device::Cpu)?;
    // A net that answers NaN is refused, not handed to another engine.
    let mut variables: Vec<_> = ckpt.net.var_store().variables().into_iter().collect();
    variables.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some((variable, _)) =
        variables.into_iter().find(|(_, v)| v.isfinite().all().int64_value(&[]) == 0)
    {
        return Err(ModelError::NotFinite { path: checkpoint.to_path_buf(), variable });
    }
    ckpt.net.var_store_mut().freeze();
    match format {
        ExportFormat::TorchScript => torchscript::write(&ckpt.net, out)?,
        ExportFormat::Onnx => write_atomic(out, &onnx::model_bytes(&ckpt.net))?,
        ExportFormat::Safetensors => {
            checkpoint::save(
                out,
                &ckpt.net,
                ckpt.meta.step,
                ckpt.meta.parent.as_deref(),
                &Extras::default(),
            )?;
        }
        ExportFormat::Quantised => {
            if ckpt.meta.config.family() != netfile::Family::Sparse {
                return Err(ModelError::Unsupported {
                    path: checkpoint.to_path_buf(),
                    what: "the quantised export is of the sparse family only".into(),
                });
            }
            let weights = sparsenet::SparseWeights::from_file(&netfile::CheckpointFile::read(
                checkpoint, None,
            )?)
            .map_err(|e| ModelError::Unsupported {
                path: checkpoint.to_path_buf(),
                what: e.to_string(),
            })?;
            let net = sparsenet::QuantisedNet::new(&weights);
            write_atomic(out, &sparsenet::quantised_file::to_bytes(&net))?;
        }
    }
    let file = out.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let text = serde_json::to_string_pretty(&describe::description(&ckpt.meta, format, &file))
        .expect("a JSON value serializes");
    let json = description_path(out);
    write_atomic(&json, text.as_bytes())?;
    Ok(json)
}
