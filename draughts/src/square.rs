//! Squares (PDN 1..32), colours and the four diagonal directions, with their geometry tables.

use std::fmt;

/// One of the 32 dark squares. Index 0..32; PDN number = index + 1.
///
/// Row `index / 4` counts from Black's back rank (row 0 holds PDN 1..4) to White's (row 7, PDN 29..32).
/// On even rows the dark squares sit on columns 1,3,5,7, on odd rows on 0,2,4,6.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Number of dark squares, so of squares.
    pub const COUNT: usize = 32;

    /// The square with this index (0..32).
    #[inline]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 32 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square with this PDN number (1..=32).
    #[inline]
    pub const fn from_pdn(number: u8) -> Option<Square> {
        if number >= 1 && number <= 32 {
            Some(Square(number - 1))
        } else {
            None
        }
    }

    /// The square named by the text of its PDN number, `1` to `32` (digits only).
    pub fn parse_pdn(text: &str) -> Option<Square> {
        if text.is_empty() || text.len() > 2 || !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Square::from_pdn(text.parse().ok()?)
    }

    /// Index 0..32, for tables and bitboards.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// PDN number 1..=32.
    #[inline]
    pub const fn pdn(self) -> u8 {
        self.0 + 1
    }

    /// Row 0..8, counted from Black's back rank.
    #[inline]
    pub const fn row(self) -> u8 {
        self.0 / 4
    }

    /// Column 0..8 on the full 8x8 board.
    #[inline]
    pub const fn column(self) -> u8 {
        let k = self.0 % 4;
        if self.row() % 2 == 0 {
            2 * k + 1
        } else {
            2 * k
        }
    }

    /// The same square seen from the other side of the board (rotated 180 degrees).
    #[inline]
    pub const fn flipped(self) -> Square {
        Square(31 - self.0)
    }

    /// The diagonal neighbour in `dir`, if it is on the board.
    #[inline]
    pub fn neighbour(self, dir: Direction) -> Option<Square> {
        let n = NEIGHBOUR[dir as usize][self.index()];
        (n != NONE).then_some(Square(n))
    }

    /// The landing square of a jump in `dir` (two steps away), if it is on the board.
    #[inline]
    pub fn jump_target(self, dir: Direction) -> Option<Square> {
        let n = JUMP[dir as usize][self.index()];
        (n != NONE).then_some(Square(n))
    }

    /// All 32 squares in index order.
    pub fn all() -> impl ExactSizeIterator<Item = Square> {
        (0..32).map(Square)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Square({})", self.pdn())
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.pdn())
    }
}

/// The two sides. Black moves first; Black's men start on PDN 1..12 and move towards row 7.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    /// The side that moves first; its men start on 1..12.
    Black = 0,
    /// The side that moves second; its men start on 21..32.
    White = 1,
}

impl Color {
    /// The opponent.
    #[inline]
    pub const fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White (for arrays indexed by colour).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The directions this side's men move in.
    #[inline]
    pub const fn forward(self) -> [Direction; 2] {
        match self {
            Color::Black => [Direction::DownLeft, Direction::DownRight],
            Color::White => [Direction::UpLeft, Direction::UpRight],
        }
    }
}

/// A diagonal direction on the board as drawn with Black at the top (row 0).
/// "Down" is towards White's back rank (higher PDN numbers).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Direction {
    /// Towards row 0 (Black's back rank), to the left.
    UpLeft = 0,
    /// Towards row 0, to the right.
    UpRight = 1,
    /// Towards row 7 (White's back rank), to the left.
    DownLeft = 2,
    /// Towards row 7, to the right.
    DownRight = 3,
}

impl Direction {
    /// All four directions, in index order.
    pub const ALL: [Direction; 4] =
        [Direction::UpLeft, Direction::UpRight, Direction::DownLeft, Direction::DownRight];

    /// The direction with index `i & 3` (0..4, see [`Direction::index`]).
    #[inline]
    pub const fn from_index(i: u8) -> Direction {
        Direction::ALL[(i & 3) as usize]
    }

    /// 0..4, in the order of [`Direction::ALL`].
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The direction pointing back.
    #[inline]
    pub const fn opposite(self) -> Direction {
        Direction::from_index(3 - self as u8)
    }

    /// Whether a man of `color` moves in this direction.
    #[inline]
    pub const fn is_forward_for(self, color: Color) -> bool {
        let down = matches!(self, Direction::DownLeft | Direction::DownRight);
        down == matches!(color, Color::Black)
    }

    /// Row and column change of one step.
    #[inline]
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::UpLeft => (-1, -1),
            Direction::UpRight => (-1, 1),
            Direction::DownLeft => (1, -1),
            Direction::DownRight => (1, 1),
        }
    }
}

const NONE: u8 = u8::MAX;

const fn square_at(row: i8, col: i8) -> u8 {
    if row < 0 || row > 7 || col < 0 || col > 7 || (row + col) % 2 == 0 {
        NONE
    } else {
        (row * 4 + col / 2) as u8
    }
}

const fn build_table(distance: i8) -> [[u8; 32]; 4] {
    let mut table = [[NONE; 32]; 4];
    let mut d = 0;
    while d < 4 {
        let (dr, dc) = Direction::ALL[d].delta();
        let mut i = 0;
        while i < 32 {
            let sq = Square(i as u8);
            let row = sq.row() as i8 + dr * distance;
            let col = sq.column() as i8 + dc * distance;
            table[d][i] = square_at(row, col);
            i += 1;
        }
        d += 1;
    }
    table
}

static NEIGHBOUR: [[u8; 32]; 4] = build_table(1);
static JUMP: [[u8; 32]; 4] = build_table(2);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdn_geometry_matches_standard_openings() {
        let sq = |n| Square::from_pdn(n).unwrap();
        assert_eq!(sq(9).neighbour(Direction::DownLeft), Some(sq(13)));
        assert_eq!(sq(9).neighbour(Direction::DownRight), Some(sq(14)));
        assert_eq!(sq(12).neighbour(Direction::DownRight), None);
        assert_eq!(sq(12).neighbour(Direction::DownLeft), Some(sq(16)));
        assert_eq!(sq(21).neighbour(Direction::UpRight), Some(sq(17)));
        assert_eq!(sq(21).neighbour(Direction::UpLeft), None);
        assert_eq!(sq(15).jump_target(Direction::DownRight), Some(sq(24)));
        assert_eq!(sq(5).neighbour(Direction::DownRight), Some(sq(9)));
    }

    #[test]
    fn flip_is_a_rotation() {
        for sq in Square::all() {
            let f = sq.flipped();
            assert_eq!(f.row(), 7 - sq.row());
            assert_eq!(f.column(), 7 - sq.column());
            for dir in Direction::ALL {
                assert_eq!(sq.neighbour(dir).map(Square::flipped), f.neighbour(dir.opposite()));
            }
        }
    }
}
