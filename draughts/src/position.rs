//! A position: men and kings of each side on bitboards, and the side to move.

use crate::bitboard::Bitboard;
use crate::game::IllegalMove;
use crate::moves::{Move, MoveList};
use crate::square::{Color, Square};
use std::fmt;

/// A board position with the side to move. 16 bytes, `Copy`; moves are made by copy
/// ([`Position::play`], or [`Position::play_unchecked`] on the hot path).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// All pieces (men and kings) of each side, indexed by [`Color::index`].
    pieces: [Bitboard; 2],
    /// Kings of both sides.
    kings: Bitboard,
    side_to_move: Color,
}

/// Why a set of squares is not a position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// Two pieces on one square.
    #[error("square {square} holds pieces of both sides")]
    BothSides {
        /// The square.
        square: Square,
    },
    /// A king marked where there is no piece.
    #[error("square {square} is a king but holds no piece")]
    KingWithoutPiece {
        /// The square.
        square: Square,
    },
}

impl Position {
    /// The initial position: Black men on 1..12, White men on 21..32, Black to move.
    pub const fn start() -> Position {
        Position {
            pieces: [Bitboard(0x0000_0FFF), Bitboard(0xFFF0_0000)],
            kings: Bitboard::EMPTY,
            side_to_move: Color::Black,
        }
    }

    /// A position from the pieces of each side (men and kings together) and the set of kings.
    pub fn new(
        black: Bitboard,
        white: Bitboard,
        kings: Bitboard,
        side_to_move: Color,
    ) -> Result<Position, PositionError> {
        if let Some(square) = (black & white).first() {
            return Err(PositionError::BothSides { square });
        }
        if let Some(square) = (kings & !(black | white)).first() {
            return Err(PositionError::KingWithoutPiece { square });
        }
        Ok(Position { pieces: [black, white], kings, side_to_move })
    }

    /// The side whose turn it is.
    #[inline]
    pub const fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// All pieces of `color`, men and kings.
    #[inline]
    pub const fn pieces(&self, color: Color) -> Bitboard {
        self.pieces[color.index()]
    }

    /// The men (uncrowned pieces) of `color`.
    #[inline]
    pub fn men(&self, color: Color) -> Bitboard {
        self.pieces(color) & !self.kings
    }

    /// The kings of `color`.
    #[inline]
    pub fn kings(&self, color: Color) -> Bitboard {
        self.pieces(color) & self.kings
    }

    /// Every square holding a piece of either side.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.pieces[0] | self.pieces[1]
    }

    /// Every dark square holding no piece.
    #[inline]
    pub fn empty(&self) -> Bitboard {
        !self.occupied()
    }

    /// The same position with the other side to move (for tests and analysis; not a legal move).
    pub fn with_side_to_move(mut self, side: Color) -> Position {
        self.side_to_move = side;
        self
    }

    /// The same game seen from the other side: the board turned half a turn and the colours
    /// swapped, so the other colour is to move. It has the same value for the side to move.
    pub fn mirrored(&self) -> Position {
        Position {
            pieces: [self.pieces[1].flipped(), self.pieces[0].flipped()],
            kings: self.kings.flipped(),
            side_to_move: self.side_to_move.other(),
        }
    }

    /// The piece on `sq`: its colour and whether it is a king.
    pub fn piece_at(&self, sq: Square) -> Option<(Color, bool)> {
        let king = self.kings.contains(sq);
        if self.pieces[0].contains(sq) {
            Some((Color::Black, king))
        } else if self.pieces[1].contains(sq) {
            Some((Color::White, king))
        } else {
            None
        }
    }

    /// The back row where `color`'s men are crowned.
    #[inline]
    pub const fn crown_row(color: Color) -> Bitboard {
        match color {
            Color::Black => Bitboard::BOTTOM_ROW,
            Color::White => Bitboard::TOP_ROW,
        }
    }

    /// The same position with the piece on `from` moved to the empty square `to` (a capture in
    /// progress, before its jumped pieces are removed).
    pub(crate) fn relocated(&self, from: Square, to: Square) -> Position {
        let (from, to) = (Bitboard::from_square(from), Bitboard::from_square(to));
        let mut next = *self;
        let side = if (self.pieces[0] & from).is_empty() { 1 } else { 0 };
        next.pieces[side] = (next.pieces[side] & !from) | to;
        if !(self.kings & from).is_empty() {
            next.kings = (next.kings & !from) | to;
        }
        next
    }

    /// The position after `mv`. Panics when `mv` is not a legal move here; see
    /// [`Position::try_play`] to handle that, and [`Position::play_unchecked`] for moves known to
    /// be legal (the hot path).
    pub fn play(&self, mv: Move) -> Position {
        self.try_play(mv).unwrap_or_else(|e| panic!("Position::play: {e}:\n{self}"))
    }

    /// The position after `mv`, or an error when `mv` is not a legal move here.
    pub fn try_play(&self, mv: Move) -> Result<Position, IllegalMove> {
        if self.legal_moves().contains(&mv) {
            Ok(self.play_unchecked(mv))
        } else {
            Err(IllegalMove { mv })
        }
    }

    /// The position after `mv`, which must be legal here (generated from this position, or
    /// checked): nothing is checked, and an illegal move gives a meaningless position.
    #[inline]
    pub fn play_unchecked(&self, mv: Move) -> Position {
        let us = self.side_to_move.index();
        let them = 1 - us;
        let from = Bitboard::from_square(mv.from());
        let to = Bitboard::from_square(mv.to());
        let mut next = *self;
        // Not `^= from | to`: a king's capture may end on the square it started from.
        next.pieces[us] = (next.pieces[us] & !from) | to;
        if !(self.kings & from).is_empty() {
            next.kings = (next.kings & !from) | to;
        } else {
            next.kings |= to & Self::crown_row(self.side_to_move);
        }
        next.pieces[them] &= !mv.captured();
        next.kings &= !mv.captured();
        next.side_to_move = self.side_to_move.other();
        next
    }

    /// All legal moves. Capturing is compulsory: when any capture exists only captures are listed,
    /// every jump path separately.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.for_each_legal_move(|mv| list.push(mv));
        list
    }

    /// Whether the side to move has no legal move (and so has lost).
    pub fn is_lost(&self) -> bool {
        !self.has_capture() && !self.has_simple_move()
    }

    /// Whether the side to move has a simple step (a move when it has no capture to make).
    pub fn has_simple_move(&self) -> bool {
        self.count_simple_moves() > 0
    }
}

/// The dark square at `row`, `col` of the 8x8 board (row 0 is Black's back rank), or `None` on a
/// light square.
fn square_at(row: u8, col: u8) -> Option<Square> {
    if (row + col) % 2 == 0 {
        None
    } else {
        Square::new(row * 4 + col / 2)
    }
}

impl Position {
    /// What the board shows at `row`, `col`: `b`/`w` men, `B`/`W` kings, `.` an empty dark square,
    /// a space a light square.
    fn cell(&self, row: u8, col: u8) -> char {
        match square_at(row, col).map(|sq| self.piece_at(sq)) {
            None => ' ',
            Some(None) => '.',
            Some(Some((Color::Black, false))) => 'b',
            Some(Some((Color::Black, true))) => 'B',
            Some(Some((Color::White, false))) => 'w',
            Some(Some((Color::White, true))) => 'W',
        }
    }

    /// The board for a person: the cells of [`Display`](fmt::Display) spaced out, each row
    /// followed by the PDN numbers of its dark squares in the same layout, with `bottom`'s side
    /// nearest the reader (the board turned round for Black). Eight lines, no side to move.
    pub fn diagram(&self, bottom: Color) -> String {
        let turned = bottom == Color::Black;
        let mut rows: Vec<String> = (0..8u8)
            .map(|row| {
                let mut cols: Vec<u8> = (0..8).collect();
                if turned {
                    cols.reverse();
                }
                let pieces: String =
                    cols.iter().map(|&col| format!("{:>2}", self.cell(row, col))).collect();
                let numbers: String = cols
                    .iter()
                    .map(|&col| {
                        format!(
                            "{:>2}",
                            square_at(row, col).map_or(String::new(), |sq| sq.to_string())
                        )
                    })
                    .collect();
                format!("{pieces}      {numbers}").trim_end().to_string()
            })
            .collect();
        if turned {
            rows.reverse();
        }
        rows.join("\n")
    }
}

/// Draws the board, Black's back rank on top: `b`/`w` men, `B`/`W` kings, `.` empty dark squares.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..8u8 {
            for col in 0..8u8 {
                write!(f, "{}", self.cell(row, col))?;
            }
            writeln!(f)?;
        }
        write!(f, "{:?} to move", self.side_to_move)
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Position")?;
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mirrored_position_is_the_same_game_for_the_other_colour() {
        let pos = Position::from_fen("W:WK14,22,30:B9,18,K26").unwrap();
        let mirrored = pos.mirrored();
        assert_eq!(mirrored, Position::from_fen("B:WK7,15,24:BK19,11,3").unwrap());
        assert_eq!(mirrored.mirrored(), pos);
        assert_eq!(crate::perft(&mirrored, 5), crate::perft(&pos, 5));
        assert_eq!(Position::start().mirrored(), Position::start().with_side_to_move(Color::White));
    }

    #[test]
    fn the_diagram_shows_square_numbers_from_the_readers_side() {
        let white = Position::start().diagram(Color::White);
        let rows: Vec<&str> = white.lines().collect();
        assert_eq!(rows.len(), 8);
        assert_eq!(rows[0], "   b   b   b   b         1   2   3   4");
        assert_eq!(rows[3], " .   .   .   .        13  14  15  16");
        assert_eq!(rows[7], " w   w   w   w        29  30  31  32");
        let black = Position::start().diagram(Color::Black);
        assert_eq!(black.lines().next(), Some("   w   w   w   w        32  31  30  29"));
        assert_eq!(black.lines().last(), Some(" b   b   b   b         4   3   2   1"));
    }
}
