//! Game results by the endgame tables ("rescoring"): once a self-play game has ended, every
//! decision from the first position the tables cover onward takes its own position's exact value
//! as its result (and, at the start of a move, as its search value), and every decision before it
//! takes the value of that first table position. Unlike adjudication the game itself is played to
//! its end, so the net still trains on the endings; only their results, which a self-play net can
//! spoil (a won ending drawn by the no-progress rule, a blunder), become the best-play ones.

use draughts::Color;
use egdb::Tables;
use search::{table_winner, GameEnd, GameRecord};

/// Rescores `record` by `tables` (see the module header). Returns the decisions whose result
/// changed; 0 also when the game never reached a position the tables cover.
pub fn rescore(record: &mut GameRecord, tables: &Tables) -> usize {
    // The tables' winner at the start of each move (index = ply), once they cover the position.
    let mut winners: Vec<Option<Option<Color>>> = Vec::with_capacity(record.moves.len() + 1);
    let mut position = record.start;
    winners.push(table_winner(tables, &position));
    for &mv in &record.moves {
        position = position.play(mv);
        winners.push(table_winner(tables, &position));
    }
    let Some(first_ply) = winners.iter().position(Option::is_some) else { return 0 };
    let mut changed = 0;
    for decision in &mut record.decisions {
        let ply = (decision.ply as usize).max(first_ply);
        // Fewer pieces never leave the tables, so every later start is covered too.
        let Some(Some(winner)) = winners.get(ply) else { continue };
        let mover = decision.observation.position.side_to_move();
        let result = GameEnd::Tables { winner: *winner }.score_for(mover);
        if ply == decision.ply as usize && decision.observation.moving_piece.is_none() {
            decision.search_value = f32::from(result);
        }
        if result != decision.result {
            decision.result = result;
            changed += 1;
        }
    }
    changed
}

#[cfg(test)]
mod tests;
