//! Test helpers: positions from PDN square lists, steps by PDN numbers, a known shot.

use draughts::{Bitboard, Color, Direction, Position, Square, Step};

/// A position from PDN square numbers (men and kings of each side; `kings` lists the squares of
/// both sides' kings).
pub(crate) fn position(black: &[u8], white: &[u8], kings: &[u8], side: Color) -> Position {
    let board = |squares: &[u8]| {
        squares.iter().map(|&n| Square::from_pdn(n).expect("PDN 1..=32")).collect::<Bitboard>()
    };
    Position::new(board(black), board(white), board(kings), side).expect("a valid test position")
}

/// The step from PDN square `from` towards `dir`.
pub(crate) fn step(from: u8, dir: Direction) -> Step {
    Step { square: Square::from_pdn(from).expect("PDN 1..=32"), dir }
}

/// Black to move wins in three plies with a shot: 9-14 gives a man, White must take 17x10 (the
/// man on 1 stops it jumping on over 6), and Black's 6x15x24 takes both White men. The other
/// moves (1-5, 6-10, 9-13) win nothing at once.
pub(crate) fn two_for_one_shot() -> Position {
    position(&[1, 6, 9], &[17, 19], &[], Color::Black)
}

/// The first step of the shot in [`two_for_one_shot`]: 9-14.
pub(crate) fn shot_step() -> Step {
    step(9, Direction::DownRight)
}
