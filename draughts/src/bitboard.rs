//! A set of dark squares as a 32-bit word (bit i = square index i), with whole-board diagonal shifts.

use crate::square::{Direction, Square};
use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of dark squares. Bit `i` is the square with index `i` (PDN `i + 1`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u32);

const EVEN_ROWS: u32 = 0x0F0F_0F0F;
const ODD_ROWS: u32 = 0xF0F0_F0F0;
const LEFT_EDGE: u32 = 0x1111_1111; // first dark square of each row (column 0 or 1)
const RIGHT_EDGE: u32 = 0x8888_8888; // last dark square of each row (column 6 or 7)

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 32 dark squares.
    pub const ALL: Bitboard = Bitboard(u32::MAX);
    /// Row 0 (PDN 1..4): where White's men are crowned.
    pub const TOP_ROW: Bitboard = Bitboard(0x0000_000F);
    /// Row 7 (PDN 29..32): where Black's men are crowned.
    pub const BOTTOM_ROW: Bitboard = Bitboard(0xF000_0000);

    /// The set holding only `sq`.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    /// Whether the set holds no square.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of squares in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The set with `sq` added.
    #[inline]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | (1 << sq.index()))
    }

    /// The set with `sq` removed.
    #[inline]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.index()))
    }

    /// Every square moved one step in `dir`; squares that would leave the board drop out.
    #[inline]
    pub const fn shift(self, dir: Direction) -> Bitboard {
        let b = self.0;
        Bitboard(match dir {
            Direction::UpLeft => ((b & EVEN_ROWS) >> 4) | ((b & ODD_ROWS & !LEFT_EDGE) >> 5),
            Direction::UpRight => ((b & EVEN_ROWS & !RIGHT_EDGE) >> 3) | ((b & ODD_ROWS) >> 4),
            Direction::DownLeft => ((b & EVEN_ROWS) << 4) | ((b & ODD_ROWS & !LEFT_EDGE) << 3),
            Direction::DownRight => ((b & EVEN_ROWS & !RIGHT_EDGE) << 5) | ((b & ODD_ROWS) << 4),
        })
    }

    /// The set seen from the other side of the board (rotated 180 degrees).
    #[inline]
    pub const fn flipped(self) -> Bitboard {
        Bitboard(self.0.reverse_bits())
    }

    /// The lowest square of the set.
    #[inline]
    pub fn first(self) -> Option<Square> {
        Square::new(self.0.trailing_zeros() as u8)
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        let sq = self.first()?;
        self.0 &= self.0 - 1;
        Some(sq)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Self {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

/// Draws the board, Black's back rank on top: `x` for a member square, `.` for other dark squares.
impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard({:#010x})", self.0)?;
        for row in 0..8u8 {
            for col in 0..8u8 {
                let c = if (row + col) % 2 == 0 {
                    ' '
                } else if self.contains(Square::new(row * 4 + col / 2).expect("on board")) {
                    'x'
                } else {
                    '.'
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_matches_neighbour_table() {
        for sq in Square::all() {
            for dir in Direction::ALL {
                let shifted = Bitboard::from_square(sq).shift(dir);
                let expected: Bitboard = sq.neighbour(dir).into_iter().collect();
                assert_eq!(shifted, expected, "{sq:?} {dir:?}");
            }
        }
    }

    #[test]
    fn flip_matches_square_flip() {
        for sq in Square::all() {
            assert_eq!(Bitboard::from_square(sq).flipped(), Bitboard::from_square(sq.flipped()));
        }
    }
}
