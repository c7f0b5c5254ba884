//! The shard file: header, payload of [`Records`], CRC32; written atomically under a unique name.
//!
//! ```text
//! offset size  field (little-endian)
//!  0     8     magic "CKZSHARD"
//!  8     2     format version (2; version 1, without the opponent's reply, is read too)
//! 10     2     reserved, 0
//! 12     4     count: samples in the payload
//! 16     8     payload length in bytes
//! 24     8     created, milliseconds since the Unix epoch
//! 32     8     writer id (chosen by the writer, e.g. pid and worker)
//! 40     4     generation of the net that played + 1 (0: unknown)
//! 44     4     reserved, 0
//! 48     ..    payload: `count` records (see `record`)
//! end-4  4     CRC32 of every byte before it
//! ```

use crate::record::{Records, FIXED_BYTES};
use crate::sample::Sample;
use crate::ShardError;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use support::write_atomic;

/// The first 8 bytes of every shard file.
pub const MAGIC: [u8; 8] = *b"CKZSHARD";
/// The shard layout this build writes (and reads, with [`OLDEST_READ_VERSION`] and on).
pub const FORMAT_VERSION: u16 = 2;
/// The oldest layout this build reads: version 1's records are version 2's without the
/// opponent's reply.
pub const OLDEST_READ_VERSION: u16 = 1;
/// Larger files are refused before they are read (a shard of a few thousand samples is ~100 KB).
pub const MAX_SHARD_BYTES: u64 = 256 << 20;
const HEADER_BYTES: usize = 48;
const CRC_BYTES: usize = 4;

/// What a shard says about itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardHeader {
    /// Milliseconds since the Unix epoch when the shard was written.
    pub created_unix_ms: u64,
    /// Who wrote it (free for the writer: e.g. `pid << 16 | worker`).
    pub writer_id: u64,
    /// The generation of the net that played the games (the last of them, when self-play took up
    /// a newer net while they were in flight), when known.
    pub generation: Option<u32>,
}

impl ShardHeader {
    /// A header stamped now.
    pub fn now(writer_id: u64, generation: Option<u32>) -> ShardHeader {
        ShardHeader { created_unix_ms: support::unix_millis(), writer_id, generation }
    }
}

/// A shard read from disk and checked.
#[derive(Clone, Debug)]
pub struct Shard {
    /// The file it was read from.
    pub path: PathBuf,
    /// What the shard says about itself.
    pub header: ShardHeader,
    /// Its samples, checked and ready to decode.
    pub records: Records,
}

/// A shard encoded and named, not yet on disk: a writer can put files that belong to it (its
/// games' PDN) in place under its name first, so that the shard, written last, commits them.
#[derive(Debug)]
pub struct EncodedShard {
    name: String,
    bytes: Vec<u8>,
}

impl EncodedShard {
    /// Encodes `samples` under `header` and picks the shard's name: unique across threads and
    /// processes, sorting by creation time.
    pub fn new(header: &ShardHeader, samples: &[Sample]) -> Result<EncodedShard, ShardError> {
        let max = u32::MAX as usize;
        if samples.len() > max {
            return Err(ShardError::TooManySamples { count: samples.len(), max });
        }
        let payload = Records::encode_all(samples)
            .map_err(|(index, source)| ShardError::BadSample { index, source })?;
        let mut bytes = Vec::with_capacity(HEADER_BYTES + payload.len() + CRC_BYTES);
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&0u16.to_le_bytes());
        bytes.extend_from_slice(&(samples.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&header.created_unix_ms.to_le_bytes());
        bytes.extend_from_slice(&header.writer_id.to_le_bytes());
        bytes
            .extend_from_slice(&header.generation.map_or(0, |g| g.saturating_add(1)).to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        bytes.extend_from_slice(&payload);
        let crc = crc32fast::hash(&bytes);
        bytes.extend_from_slice(&crc.to_le_bytes());
        if bytes.len() as u64 > MAX_SHARD_BYTES {
            return Err(ShardError::TooManySamples {
                count: samples.len(),
                max: samples.len() * MAX_SHARD_BYTES as usize / bytes.len(),
            });
        }
        let name = support::unique_name(header.created_unix_ms, crate::SHARD_EXTENSION);
        Ok(EncodedShard { name, bytes })
    }

    /// The file name without its extension (`<unix-millis>-<pid>-<random>`).
    pub fn stem(&self) -> &str {
        &self.name[..self.name.len() - crate::SHARD_EXTENSION.len() - 1]
    }

    /// Writes the shard into `dir` and returns its path; the file appears complete or not at all.
    pub fn write(self, dir: &Path) -> Result<PathBuf, ShardError> {
        let path = dir.join(&self.name);
        write_atomic(&path, &self.bytes)?;
        Ok(path)
    }
}

/// Writes `samples` as a new shard in `dir` and returns its path (see [`EncodedShard`]).
pub fn write_shard(
    dir: &Path,
    header: &ShardHeader,
    samples: &[Sample],
) -> Result<PathBuf, ShardError> {
    EncodedShard::new(header, samples)?.write(dir)
}

/// Reads and checks the shard at `path`. Never panics on bad input; refuses files over
/// [`MAX_SHARD_BYTES`] and absurd sample counts before allocating for them.
pub fn read_shard(path: &Path) -> Result<Shard, ShardError> {
    let io_err = |source| ShardError::Io { path: path.to_path_buf(), source };
    // Checked by name before opening: opening a FIFO blocks until something writes to it.
    support::check_regular(path).map_err(|e| match e {
        support::ReadError::Io(source) => io_err(source),
        other => io_err(std::io::Error::new(std::io::ErrorKind::InvalidInput, other.to_string())),
    })?;
    let mut file = fs::File::open(path).map_err(io_err)?;
    let len = file.metadata().map_err(io_err)?.len();
    if len > MAX_SHARD_BYTES {
        return Err(ShardError::TooLarge { path: path.into(), len, max: MAX_SHARD_BYTES });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // `take` guards against a file that grows while it is read.
    file.by_ref().take(MAX_SHARD_BYTES + 1).read_to_end(&mut bytes).map_err(io_err)?;
    parse(path, bytes)
}

fn parse(path: &Path, mut bytes: Vec<u8>) -> Result<Shard, ShardError> {
    let path_buf = || path.to_path_buf();
    let len = bytes.len() as u64;
    if bytes.len() < MAGIC.len() + 2 || bytes[..MAGIC.len()] != MAGIC {
        return Err(
            if MAGIC.starts_with(&bytes[..bytes.len().min(MAGIC.len())])
                && bytes.len() < HEADER_BYTES
            {
                ShardError::Length {
                    path: path_buf(),
                    len,
                    expected: (HEADER_BYTES + CRC_BYTES) as u64,
                }
            } else {
                ShardError::Foreign { path: path_buf() }
            },
        );
    }
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if !(OLDEST_READ_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(ShardError::UnsupportedVersion {
            path: path_buf(),
            version,
            supported: FORMAT_VERSION,
        });
    }
    if bytes.len() < HEADER_BYTES + CRC_BYTES {
        return Err(ShardError::Length {
            path: path_buf(),
            len,
            expected: (HEADER_BYTES + CRC_BYTES) as u64,
        });
    }
    let payload_len = u64_at(16);
    let expected = payload_len.saturating_add((HEADER_BYTES + CRC_BYTES) as u64);
    if expected != len {
        return Err(ShardError::Length { path: path_buf(), len, expected });
    }
    let crc_at = bytes.len() - CRC_BYTES;
    let stored = u32_at(crc_at);
    let computed = crc32fast::hash(&bytes[..crc_at]);
    if stored != computed {
        return Err(ShardError::Checksum { path: path_buf(), stored, computed });
    }
    let count = u32_at(12);
    if count as u64 * FIXED_BYTES as u64 > payload_len {
        return Err(ShardError::AbsurdCount { path: path_buf(), count, payload_len });
    }
    let generation = u32_at(40);
    let header = ShardHeader {
        created_unix_ms: u64_at(24),
        writer_id: u64_at(32),
        generation: generation.checked_sub(1),
    };
    bytes.truncate(crc_at);
    bytes.drain(..HEADER_BYTES);
    let records = Records::parse(bytes, count as usize)
        .map_err(|(index, source)| ShardError::BadRecord { path: path_buf(), index, source })?;
    Ok(Shard { path: path_buf(), header, records })
}

#[cfg(test)]
mod tests {
    use super::*;
    use draughts::{DrawRules, Game, Position};

    fn samples(n: usize) -> Vec<Sample> {
        (0..n)
            .map(|i| Sample {
                observation: Game::new(Position::start(), DrawRules::default()).observation(),
                policy: vec![(i as u8 % 128, 1.0)],
                search_value: (i % 3) as f32 - 1.0, // exact after quantisation
                result: (i % 3) as i8 - 1,
                plies_to_end: i as u16,
                full_search: i % 2 == 0,
                reply_after: (i % 4 == 1).then_some(2),
            })
            .collect()
    }

    fn write(dir: &Path) -> (PathBuf, Vec<u8>) {
        let path = write_shard(dir, &ShardHeader::now(7, Some(3)), &samples(20)).unwrap();
        let bytes = fs::read(&path).unwrap();
        (path, bytes)
    }

    #[test]
    fn a_shard_round_trips_with_its_header() {
        let dir = tempfile::tempdir().unwrap();
        let original = samples(20);
        let header = ShardHeader::now(7, Some(3));
        let path = write_shard(dir.path(), &header, &original).unwrap();
        let shard = read_shard(&path).unwrap();
        assert_eq!(shard.header, header);
        assert_eq!(shard.records.iter().map(|r| r.to_sample()).collect::<Vec<_>>(), original);
        let none = write_shard(dir.path(), &ShardHeader::now(1, None), &[]).unwrap();
        assert_eq!(read_shard(&none).unwrap().header.generation, None);
    }

    fn error_for(bytes: &[u8]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.shard");
        fs::write(&path, bytes).unwrap();
        let err = read_shard(&path).unwrap_err();
        assert_eq!(err.path(), Some(path.as_path()));
        let text = err.to_string();
        assert!(text.contains("bad.shard"), "{text}");
        text
    }

    #[test]
    fn damaged_shards_are_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let (_, bytes) = write(dir.path());
        for cut in [0, 5, 20, bytes.len() - 1] {
            let text = error_for(&bytes[..cut]);
            assert!(text.contains("truncated") || text.contains("bytes on disk"), "{cut}: {text}");
        }
        for bit in [70 * 8, (bytes.len() - 10) * 8 + 3, 13 * 8] {
            let mut flipped = bytes.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert!(error_for(&flipped).contains("damaged"));
        }
        assert!(error_for(b"PK\x03\x04 definitely a zip file, not a shard at all, no no no")
            .contains("not a trajectory shard"));
        let mut future = bytes.clone();
        future[8] = 3;
        assert!(error_for(&future).contains("version 3"));
    }

    #[test]
    fn a_version_1_shard_of_a_real_run_reads_without_replies() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/shard_file/a.shard");
        let bytes = fs::read(&path).unwrap();
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 1, "the seed is a version-1 shard");
        let shard = read_shard(&path).unwrap();
        assert!(!shard.records.is_empty());
        assert!(shard.records.iter().all(|r| r.reply_after().is_none()));
        assert!(shard.records.iter().any(|r| r.policy().len() > 1));
    }

    #[test]
    fn an_absurd_count_is_refused_before_allocating() {
        let dir = tempfile::tempdir().unwrap();
        let (_, mut bytes) = write(dir.path());
        bytes[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        let crc_at = bytes.len() - 4;
        let crc = crc32fast::hash(&bytes[..crc_at]);
        bytes[crc_at..].copy_from_slice(&crc.to_le_bytes());
        assert!(error_for(&bytes).contains("claims 4294967295 samples"));
    }
}
