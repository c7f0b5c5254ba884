//! The board as the tables see it: Black to move always (a position with White to move is turned
//! round 180 degrees with the colours swapped), men and kings of each side as plain `u32` sets.

use crate::material::Material;
use draughts::{Bitboard, Color, Direction, Position};

/// Row 0 (PDN 1..4): White's crowning row, where no White man stands.
pub(crate) const ROW0: u32 = 0x0000_000F;
/// Row 7 (PDN 29..32): Black's crowning row, where no Black man stands.
pub(crate) const ROW7: u32 = 0xF000_0000;

/// The directions a Black man moves in (towards row 7).
pub(crate) const DOWN: [Direction; 2] = [Direction::DownLeft, Direction::DownRight];
/// The directions a White man moves in (towards row 0).
pub(crate) const UP: [Direction; 2] = [Direction::UpLeft, Direction::UpRight];

/// `bits` moved one step in `dir`; squares that would leave the board drop out.
#[inline]
pub(crate) const fn shift(bits: u32, dir: Direction) -> u32 {
    Bitboard(bits).shift(dir).0
}

/// A placement with Black to move: men and kings of each side. Bit `i` is square index `i`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub(crate) struct Board {
    /// Black men.
    pub bm: u32,
    /// Black kings.
    pub bk: u32,
    /// White men.
    pub wm: u32,
    /// White kings.
    pub wk: u32,
}

impl Board {
    /// The board of `pos` as the tables store it: as it is with Black to move, turned round with
    /// the colours swapped with White to move.
    #[inline]
    pub fn from_position(pos: &Position) -> Board {
        let board = Board {
            bm: pos.men(Color::Black).0,
            bk: pos.kings(Color::Black).0,
            wm: pos.men(Color::White).0,
            wk: pos.kings(Color::White).0,
        };
        match pos.side_to_move() {
            Color::Black => board,
            Color::White => board.flipped(),
        }
    }

    /// The position with Black to move.
    #[inline]
    pub fn to_position(self) -> Position {
        self.to_position_for(Color::Black)
    }

    /// The position this board stands for with `side` to move: as it is for Black, turned round
    /// with the colours swapped for White, so that [`Board::from_position`] gives `self` back and
    /// the stored value is that position's.
    #[inline]
    pub fn to_position_for(self, side: Color) -> Position {
        let b = match side {
            Color::Black => self,
            Color::White => self.flipped(),
        };
        Position::new(Bitboard(b.bm | b.bk), Bitboard(b.wm | b.wk), Bitboard(b.bk | b.wk), side)
            .expect("a board holds one piece per square")
    }

    /// The board turned round 180 degrees with the colours swapped: the same position seen by the
    /// other side (so with the other side to move).
    #[inline]
    pub const fn flipped(self) -> Board {
        Board {
            bm: self.wm.reverse_bits(),
            bk: self.wk.reverse_bits(),
            wm: self.bm.reverse_bits(),
            wk: self.bk.reverse_bits(),
        }
    }

    /// How many men and kings each side has.
    #[inline]
    pub const fn material(self) -> Material {
        Material::new(
            self.bm.count_ones() as u8,
            self.bk.count_ones() as u8,
            self.wm.count_ones() as u8,
            self.wk.count_ones() as u8,
        )
    }

    /// Every occupied square.
    #[inline]
    pub const fn occupied(self) -> u32 {
        self.bm | self.bk | self.wm | self.wk
    }

    /// Whether the board can be in a table: no two pieces on a square and no man on its own
    /// crowning row.
    #[inline]
    pub const fn is_valid(self) -> bool {
        let sets = [self.bm, self.bk, self.wm, self.wk];
        let mut seen = 0u32;
        let mut i = 0;
        while i < 4 {
            if seen & sets[i] != 0 {
                return false;
            }
            seen |= sets[i];
            i += 1;
        }
        self.bm & ROW7 == 0 && self.wm & ROW0 == 0
    }

    /// Whether Black (to move) has a capture, and so must capture.
    #[inline]
    pub const fn black_can_capture(self) -> bool {
        let empty = !self.occupied();
        let white = self.wm | self.wk;
        let black = self.bm | self.bk;
        let mut targets = 0;
        let mut i = 0;
        while i < 2 {
            targets |= shift(shift(black, DOWN[i]) & white, DOWN[i]);
            targets |= shift(shift(self.bk, UP[i]) & white, UP[i]);
            i += 1;
        }
        targets & empty != 0
    }

    /// Calls `f` with every quiet (non-capturing) move of Black that keeps the material: a king's
    /// step, or a man's step that does not reach row 7. Gives the board after the move seen from
    /// the new side to move (turned round), so in the mirrored material.
    #[cfg(test)]
    pub fn for_each_quiet_successor(self, mut f: impl FnMut(Board)) {
        let empty = !self.occupied();
        for dir in Direction::ALL {
            let mut kings = self.bk & shift(empty, dir.opposite());
            while kings != 0 {
                let from = kings & kings.wrapping_neg();
                kings &= kings - 1;
                let to = shift(from, dir);
                f(Board { bk: self.bk ^ from ^ to, ..self }.flipped());
            }
        }
        for dir in DOWN {
            let mut men = self.bm & shift(empty & !ROW7, dir.opposite());
            while men != 0 {
                let from = men & men.wrapping_neg();
                men &= men - 1;
                let to = shift(from, dir);
                f(Board { bm: self.bm ^ from ^ to, ..self }.flipped());
            }
        }
    }

    /// Number of moves [`Board::for_each_quiet_successor`] gives.
    #[inline]
    pub const fn count_quiet_successors(self) -> u32 {
        let empty = !self.occupied();
        let mut n = 0;
        let mut i = 0;
        while i < 4 {
            n += (shift(self.bk, Direction::ALL[i]) & empty).count_ones();
            i += 1;
        }
        n + (shift(self.bm, DOWN[0]) & empty & !ROW7).count_ones()
            + (shift(self.bm, DOWN[1]) & empty & !ROW7).count_ones()
    }

    /// Whether Black has a man's step onto row 7 (a crowning, which leaves the slice).
    #[cfg(test)]
    pub const fn can_crown(self) -> bool {
        let empty = !self.occupied() & ROW7;
        (shift(self.bm, DOWN[0]) | shift(self.bm, DOWN[1])) & empty != 0
    }

    /// Calls `f` with every board after a man's step onto row 7 (a crowning, which leaves the
    /// slice), seen from the new side to move (turned round).
    #[inline]
    pub fn for_each_crowning_successor(self, mut f: impl FnMut(Board)) {
        let empty = !self.occupied() & ROW7;
        for dir in DOWN {
            let mut men = self.bm & shift(empty, dir.opposite());
            while men != 0 {
                let from = men & men.wrapping_neg();
                men &= men - 1;
                let to = shift(from, dir);
                f(Board { bm: self.bm ^ from, bk: self.bk | to, ..self }.flipped());
            }
        }
    }

    /// Calls `f` with every board from which a quiet move of White, keeping the material, leads
    /// here, seen from White's side (turned round, so Black to move in the mirrored material),
    /// and only those where that side has no capture (a side that can capture must).
    #[inline]
    pub fn for_each_predecessor(self, mut f: impl FnMut(Board)) {
        let empty = !self.occupied();
        for dir in Direction::ALL {
            // A White king on `to` came from `from`, one step in `dir`.
            let mut kings = self.wk & shift(empty, dir.opposite());
            while kings != 0 {
                let to = kings & kings.wrapping_neg();
                kings &= kings - 1;
                let before = Board { wk: self.wk ^ to ^ shift(to, dir), ..self }.flipped();
                if !before.black_can_capture() {
                    f(before);
                }
            }
        }
        // A White man moves up, so it came from below.
        for dir in DOWN {
            let mut men = self.wm & shift(empty, dir.opposite());
            while men != 0 {
                let to = men & men.wrapping_neg();
                men &= men - 1;
                let before = Board { wm: self.wm ^ to ^ shift(to, dir), ..self }.flipped();
                if !before.black_can_capture() {
                    f(before);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(fen: &str) -> Board {
        Board::from_position(&Position::from_fen(fen).unwrap())
    }

    #[test]
    fn white_to_move_is_turned_round() {
        let b = board("W:W32,K14:B5");
        // White's man on 32 (index 31) becomes Black's man on 1 (index 0).
        assert_eq!(b.bm, 1);
        assert_eq!(b.bk, 1 << (31 - 13));
        assert_eq!(b.wm, 1 << (31 - 4));
        assert_eq!(b.material(), Material::new(1, 1, 1, 0));
        assert_eq!(b.flipped().flipped(), b);
    }

    #[test]
    fn quiet_successors_match_the_rules_engine() {
        for fen in ["B:W18,K30:B14,K10,22", "B:WK5:B25,26,K1", "B:W9:B5,K20", "B:W:B24,K3"] {
            let b = board(fen);
            let pos = b.to_position();
            let mut expected: Vec<Board> = Vec::new();
            if !pos.has_capture() {
                for mv in pos.legal_moves() {
                    let crowns = b.bm & (1 << mv.from().index()) != 0 && mv.to().row() == 7;
                    if !crowns {
                        expected.push(Board::from_position(&pos.play_unchecked(mv)));
                    }
                }
                assert_eq!(b.can_crown(), pos.legal_moves().len() > expected.len(), "{fen}");
            }
            let mut got = Vec::new();
            if !b.black_can_capture() {
                b.for_each_quiet_successor(|s| got.push(s));
                assert_eq!(got.len() as u32, b.count_quiet_successors());
            }
            expected.sort_by_key(|b| (b.bm, b.bk, b.wm, b.wk));
            got.sort_by_key(|b| (b.bm, b.bk, b.wm, b.wk));
            assert_eq!(got, expected, "{fen}");
            assert_eq!(b.black_can_capture(), pos.has_capture(), "{fen}");
        }
    }

    #[test]
    fn predecessors_invert_quiet_moves() {
        let b = board("B:W18,K30,K2:B14,K10,22");
        let mut preds = Vec::new();
        b.for_each_predecessor(|p| preds.push(p));
        assert!(!preds.is_empty());
        for p in preds {
            assert!(p.is_valid());
            assert!(!p.black_can_capture());
            let mut found = false;
            p.for_each_quiet_successor(|s| found |= s == b);
            assert!(found, "{p:?}");
        }
    }
}
