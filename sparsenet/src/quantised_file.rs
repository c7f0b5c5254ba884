//! The quantised net as a file for other engines (`checkers-zero export --format quantised`):
//! every integer of [`QuantisedNet`] little-endian, in the order below, closed by a CRC32. The
//! layout, the scales and the features are documented in docs/export.md; the tests read it back
//! with an independent reader.
//!
//! ```text
//! magic            8 bytes  "CZQNET01"
//! features         u32      203
//! accumulator      u32      A
//! acc_shift        u32      the accumulator's scale is Q = 2^acc_shift
//! layers           u32      hidden layers L, then the WDL layer: L + 1 dense layers follow
//! columns          i16      [features][A]   feature f's column at f·A
//! bias             i16      [A]
//! each dense layer:
//!   inputs, outputs, shift  u32 each
//!   weights        i16      [outputs][inputs], row-major, in units of 2^-shift
//!   bias           i32      [outputs], in units of 2^-(acc_shift + shift)
//! crc32            u32      of every byte before it (CRC-32/ISO-HDLC, as zlib's)
//! ```

use crate::features::FEATURES;
use crate::quantised::{IntDense, QuantisedNet};

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"CZQNET01";

/// The file's bytes for `net`.
pub fn to_bytes(net: &QuantisedNet) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    let u32s = |out: &mut Vec<u8>, values: &[usize]| {
        for &v in values {
            out.extend_from_slice(&u32::try_from(v).expect("sizes fit in u32").to_le_bytes());
        }
    };
    u32s(&mut out, &[FEATURES, net.accumulator(), net.acc_shift as usize, net.hidden.len()]);
    out.extend(net.columns.iter().flat_map(|x| x.to_le_bytes()));
    out.extend(net.bias().iter().flat_map(|x| x.to_le_bytes()));
    for layer in net.hidden.iter().chain(std::iter::once(&net.wdl)) {
        write_layer(&mut out, layer, &u32s);
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

fn write_layer(out: &mut Vec<u8>, layer: &IntDense, u32s: &impl Fn(&mut Vec<u8>, &[usize])) {
    u32s(out, &[layer.inputs, layer.outputs, layer.shift as usize]);
    for o in 0..layer.outputs {
        out.extend((0..layer.inputs).flat_map(|i| layer.weight(o, i).to_le_bytes()));
    }
    out.extend(layer.bias.iter().flat_map(|b| b.to_le_bytes()));
}
