//! Tensors as safetensors bytes and back, and the checksum that covers a checkpoint's contents.

use safetensors::tensor::View;
use safetensors::Dtype;
use std::borrow::Cow;
use std::collections::BTreeMap;
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

/// CRC32 over the metadata entries (in key order, the `crc32` entry itself left out) and then every
/// tensor in name order: name, dtype, shape, bytes. Detects a flipped bit anywhere in the file that
/// still parses.
pub(crate) fn checksum<'a>(
    meta: &BTreeMap<String, String>,
    tensors: impl IntoIterator<Item = (&'a str, Dtype, &'a [usize], &'a [u8])>,
) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for (k, v) in meta.iter().filter(|(k, _)| k.as_str() != super::save::CRC_KEY) {
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
