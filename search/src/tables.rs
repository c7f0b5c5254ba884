//! What the endgame tables say about a position at the start of a move, for the search, the
//! self-play game driver (the `selfplay` crate's) and match adjudication alike.

use draughts::{Color, Position};
use egdb::{Probe, Tables, Wdl};

/// The tables' value of `position` for its side to move, when it has at most
/// [`Tables::max_pieces`] pieces and they cover it.
pub fn table_value(tables: &Tables, position: &Position) -> Option<Wdl> {
    if position.occupied().count() > tables.max_pieces() {
        return None;
    }
    tables.probe(position)
}

/// The tables' answer for `position` with a move to play (for a win the quickest, for a loss the
/// slowest, when distances are stored), when they cover it (see [`table_value`]) and the side
/// to move has a move.
pub fn table_probe(tables: &Tables, position: &Position) -> Option<Probe> {
    table_value(tables, position)?;
    tables.best_move(position).filter(|probe| probe.best.is_some())
}

/// The game's result by the tables: `Some(winner)`, with `winner` `None` for a draw; `None` when
/// they do not cover `position` (see [`table_value`]).
pub fn table_winner(tables: &Tables, position: &Position) -> Option<Option<Color>> {
    let mover = position.side_to_move();
    Some(match table_value(tables, position)? {
        Wdl::Win => Some(mover),
        Wdl::Loss => Some(mover.other()),
        Wdl::Draw => None,
    })
}
