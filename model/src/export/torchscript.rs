//! TorchScript export by tracing: one method `forward(input) -> [B, OUTPUT_SIZE]`, the input the
//! family's (`[B, PLANES, 8, 8]` or `[B, FEATURES]`).

use crate::encoding::Input;
use crate::error::ModelError;
use crate::net::PolicyValueNet;
use std::path::Path;
use support::replace_atomic;
use tch::nn::ModuleT;
use tch::{CModule, Kind, Tensor};

/// Traces `net` (frozen, eval mode, on its device) and writes the module to `out`. The trace has no
/// batch-size constant, so the module runs any batch size.
pub(crate) fn write(net: &PolicyValueNet, out: &Path) -> Result<(), ModelError> {
    let mut shape = vec![2];
    shape.extend(Input::of(net.config()).dims());
    let example = Tensor::zeros(shape.as_slice(), (Kind::Float, net.device()));
    let module = CModule::create_by_tracing("CheckersZeroNet", "forward", &[example], &mut |xs| {
        vec![net.forward_t(&xs[0], false)]
    })?;
    replace_atomic(out, |tmp| module.save(tmp).map_err(ModelError::from))
}
