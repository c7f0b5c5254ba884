//! Material: how many men and kings each side has, the key of a slice, with its file names and the
//! order in which slices are built.

use std::fmt;

/// The most pieces any table covers (the index formulas and the file names allow up to 6).
pub const MAX_PIECES: u32 = 6;

/// Number of distinct material codes: each of the four counts is 0..=6.
pub(crate) const CODES: usize = 7 * 7 * 7 * 7;

/// The material of a slice, seen from the side to move, which is always Black in a stored table
/// (a position with White to move is looked up turned round 180 degrees, colours swapped).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Material {
    /// Men of the side to move.
    pub bm: u8,
    /// Kings of the side to move.
    pub bk: u8,
    /// Men of the side not to move.
    pub wm: u8,
    /// Kings of the side not to move.
    pub wk: u8,
}

impl Material {
    /// The material with these counts.
    pub const fn new(bm: u8, bk: u8, wm: u8, wk: u8) -> Material {
        Material { bm, bk, wm, wk }
    }

    /// All pieces on the board.
    pub const fn pieces(self) -> u32 {
        self.bm as u32 + self.bk as u32 + self.wm as u32 + self.wk as u32
    }

    /// Men of both sides.
    pub const fn men(self) -> u32 {
        self.bm as u32 + self.wm as u32
    }

    /// The same material with the other side to move (the colours swapped).
    pub const fn mirrored(self) -> Material {
        Material { bm: self.wm, bk: self.wk, wm: self.bm, wk: self.bk }
    }

    /// Index into per-material arrays (`0..CODES`); every count must be at most 6.
    #[inline]
    pub(crate) const fn code(self) -> usize {
        ((self.bm as usize * 7 + self.bk as usize) * 7 + self.wm as usize) * 7 + self.wk as usize
    }

    /// Every material with exactly `n` pieces (1..=6), in a fixed order.
    pub fn with_pieces(n: u32) -> Vec<Material> {
        let n = n.min(MAX_PIECES) as u8;
        let mut all = Vec::new();
        for bm in 0..=n {
            for bk in 0..=n - bm {
                for wm in 0..=n - bm - bk {
                    all.push(Material::new(bm, bk, wm, n - bm - bk - wm));
                }
            }
        }
        all
    }

    /// The stem of this slice's file names, e.g. `2m1k-1m0k` (side to move first).
    pub fn name(self) -> String {
        self.to_string()
    }
}

/// `2m1k-1m0k`: men and kings of the side to move, then of the other side.
impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}m{}k-{}m{}k", self.bm, self.bk, self.wm, self.wk)
    }
}

/// The slices that are solved together: a material and its mirror (the same pieces with the other
/// side to move), since a quiet move of one leads into the other. One entry when they are equal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pair {
    /// The material itself, then its mirror when that differs.
    pub members: Vec<Material>,
}

impl Pair {
    /// The pair of `m`, the smaller of the two first.
    pub fn of(m: Material) -> Pair {
        let (a, b) = if m <= m.mirrored() { (m, m.mirrored()) } else { (m.mirrored(), m) };
        Pair { members: if a == b { vec![a] } else { vec![a, b] } }
    }

    /// Names joined for progress lines, e.g. `2m1k-1m0k + 1m0k-2m1k`.
    pub fn name(&self) -> String {
        self.members.iter().map(|m| m.name()).collect::<Vec<_>>().join(" + ")
    }
}

/// Every pair with at most `max_pieces` pieces in the order they must be built: fewer pieces
/// first (captures lead there), and for the same number of pieces fewer men first (a man's
/// crowning leads there). The empty board is not a slice.
pub(crate) fn build_order(max_pieces: u32) -> Vec<Pair> {
    let mut pairs: Vec<Pair> =
        (1..=max_pieces.min(MAX_PIECES)).flat_map(Material::with_pieces).map(Pair::of).collect();
    pairs.sort_by_key(|p| {
        let m = p.members[0];
        (m.pieces(), m.men(), m)
    });
    pairs.dedup();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn materials_and_pairs_are_counted_once() {
        let counts: Vec<usize> = (1..=6).map(|n| Material::with_pieces(n).len()).collect();
        assert_eq!(counts, [4, 10, 20, 35, 56, 84]);
        let pairs = build_order(6);
        let members: usize = pairs.iter().map(|p| p.members.len()).sum();
        assert_eq!(members, 4 + 10 + 20 + 35 + 56 + 84);
        // Capture and crowning targets come before the slices that lead there.
        for (i, p) in pairs.iter().enumerate() {
            for (j, q) in pairs.iter().enumerate() {
                let (m, n) = (p.members[0], q.members[0]);
                if n.pieces() < m.pieces() || (n.pieces() == m.pieces() && n.men() < m.men()) {
                    assert!(j < i, "{} must precede {}", q.name(), p.name());
                }
            }
        }
    }

    #[test]
    fn names_and_codes() {
        let m = Material::new(2, 1, 1, 0);
        assert_eq!(m.name(), "2m1k-1m0k");
        assert_eq!(m.mirrored().name(), "1m0k-2m1k");
        assert_eq!(Pair::of(m).name(), "1m0k-2m1k + 2m1k-1m0k");
        assert_eq!(Material::new(6, 6, 6, 6).code(), CODES - 1);
    }
}
