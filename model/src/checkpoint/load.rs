//! Reading checkpoints into tch nets: `netfile` checks the file (size, header, versions,
//! checksum, architecture) before a tensor is allocated; every failure names the file and what is
//! wrong.

use super::tensors::kind_of;
use super::{Checkpoint, Extras};
use crate::error::ModelError;
use crate::net::PolicyValueNet;
use netfile::{CheckpointError, CheckpointFile, NetConfig, EXTRA_TENSOR_PREFIX};
use safetensors::tensor::TensorView;
use safetensors::Dtype;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use tch::{Device, Kind, Tensor};

/// Loads a checkpoint onto `device`. With `expected`, a checkpoint of another architecture or
/// family is refused ([`CheckpointError::ArchitectureMismatch`]).
pub fn load(
    path: &Path,
    expected: Option<&NetConfig>,
    device: Device,
) -> Result<Checkpoint, ModelError> {
    let file = CheckpointFile::read(path, expected)?;
    let views = file.tensors();
    let net = PolicyValueNet::new(&file.meta().config, device)?;
    fill_variables(path, &net, &views)?;
    let extras = Extras { meta: file.extra_meta(), tensors: read_extra_tensors(path, &views)? };
    Ok(Checkpoint { meta: file.meta().clone(), net, extras })
}

fn bad_tensor(path: &Path, name: &str, problem: String) -> ModelError {
    CheckpointError::Tensor { path: path.to_path_buf(), name: name.to_string(), problem }.into()
}

/// Copies each of the net's variables from the file, after checking name, dtype and shape; a file
/// tensor that is neither a variable nor an extra is an error too.
fn fill_variables(
    path: &Path,
    net: &PolicyValueNet,
    views: &HashMap<String, TensorView>,
) -> Result<(), ModelError> {
    let mut vars = net.var_store().variables();
    let mut names: Vec<&String> =
        views.keys().filter(|n| !n.starts_with(EXTRA_TENSOR_PREFIX)).collect();
    names.sort();
    for name in names {
        let var = vars.get_mut(name).ok_or_else(|| {
            bad_tensor(path, name, "is not a variable of this architecture".into())
        })?;
        let view = &views[name];
        let shape: Vec<i64> = view.shape().iter().map(|&d| d as i64).collect();
        if view.dtype() != Dtype::F32 {
            return Err(bad_tensor(path, name, format!("dtype {:?}, expected F32", view.dtype())));
        }
        if shape != var.size() {
            return Err(bad_tensor(
                path,
                name,
                format!("shape {shape:?}, expected {:?}", var.size()),
            ));
        }
        let src = Tensor::f_from_data_size(view.data(), &shape, Kind::Float)?;
        tch::no_grad(|| var.f_copy_(&src))?;
    }
    if let Some(missing) = vars.keys().find(|n| !views.contains_key(*n)) {
        return Err(bad_tensor(path, missing, "is missing".into()));
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
        let kind = kind_of(view.dtype()).ok_or_else(|| {
            bad_tensor(path, name, format!("dtype {:?} is not stored by checkpoints", view.dtype()))
        })?;
        let shape: Vec<i64> = view.shape().iter().map(|&d| d as i64).collect();
        out.insert(short.to_string(), Tensor::f_from_data_size(view.data(), &shape, kind)?);
    }
    Ok(out)
}
