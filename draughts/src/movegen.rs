//! Move generation: compulsory captures with every jump path, otherwise simple steps.
//! No heap allocation: moves are handed to a callback.

use crate::bitboard::Bitboard;
use crate::moves::Move;
use crate::position::Position;
use crate::square::{Color, Direction, Square};

impl Position {
    /// Pieces of the side to move that may step or jump in `dir`: all of them for a forward
    /// direction, only kings otherwise.
    #[inline]
    fn movers(&self, dir: Direction) -> Bitboard {
        let us = self.side_to_move();
        if us.forward().contains(&dir) {
            self.pieces(us)
        } else {
            self.kings(us)
        }
    }

    /// Whether the side to move has a capture (and so must capture).
    #[inline]
    pub fn has_capture(&self) -> bool {
        let opponents = self.pieces(self.side_to_move().other());
        let empty = self.empty();
        Direction::ALL
            .iter()
            .any(|&dir| !((self.movers(dir).shift(dir) & opponents).shift(dir) & empty).is_empty())
    }

    /// Number of simple (non-capturing) moves, ignoring compulsory capture.
    #[inline]
    pub(crate) fn count_simple_moves(&self) -> u32 {
        let empty = self.empty();
        Direction::ALL.iter().map(|&dir| (self.movers(dir).shift(dir) & empty).count()).sum()
    }

    /// Calls `f` with every legal move.
    pub fn for_each_legal_move(&self, mut f: impl FnMut(Move)) {
        if self.has_capture() {
            self.for_each_capture(&mut f);
        } else {
            self.for_each_simple_move(&mut f);
        }
    }

    /// Number of legal moves, every capture path counted (perft's bulk count).
    pub fn count_legal_moves(&self) -> u64 {
        if self.has_capture() {
            let mut n = 0;
            self.for_each_capture(&mut |_| n += 1);
            n
        } else {
            self.count_simple_moves() as u64
        }
    }

    fn for_each_simple_move(&self, f: &mut impl FnMut(Move)) {
        let empty = self.empty();
        for dir in Direction::ALL {
            for to in self.movers(dir).shift(dir) & empty {
                let from = to.neighbour(dir.opposite()).expect("a shifted square has a source");
                f(Move::step(from, to, dir));
            }
        }
    }

    fn for_each_capture(&self, f: &mut impl FnMut(Move)) {
        let us = self.side_to_move();
        for from in self.pieces(us) {
            let search = CaptureSearch {
                from,
                king: self.kings(us).contains(from),
                color: us,
                opponents: self.pieces(us.other()),
                // The jumping piece has left its square; captured pieces stay until the move ends.
                empty: self.empty().with(from),
            };
            search.extend(from, Bitboard::EMPTY, 0, 0, f);
        }
    }
}

/// Depth-first search of the jump paths of one piece.
struct CaptureSearch {
    from: Square,
    king: bool,
    color: Color,
    opponents: Bitboard,
    empty: Bitboard,
}

impl CaptureSearch {
    fn extend(&self, at: Square, captured: Bitboard, jumps: u8, path: u32, f: &mut impl FnMut(Move)) {
        let mut extended = false;
        for dir in Direction::ALL {
            if !self.king && !self.color.forward().contains(&dir) {
                continue;
            }
            let (Some(over), Some(land)) = (at.neighbour(dir), at.jump_target(dir)) else {
                continue;
            };
            if !self.opponents.contains(over) || captured.contains(over) || !self.empty.contains(land) {
                continue;
            }
            extended = true;
            let captured = captured.with(over);
            let path = path | (dir as u32) << (2 * jumps as u32);
            if !self.king && Position::crown_row(self.color).contains(land) {
                // Crowning ends the move.
                f(Move::capture(self.from, land, jumps + 1, path, captured));
            } else {
                self.extend(land, captured, jumps + 1, path, f);
            }
        }
        if !extended && jumps > 0 {
            f(Move::capture(self.from, at, jumps, path, captured));
        }
    }
}
