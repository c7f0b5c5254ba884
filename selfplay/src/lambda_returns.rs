//! Search values that look ahead in the played game (TD(λ) returns): once a self-play game has
//! ended, each decision's search value becomes the λ-return of the root values from it to the
//! game's end, `G_i = (1 - λ) q_i + λ G_{i+1}` (each term from the side to move at decision `i`),
//! with the game's result in place of `G` after the last decision. λ = 0 keeps each decision's
//! own root value; λ = 1 gives the result. Between the two, a decision learns what the searches
//! a few moves later made of its line, a value less noisy than one search's and nearer than the
//! result (KataGo's short-term value targets are such averages).

use search::GameRecord;

/// Replaces every decision's search value in `record` by its λ-return (see the module header).
pub fn apply(record: &mut GameRecord, lambda: f32) {
    // The λ-return after the current decision, from the side to move at the one after it.
    let mut later: Option<(draughts::Color, f32)> = None;
    for decision in record.decisions.iter_mut().rev() {
        let mover = decision.observation.position.side_to_move();
        let next = match later {
            Some((side, value)) if side == mover => value,
            Some((_, value)) => -value,
            None => f32::from(decision.result),
        };
        decision.search_value = (1.0 - lambda) * decision.search_value + lambda * next;
        later = Some((mover, decision.search_value));
    }
}

#[cfg(test)]
mod tests;
