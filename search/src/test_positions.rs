//! Test helpers: positions from PDN square lists, steps by PDN numbers, a known shot, and endgame
//! tables built once for the whole test run.

use draughts::{Bitboard, Color, Direction, Position, Square, Step};
use egdb::Tables;
use std::sync::{Arc, Mutex};

/// Tables for up to `pieces` pieces, built once (for each count) into a folder kept for the whole
/// test run.
pub(crate) fn tables_up_to(pieces: u32) -> Arc<Tables> {
    static BUILT: Mutex<Vec<(u32, tempfile::TempDir, Arc<Tables>)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, _, tables)) = built.iter().find(|(n, _, _)| *n == pieces) {
        return Arc::clone(tables);
    }
    let dir = tempfile::tempdir().unwrap();
    egdb::build(dir.path(), pieces, |_| {}).unwrap();
    let tables = Arc::new(Tables::open(dir.path()).unwrap());
    assert_eq!(tables.max_pieces(), pieces);
    built.push((pieces, dir, Arc::clone(&tables)));
    tables
}

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
