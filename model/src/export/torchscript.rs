//! TorchScript export by tracing: one method `forward(input [B, PLANES, 8, 8]) -> [B, OUTPUT_SIZE]`.

use crate::encoding::PLANES;
use crate::error::ModelError;
use crate::net::PolicyValueNet;
use rundata::replace_atomic;
use std::path::Path;
use tch::nn::ModuleT;
use tch::{CModule, Kind, Tensor};

/// Traces `net` (frozen, eval mode, on its device) and writes the module to `out`. The trace has no
/// batch-size constant, so the module runs any batch size.
pub(crate) fn write(net: &PolicyValueNet, out: &Path) -> Result<(), ModelError> {
    let example = Tensor::zeros([2, PLANES as i64, 8, 8], (Kind::Float, net.device()));
    let module = CModule::create_by_tracing("CheckersZeroNet", "forward", &[example], &mut |xs| {
        vec![net.forward_t(&xs[0], false)]
    })?;
    replace_atomic(out, |tmp| module.save(tmp).map_err(ModelError::from))
}
