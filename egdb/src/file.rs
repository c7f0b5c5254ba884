//! Table files: a 64-byte header (magic, format version, what the table holds, checksums) and the
//! data, written atomically and read back by memory map after every check.
//!
//! Header, little-endian:
//!
//! | bytes  | field                                                       |
//! |--------|-------------------------------------------------------------|
//! | 0..8   | magic `CZEGDB\r\n`                                          |
//! | 8..12  | format version ([`VERSION`])                                |
//! | 12..16 | kind: 1 win/draw/loss, 2 distances                          |
//! | 16..20 | material: men, kings of the side to move, then of the other |
//! | 20..24 | bits per position: 2 (WDL), 8 or 16 (distances)             |
//! | 24..32 | positions                                                   |
//! | 32..40 | data bytes (the file is exactly 64 + this long)             |
//! | 40..44 | CRC-32 of the data                                          |
//! | 44..60 | zero                                                        |
//! | 60..64 | CRC-32 of bytes 0..60                                       |

use crate::error::EgdbError;
use crate::material::Material;
use memmap2::Mmap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The first bytes of every table file.
pub(crate) const MAGIC: [u8; 8] = *b"CZEGDB\r\n";
/// The format version this program writes and reads. Bump it whenever the index, the encoding or
/// the header changes.
pub const VERSION: u32 = 1;
/// Bytes before the data.
pub(crate) const HEADER_LEN: usize = 64;

/// What a table file holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// Win/draw/loss, 2 bits per position (4 to a byte, the first in the low bits).
    Wdl,
    /// Plies to the end of the game, one or two bytes per position (0 for draws).
    Distance,
}

impl Kind {
    const fn code(self) -> u32 {
        match self {
            Kind::Wdl => 1,
            Kind::Distance => 2,
        }
    }

    /// The file name extension.
    pub const fn extension(self) -> &'static str {
        match self {
            Kind::Wdl => "wdl",
            Kind::Distance => "dist",
        }
    }
}

/// The path of `m`'s table of `kind` in `dir`, e.g. `dir/2m1k-1m0k.wdl`.
pub(crate) fn table_path(dir: &Path, m: Material, kind: Kind) -> PathBuf {
    dir.join(format!("{}.{}", m.name(), kind.extension()))
}

/// What a header says.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Header {
    kind: u32,
    material: [u8; 4],
    bits: u32,
    positions: u64,
    data_len: u64,
    data_crc: u32,
}

impl Header {
    fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12..16].copy_from_slice(&self.kind.to_le_bytes());
        h[16..20].copy_from_slice(&self.material);
        h[20..24].copy_from_slice(&self.bits.to_le_bytes());
        h[24..32].copy_from_slice(&self.positions.to_le_bytes());
        h[32..40].copy_from_slice(&self.data_len.to_le_bytes());
        h[40..44].copy_from_slice(&self.data_crc.to_le_bytes());
        let crc = crc32fast::hash(&h[0..60]);
        h[60..64].copy_from_slice(&crc.to_le_bytes());
        h
    }

    /// The header in `h`, whose magic and version were checked.
    fn decode(h: &[u8; HEADER_LEN]) -> Header {
        let u32_at = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().expect("8 bytes"));
        Header {
            kind: u32_at(12),
            material: h[16..20].try_into().expect("4 bytes"),
            bits: u32_at(20),
            positions: u64_at(24),
            data_len: u64_at(32),
            data_crc: u32_at(40),
        }
    }

    fn describe(&self) -> String {
        let [bm, bk, wm, wk] = self.material;
        format!(
            "kind {} of {} with {} positions at {} bits",
            self.kind,
            Material::new(bm, bk, wm, wk),
            self.positions,
            self.bits
        )
    }
}

/// Bytes of data for `positions` entries of `bits` bits.
pub(crate) fn data_len(positions: u64, bits: u32) -> u64 {
    (positions * u64::from(bits)).div_ceil(8)
}

/// Writes a table file atomically ([`support::replace_atomic`]), so a crash leaves either the
/// whole new table or none. Returns the bytes written.
pub(crate) fn write_table(
    path: &Path,
    kind: Kind,
    m: Material,
    bits: u32,
    positions: u64,
    data: &[u8],
) -> Result<u64, EgdbError> {
    assert_eq!(data.len() as u64, data_len(positions, bits), "data length of {}", path.display());
    let header = Header {
        kind: kind.code(),
        material: [m.bm, m.bk, m.wm, m.wk],
        bits,
        positions,
        data_len: data.len() as u64,
        data_crc: crc32fast::hash(data),
    };
    support::replace_atomic(path, |tmp| {
        let write = |file: &mut File| -> std::io::Result<()> {
            file.write_all(&header.encode())?;
            file.write_all(data)
        };
        let mut file = File::create(tmp).map_err(|e| EgdbError::io(tmp, "create", e))?;
        write(&mut file).map_err(|e| EgdbError::io(tmp, "write", e))
    })?;
    Ok((HEADER_LEN + data.len()) as u64)
}

/// A checked table file, mapped into memory.
#[derive(Debug)]
pub(crate) struct Mapped {
    map: Mmap,
    bits: u32,
}

impl Mapped {
    /// The data after the header.
    #[inline]
    pub fn data(&self) -> &[u8] {
        &self.map[HEADER_LEN..]
    }

    /// Bits per position.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Bytes of the whole file.
    pub fn file_len(&self) -> u64 {
        self.map.len() as u64
    }
}

/// Opens `m`'s table of `kind` at `path` and checks everything: magic, version, header checksum,
/// that the header describes this table with `positions` entries (of `bits`, or 8 or 16 bits for
/// distances), the length, and the data checksum. `Ok(None)` when there is no such file.
pub(crate) fn open_table(
    path: &Path,
    kind: Kind,
    m: Material,
    positions: u64,
) -> Result<Option<Mapped>, EgdbError> {
    // A FIFO would block the open until a writer comes: only regular files are opened.
    match support::check_regular(path) {
        Ok(_) => {}
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(EgdbError::io(path, "open", std::io::Error::other(e))),
    }
    let mut file = File::open(path).map_err(|e| EgdbError::io(path, "open", e))?;
    let len = file.metadata().map_err(|e| EgdbError::io(path, "read the size of", e))?.len();
    let mut head = [0u8; HEADER_LEN];
    let got = read_up_to(&mut file, &mut head).map_err(|e| EgdbError::io(path, "read", e))?;
    if got < MAGIC.len() || head[..MAGIC.len()] != MAGIC {
        return Err(EgdbError::Foreign { path: path.to_owned() });
    }
    if got < 12 {
        return Err(EgdbError::Length { path: path.to_owned(), expected: 64, found: len });
    }
    let version = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
    if version != VERSION {
        return Err(EgdbError::Version {
            path: path.to_owned(),
            found: version,
            expected: VERSION,
        });
    }
    if got < HEADER_LEN {
        return Err(EgdbError::Length {
            path: path.to_owned(),
            expected: HEADER_LEN as u64,
            found: len,
        });
    }
    let stored_crc = u32::from_le_bytes(head[60..64].try_into().expect("4 bytes"));
    if crc32fast::hash(&head[0..60]) != stored_crc {
        return Err(EgdbError::Checksum { path: path.to_owned(), part: "header" });
    }
    let header = Header::decode(&head);
    let bits_ok = match kind {
        Kind::Wdl => header.bits == 2,
        Kind::Distance => header.bits == 8 || header.bits == 16,
    };
    let expected = Header {
        kind: kind.code(),
        material: [m.bm, m.bk, m.wm, m.wk],
        positions,
        data_len: data_len(positions, header.bits),
        ..header
    };
    if !bits_ok || header != expected {
        let shown = Header { bits: if bits_ok { header.bits } else { 2 }, ..expected };
        return Err(EgdbError::Mismatch {
            path: path.to_owned(),
            expected: shown.describe(),
            found: header.describe(),
        });
    }
    let want_len = HEADER_LEN as u64 + header.data_len;
    if len != want_len {
        return Err(EgdbError::Length { path: path.to_owned(), expected: want_len, found: len });
    }
    // SAFETY: table files are written whole under a temporary name and renamed into place, never
    // changed afterwards; the map is only read. (A file truncated by someone else while mapped
    // would fault on access, as with any memory map.)
    let map = unsafe { Mmap::map(&file) }.map_err(|e| EgdbError::io(path, "map", e))?;
    if crc32fast::hash(&map[HEADER_LEN..]) != header.data_crc {
        return Err(EgdbError::Checksum { path: path.to_owned(), part: "data" });
    }
    Ok(Some(Mapped { map, bits: header.bits }))
}

/// Reads into `buf` until it is full or the file ends; the bytes read.
fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_table_reads_back_and_damage_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let m = Material::new(1, 0, 0, 1);
        let path = table_path(dir.path(), m, Kind::Wdl);
        let data: Vec<u8> = (0..25u8).collect();
        let written = write_table(&path, Kind::Wdl, m, 2, 100, &data).unwrap();
        assert_eq!(written, 64 + 25);
        let mapped = open_table(&path, Kind::Wdl, m, 100).unwrap().unwrap();
        assert_eq!(mapped.data(), &data[..]);
        assert!(open_table(&dir.path().join("absent.wdl"), Kind::Wdl, m, 100).unwrap().is_none());
        // Another position count, kind or material is a mismatch.
        assert!(matches!(open_table(&path, Kind::Wdl, m, 99), Err(EgdbError::Mismatch { .. })));
        assert!(matches!(
            open_table(&path, Kind::Distance, m, 100),
            Err(EgdbError::Mismatch { .. })
        ));
        let original = std::fs::read(&path).unwrap();
        let damaged = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            let err = open_table(&path, Kind::Wdl, m, 100).unwrap_err();
            assert!(err.to_string().contains(&path.display().to_string()), "{err}");
            err
        };
        let mut flipped = original.clone();
        flipped[70] ^= 1;
        assert!(matches!(damaged(&flipped), EgdbError::Checksum { part: "data", .. }));
        let mut flipped = original.clone();
        flipped[30] ^= 1;
        assert!(matches!(damaged(&flipped), EgdbError::Checksum { part: "header", .. }));
        assert!(matches!(damaged(&original[..80]), EgdbError::Length { .. }));
        assert!(matches!(damaged(&original[..40]), EgdbError::Length { .. }));
        assert!(matches!(damaged(b"PK\x03\x04 a zip file"), EgdbError::Foreign { .. }));
        let mut other_version = original.clone();
        other_version[8] = 9;
        assert!(matches!(damaged(&other_version), EgdbError::Version { found: 9, .. }));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file is left");
    }

    #[test]
    fn a_fifo_named_as_a_table_is_refused_by_name_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let m = Material::new(1, 0, 0, 1);
        let path = table_path(dir.path(), m, Kind::Wdl);
        assert!(std::process::Command::new("mkfifo").arg(&path).status().unwrap().success());
        let err = support::one_line(&open_table(&path, Kind::Wdl, m, 100).unwrap_err());
        assert!(err.contains("cannot open: not a regular file (a FIFO)"), "{err}");
        assert!(err.contains(&path.display().to_string()), "{err}");
    }
}
