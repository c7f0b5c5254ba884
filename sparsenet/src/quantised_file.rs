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
//! layers           u32      hidden layers L, then the WDL layer: L + 1 dense layers a stack
//! buckets          u32      K value stacks (only in "CZQNET02": a net of one stack is "CZQNET01")
//! columns          i16      [features][A]   feature f's column at f·A
//! bias             i16      [A]
//! each dense layer, stack by stack (bucket 0's L + 1 layers first):
//!   inputs, outputs, shift  u32 each
//!   weights        i16      [outputs][inputs], row-major, in units of 2^-shift
//!   bias           i32      [outputs], in units of 2^-(acc_shift + shift)
//! crc32            u32      of every byte before it (CRC-32/ISO-HDLC, as zlib's)
//! ```

use crate::features::FEATURES;
use crate::quantised::{IntDense, QuantisedNet};

/// The first eight bytes of the file of a net with one value stack.
pub const MAGIC: &[u8; 8] = b"CZQNET01";

/// The first eight bytes of the file of a net with a value stack per bucket of material.
pub const MAGIC_BUCKETS: &[u8; 8] = b"CZQNET02";

/// The file's bytes for `net`.
pub fn to_bytes(net: &QuantisedNet) -> Vec<u8> {
    let mut out = Vec::new();
    let buckets = net.stacks.len();
    out.extend_from_slice(if buckets == 1 { MAGIC } else { MAGIC_BUCKETS });
    let u32s = |out: &mut Vec<u8>, values: &[usize]| {
        for &v in values {
            out.extend_from_slice(&u32::try_from(v).expect("sizes fit in u32").to_le_bytes());
        }
    };
    let layers = net.stacks[0].hidden.len();
    u32s(&mut out, &[FEATURES, net.accumulator(), net.acc_shift as usize, layers]);
    if buckets > 1 {
        u32s(&mut out, &[buckets]);
    }
    out.extend(net.columns.iter().flat_map(|x| x.to_le_bytes()));
    out.extend(net.bias().iter().flat_map(|x| x.to_le_bytes()));
    for stack in &net.stacks {
        for layer in stack.hidden.iter().chain(std::iter::once(&stack.wdl)) {
            write_layer(&mut out, layer, &u32s);
        }
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
