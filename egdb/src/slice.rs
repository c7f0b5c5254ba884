//! One loaded slice: its index and its mapped files, read entry by entry.

use crate::error::EgdbError;
use crate::file::{open_table, table_path, Kind, Mapped};
use crate::index::Layout;
use crate::material::Material;
use crate::Wdl;
use std::path::Path;

/// The tables of one material, Black to move.
#[derive(Debug)]
pub(crate) struct Slice {
    layout: Layout,
    wdl: Mapped,
    /// Plies to the end, when the `.dist` file is present.
    dist: Option<Mapped>,
}

impl Slice {
    /// Loads `m`'s slice from `dir`, every file checked; `Ok(None)` when its `.wdl` file is absent.
    pub fn open(dir: &Path, m: Material) -> Result<Option<Slice>, EgdbError> {
        let layout = Layout::new(m);
        let wdl_path = table_path(dir, m, Kind::Wdl);
        let Some(wdl) = open_table(&wdl_path, Kind::Wdl, m, layout.size())? else {
            return Ok(None);
        };
        let dist =
            open_table(&table_path(dir, m, Kind::Distance), Kind::Distance, m, layout.size())?;
        Ok(Some(Slice { layout, wdl, dist }))
    }

    /// The index of the slice.
    #[inline]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Whether distances are stored.
    pub fn has_distances(&self) -> bool {
        self.dist.is_some()
    }

    /// Bytes of the slice's files.
    pub fn file_bytes(&self) -> u64 {
        self.wdl.file_len() + self.dist.as_ref().map_or(0, Mapped::file_len)
    }

    /// The value of the position with index `i`.
    #[inline]
    pub fn wdl(&self, i: u64) -> Wdl {
        let byte = self.wdl.data()[(i / 4) as usize];
        Wdl::from_code(byte >> (2 * (i % 4)))
    }

    /// The stored distance of the position with index `i` (0 for draws), if distances are stored.
    #[inline]
    pub fn distance(&self, i: u64) -> Option<u16> {
        let dist = self.dist.as_ref()?;
        let data = dist.data();
        Some(if dist.bits() == 8 {
            u16::from(data[i as usize])
        } else {
            let at = 2 * i as usize;
            u16::from_le_bytes([data[at], data[at + 1]])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file::write_table;

    #[test]
    fn entries_read_back_at_both_distance_widths() {
        let m = Material::new(0, 1, 0, 0);
        let n = Layout::new(m).size();
        assert_eq!(n, 32);
        let codes: Vec<u8> = (0..n).map(|i| (i % 3) as u8).collect();
        let wdl: Vec<u8> = codes
            .chunks(4)
            .map(|c| c.iter().enumerate().fold(0, |b, (k, &v)| b | v << (2 * k)))
            .collect();
        for bits in [8u32, 16] {
            let dir = tempfile::tempdir().unwrap();
            let dist: Vec<u8> = (0..n)
                .flat_map(|i| {
                    let d = (i * 300 % 65_000) as u16;
                    if bits == 8 {
                        vec![d as u8]
                    } else {
                        d.to_le_bytes().to_vec()
                    }
                })
                .collect();
            write_table(&table_path(dir.path(), m, Kind::Wdl), Kind::Wdl, m, 2, n, &wdl).unwrap();
            let path = table_path(dir.path(), m, Kind::Distance);
            write_table(&path, Kind::Distance, m, bits, n, &dist).unwrap();
            let slice = Slice::open(dir.path(), m).unwrap().unwrap();
            for i in 0..n {
                assert_eq!(slice.wdl(i), Wdl::from_code(codes[i as usize]));
                let d = (i * 300 % 65_000) as u16;
                let want = if bits == 8 { d & 0xFF } else { d };
                assert_eq!(slice.distance(i), Some(want));
            }
        }
    }
}
