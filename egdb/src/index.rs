//! The index of a slice: a combinatorial ranking of its placements that skips impossible ones.
//!
//! A slice holds every placement of its material with Black to move. Black's men stand on squares
//! 0..28 (never on row 7), White's men on 4..32 (never on row 0), kings anywhere. The pieces are
//! ranked in groups, each as a subset of the squares still open to it (colex order of the
//! combinatorial number system):
//!
//! 1. Black men, split in two: those on row 0 (where White men cannot stand) and those on rows
//!    1..7. The slice is divided into classes by the count `b0` on row 0, because that count
//!    decides how many squares are left for White's men.
//! 2. White men among squares 4..32 not taken by Black men: `28 - (bm - b0)` squares.
//! 3. Black kings among the `32 - bm - wm` empty squares, then White kings among what is left.
//!
//! `index = base[b0] + ((((r0 * C(24, bm-b0) + r1) * C(free, wm) + r2) * C(.., bk) + r3) * C(.., wk) + r4)`.

use crate::board::{Board, ROW0};
use crate::material::Material;

/// `BINOMIAL[n][k]` = n choose k, for n, k in 0..=32.
static BINOMIAL: [[u64; 33]; 33] = binomials();

const fn binomials() -> [[u64; 33]; 33] {
    let mut t = [[0u64; 33]; 33];
    let mut n = 0;
    while n <= 32 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
}

/// n choose k (0 when k > n).
#[inline]
pub(crate) fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        0
    } else {
        BINOMIAL[n as usize][k as usize]
    }
}

/// Squares 4..28: where a Black man stands off row 0.
const BLACK_MEN_REST: u32 = 0x0FFF_FFF0;
/// Squares 4..32: where White men may stand.
const WHITE_MEN: u32 = !ROW0;

/// Rank in colex order of the set bits of `set`, each bit's position compressed to its rank among
/// the bits of `allowed` (`set` must lie within `allowed`).
#[inline]
fn rank_within(set: u32, allowed: u32) -> u64 {
    let mut rank = 0;
    let mut rest = set;
    let mut i = 1;
    while rest != 0 {
        let low = rest & rest.wrapping_neg();
        rest &= rest - 1;
        let c = (allowed & (low - 1)).count_ones();
        rank += BINOMIAL[c as usize][i];
        i += 1;
    }
    rank
}

/// The `k`-subset of the set bits of `allowed` (`n` of them) with colex rank `rank`.
#[inline]
fn unrank_within(mut rank: u64, k: u32, n: u32, allowed: u32) -> u32 {
    let mut set = 0;
    let mut c = n;
    for i in (1..=k as usize).rev() {
        // The largest c with C(c, i) <= rank; c only decreases from one piece to the next.
        c -= 1;
        while BINOMIAL[c as usize][i] > rank {
            c -= 1;
        }
        rank -= BINOMIAL[c as usize][i];
        set |= select(allowed, c);
    }
    set
}

/// The bit of the `n`-th (from 0) set bit of `mask`.
#[inline]
fn select(mut mask: u32, n: u32) -> u32 {
    for _ in 0..n {
        mask &= mask - 1;
    }
    mask & mask.wrapping_neg()
}

/// One class of a slice: the placements with `b0` Black men on row 0.
#[derive(Clone, Copy, Debug, Default)]
struct Class {
    /// First index of the class.
    base: u64,
    /// Black men off row 0.
    rest: u32,
    /// C(24, rest): ways to place them.
    rest_ways: u64,
    /// Squares open to White's men.
    white_free: u32,
    /// C(white_free, wm).
    white_ways: u64,
}

/// The index of one slice: sizes of its classes and the factors of each group.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    material: Material,
    classes: [Class; 5],
    /// Classes in use: `b0` runs over `0..class_count`.
    class_count: usize,
    /// C(32 - bm - wm, bk).
    bk_ways: u64,
    /// C(32 - bm - wm - bk, wk).
    wk_ways: u64,
    size: u64,
}

impl Layout {
    /// The layout of `m`'s slice.
    pub fn new(m: Material) -> Layout {
        let (bm, bk, wm, wk) = (m.bm as u32, m.bk as u32, m.wm as u32, m.wk as u32);
        let empty_after_men = 32u32.saturating_sub(bm + wm);
        let bk_ways = binomial(empty_after_men, bk);
        let wk_ways = binomial(empty_after_men.saturating_sub(bk), wk);
        let mut classes = [Class::default(); 5];
        let class_count = bm.min(4) as usize + 1;
        let mut base = 0;
        for (b0, class) in classes.iter_mut().enumerate().take(class_count) {
            let rest = bm - b0 as u32;
            let white_free = 28u32.saturating_sub(rest);
            let rest_ways = binomial(24, rest);
            let white_ways = binomial(white_free, wm);
            let size = binomial(4, b0 as u32) * rest_ways * white_ways * bk_ways * wk_ways;
            *class = Class { base, rest, rest_ways, white_free, white_ways };
            base += size;
        }
        Layout { material: m, classes, class_count, bk_ways, wk_ways, size: base }
    }

    /// The material of the slice.
    pub fn material(&self) -> Material {
        self.material
    }

    /// Number of placements (and so of indices) in the slice.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The index of `b`, which must be a valid board of this slice's material.
    #[inline]
    pub fn rank(&self, b: &Board) -> u64 {
        let low = b.bm & ROW0;
        let class = &self.classes[low.count_ones() as usize];
        let r0 = rank_within(low, ROW0);
        let r1 = rank_within(b.bm & BLACK_MEN_REST, BLACK_MEN_REST);
        let r2 = rank_within(b.wm, WHITE_MEN & !b.bm);
        let men = b.bm | b.wm;
        let r3 = rank_within(b.bk, !men);
        let r4 = rank_within(b.wk, !(men | b.bk));
        class.base
            + (((r0 * class.rest_ways + r1) * class.white_ways + r2) * self.bk_ways + r3)
                * self.wk_ways
            + r4
    }

    /// The board with index `index` (below [`Layout::size`]).
    #[inline]
    pub fn unrank(&self, index: u64) -> Board {
        let m = self.material;
        let b0 = (1..self.class_count).take_while(|&c| self.classes[c].base <= index).count();
        let class = &self.classes[b0];
        let mut rem = index - class.base;
        let r4 = rem % self.wk_ways;
        rem /= self.wk_ways;
        let r3 = rem % self.bk_ways;
        rem /= self.bk_ways;
        let r2 = rem % class.white_ways;
        rem /= class.white_ways;
        let r1 = rem % class.rest_ways;
        let r0 = rem / class.rest_ways;
        let bm = unrank_within(r0, b0 as u32, 4, ROW0)
            | unrank_within(r1, class.rest, 24, BLACK_MEN_REST);
        let wm = unrank_within(r2, m.wm as u32, class.white_free, WHITE_MEN & !bm);
        let men = bm | wm;
        let free = 32 - men.count_ones();
        let bk = unrank_within(r3, m.bk as u32, free, !men);
        let wk = unrank_within(r4, m.wk as u32, free - m.bk as u32, !(men | bk));
        Board { bm, bk, wm, wk }
    }
}

/// Number of placements (side to move not counted) with exactly `n` pieces, from the index
/// formulas: the sum of the slice sizes of every material with `n` pieces.
pub fn positions_with_pieces(n: u32) -> u64 {
    if n == 0 || n > crate::material::MAX_PIECES {
        return 0;
    }
    Material::with_pieces(n).into_iter().map(|m| Layout::new(m).size()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use support::SplitMix64;

    #[test]
    fn counts_match_the_published_table() {
        let expected = [120, 6_972, 261_224, 7_092_774, 148_688_232, 2_503_611_964];
        for (n, want) in (1..=6).zip(expected) {
            assert_eq!(positions_with_pieces(n), want, "{n} pieces");
        }
        assert_eq!(positions_with_pieces(0), 0);
    }

    #[test]
    fn small_slices_rank_every_placement_exactly_once() {
        for n in 1..=3 {
            for m in Material::with_pieces(n) {
                let layout = Layout::new(m);
                let mut seen = vec![false; layout.size() as usize];
                for i in 0..layout.size() {
                    let b = layout.unrank(i);
                    assert!(b.is_valid(), "{m} {i} {b:?}");
                    assert_eq!(b.material(), m);
                    assert_eq!(layout.rank(&b), i);
                    assert!(!std::mem::replace(&mut seen[i as usize], true));
                }
            }
        }
    }

    /// A brute-force count of the placements of `m`, square by square.
    fn brute_force_count(m: Material) -> u64 {
        fn go(sq: u32, left: [u8; 4]) -> u64 {
            if left == [0; 4] {
                return 1;
            }
            if sq == 32 {
                return 0;
            }
            let mut n = go(sq + 1, left);
            for kind in 0..4 {
                let man_barred = match kind {
                    0 => sq >= 28,
                    2 => sq < 4,
                    _ => false,
                };
                if left[kind] > 0 && !man_barred {
                    let mut l = left;
                    l[kind] -= 1;
                    n += go(sq + 1, l);
                }
            }
            n
        }
        go(0, [m.bm, m.bk, m.wm, m.wk])
    }

    #[test]
    fn slice_sizes_match_a_brute_force_count() {
        for n in 1..=4 {
            for m in Material::with_pieces(n) {
                assert_eq!(Layout::new(m).size(), brute_force_count(m), "{m}");
            }
        }
    }

    #[test]
    fn random_indices_of_large_slices_round_trip() {
        let mut rng = SplitMix64::new(7);
        for n in 4..=6 {
            for m in Material::with_pieces(n) {
                let layout = Layout::new(m);
                for _ in 0..200 {
                    let i = rng.below(layout.size());
                    let b = layout.unrank(i);
                    assert!(b.is_valid() && b.material() == m, "{m} {i}");
                    assert_eq!(layout.rank(&b), i, "{m}");
                }
                assert_eq!(layout.rank(&layout.unrank(layout.size() - 1)), layout.size() - 1);
            }
        }
    }
}
