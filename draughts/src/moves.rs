//! Moves that keep their whole jump path, and the single steps they are made of.

use crate::bitboard::Bitboard;
use crate::square::{Color, Direction, Square};
use smallvec::SmallVec;
use std::fmt;

/// The longest jump path a move can hold. A side has at most 12 pieces to lose, so 12 is enough;
/// the path field has room for 16.
pub const MAX_JUMPS: usize = 16;

/// A complete move: a simple step, or a capture with its whole path of jumps.
///
/// Two captures from one square along different paths are different `Move`s, even when they end in
/// the same position (they are different in notation and to the policy).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    from: Square,
    to: Square,
    /// Number of jumps; 0 for a simple step.
    jumps: u8,
    /// Two bits per step (jump or simple step), first step in the lowest bits.
    path: u32,
    /// Squares of the captured pieces.
    captured: Bitboard,
}

impl Move {
    /// A simple (non-capturing) step. `to` must be the neighbour of `from` in `dir`.
    #[inline]
    pub(crate) fn step(from: Square, to: Square, dir: Direction) -> Move {
        Move { from, to, jumps: 0, path: dir as u32, captured: Bitboard::EMPTY }
    }

    /// A capture along `path` (two bits per jump), built by the move generator.
    #[inline]
    pub(crate) fn capture(
        from: Square,
        to: Square,
        jumps: u8,
        path: u32,
        captured: Bitboard,
    ) -> Move {
        Move { from, to, jumps, path, captured }
    }

    /// The square the moving piece starts from.
    #[inline]
    pub fn from(self) -> Square {
        self.from
    }

    /// The square the moving piece ends on (for a king's capture, possibly its start square).
    #[inline]
    pub fn to(self) -> Square {
        self.to
    }

    /// Whether the move jumps (captures at least one piece).
    #[inline]
    pub fn is_capture(self) -> bool {
        self.jumps > 0
    }

    /// Number of pieces this move captures.
    #[inline]
    pub fn jump_count(self) -> usize {
        self.jumps as usize
    }

    /// The squares of the pieces this move captures (empty for a simple move).
    #[inline]
    pub fn captured(self) -> Bitboard {
        self.captured
    }

    /// Number of single steps (1 for a simple move, one per jump for a capture).
    #[inline]
    pub fn step_count(self) -> usize {
        self.jumps.max(1) as usize
    }

    /// Direction of step `i`.
    #[inline]
    pub fn direction(self, i: usize) -> Direction {
        Direction::from_index((self.path >> (2 * i)) as u8)
    }

    /// The single steps of this move in order: where the piece stands and which way it goes.
    pub fn steps(self) -> impl ExactSizeIterator<Item = Step> {
        let mut at = self.from;
        (0..self.step_count()).map(move |i| {
            let dir = self.direction(i);
            let step = Step { square: at, dir };
            at = if self.is_capture() { at.jump_target(dir) } else { at.neighbour(dir) }
                .expect("a generated move stays on the board");
            step
        })
    }

    /// The squares the piece stands on: the start, then each landing square.
    pub fn squares(self) -> impl Iterator<Item = Square> {
        std::iter::once(self.from).chain(self.steps().map(move |s| {
            if self.is_capture() { s.square.jump_target(s.dir) } else { s.square.neighbour(s.dir) }
                .expect("a generated move stays on the board")
        }))
    }
}

/// PDN move text with the full path: `11-15`, `15x24`, `15x24x31`.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sep = if self.is_capture() { 'x' } else { '-' };
        for (i, sq) in self.squares().enumerate() {
            if i > 0 {
                write!(f, "{sep}")?;
            }
            write!(f, "{sq}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({self})")
    }
}

/// One step of a move: the piece on `square` moves or jumps in `dir`.
/// A capture is a chain of steps taken by the same piece.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Step {
    /// The square of the piece that moves.
    pub square: Square,
    /// The diagonal it moves or jumps along.
    pub dir: Direction,
}

impl Step {
    /// Number of distinct step indices: 32 squares x 4 directions.
    pub const INDEX_COUNT: usize = 128;

    /// The step's index in `0..128` seen from `mover`'s side of the board (the board is turned for
    /// White): `4 * square + direction`, both in the mover's frame. This is the policy index.
    #[inline]
    pub fn index_for(self, mover: Color) -> usize {
        let (square, dir) = match mover {
            Color::Black => (self.square, self.dir),
            Color::White => (self.square.flipped(), self.dir.opposite()),
        };
        4 * square.index() + dir.index()
    }

    /// The step with policy index `index` (see [`Step::index_for`]); `None` when out of range.
    pub fn from_index(index: usize, mover: Color) -> Option<Step> {
        let square = Square::new(u8::try_from(index / 4).ok()?)?;
        let dir = Direction::from_index((index % 4) as u8);
        Some(match mover {
            Color::Black => Step { square, dir },
            Color::White => Step { square: square.flipped(), dir: dir.opposite() },
        })
    }
}

/// The legal moves of a position. Inline capacity covers every ordinary position; it spills to the
/// heap only for rare positions with very many capture paths.
pub type MoveList = SmallVec<[Move; 48]>;

/// Distinct next steps of a move in progress (at most 4 per piece, 48 in all).
pub type StepList = SmallVec<[Step; 48]>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_index_round_trips_for_both_sides() {
        for index in 0..Step::INDEX_COUNT {
            for mover in [Color::Black, Color::White] {
                let step = Step::from_index(index, mover).unwrap();
                assert_eq!(step.index_for(mover), index);
            }
        }
        assert_eq!(Step::from_index(Step::INDEX_COUNT, Color::Black), None);
    }

    #[test]
    fn move_is_small() {
        assert_eq!(std::mem::size_of::<Move>(), 12);
    }
}
