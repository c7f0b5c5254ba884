//! A shard's payload past its checksum (the input is the payload of a shard whose header and CRC
//! are made right): its records are read or refused by index, and every record read decodes to a
//! sample that encodes back to a record reading as the same sample.
#![no_main]

use checkers_zero_fuzz::scratch_file;
use libfuzzer_sys::fuzz_target;
use shard::{read_shard, Records, FORMAT_VERSION, MAGIC};

/// A shard file around `payload` claiming `count` samples, with a right length and CRC.
fn shard_bytes(count: u32, payload: &[u8]) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&0u16.to_le_bytes());
    bytes.extend_from_slice(&count.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&[0; 24]);
    bytes.extend_from_slice(payload);
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    bytes
}

fuzz_target!(|data: &[u8]| {
    let Some((&count, payload)) = data.split_first() else { return };
    let path = scratch_file("records.shard", &shard_bytes(u32::from(count), payload));
    let Ok(read) = read_shard(&path) else { return };
    let samples: Vec<_> = read.records.iter().map(|record| record.to_sample()).collect();
    let encoded = Records::encode_all(&samples)
        .unwrap_or_else(|(i, e)| panic!("sample {i} read from a shard does not encode: {e}"));
    let again = Records::parse(encoded, samples.len())
        .unwrap_or_else(|(i, e)| panic!("re-encoded sample {i} does not read: {e}"));
    let back: Vec<_> = again.iter().map(|record| record.to_sample()).collect();
    assert_eq!(back, samples);
});
