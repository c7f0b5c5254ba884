//! Tensors as safetensors bytes and back.

use safetensors::tensor::View;
use safetensors::Dtype;
use std::borrow::Cow;
use tch::{Device, Kind, Tensor};

/// A tensor's bytes on the host, ready to serialize.
pub(crate) struct RawTensor {
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    pub data: Vec<u8>,
}

const KINDS: [(Kind, Dtype); 9] = [
    (Kind::Float, Dtype::F32),
    (Kind::Double, Dtype::F64),
    (Kind::BFloat16, Dtype::BF16),
    (Kind::Half, Dtype::F16),
    (Kind::Int64, Dtype::I64),
    (Kind::Int, Dtype::I32),
    (Kind::Int8, Dtype::I8),
    (Kind::Uint8, Dtype::U8),
    (Kind::Bool, Dtype::BOOL),
];

/// The tch kind stored as `dtype`, if we store that dtype.
pub(crate) fn kind_of(dtype: Dtype) -> Option<Kind> {
    KINDS.iter().find(|(_, d)| *d == dtype).map(|(k, _)| *k)
}

impl RawTensor {
    /// Copies `t` to the host. Fails (naming the kind) for kinds a checkpoint does not store.
    pub fn from_tensor(t: &Tensor) -> Result<RawTensor, String> {
        let kind = t.kind();
        let dtype = KINDS
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, d)| *d)
            .ok_or_else(|| format!("kind {kind:?} is not storable"))?;
        let t = t.to_device(Device::Cpu).contiguous();
        let numel = t.numel();
        let mut data = vec![0u8; numel * kind.elt_size_in_bytes()];
        t.f_copy_data_u8(&mut data, numel).map_err(|e| e.to_string())?;
        Ok(RawTensor { dtype, shape: t.size().iter().map(|&d| d as usize).collect(), data })
    }
}

impl View for &RawTensor {
    fn dtype(&self) -> Dtype {
        self.dtype
    }

    fn shape(&self) -> &[usize] {
        &self.shape
    }

    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.data)
    }

    fn data_len(&self) -> usize {
        self.data.len()
    }
}
