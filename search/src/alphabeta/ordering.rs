//! Move ordering for the alpha-beta engine: the transposition table's move first, then captures
//! taking the most pieces, then moves that crown, then the rest in generation order.

use draughts::{Move, MoveList, Position};

/// Sorts `moves` best-first for the side to move in `position` (stable, so deterministic).
pub(crate) fn order(moves: &mut MoveList, position: &Position, table_move: Option<Move>) {
    let crown_row = Position::crown_row(position.side_to_move());
    let men = position.men(position.side_to_move());
    moves.sort_by_key(|&mv| {
        let from_table = Some(mv) == table_move;
        let crowns = men.contains(mv.from()) && crown_row.contains(mv.to());
        (!from_table, std::cmp::Reverse(mv.jump_count()), !crowns)
    });
}
