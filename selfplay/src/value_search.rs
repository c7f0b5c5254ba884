//! Value targets from the alpha-beta engine: once a self-play game has ended, the full engine
//! (the net at its quiet leaves, incrementally, and the run's endgame tables) searches each
//! decision at the start of a move within a node budget, and its score replaces the MCTS root's
//! value as that decision's search value. Alpha-beta resolves the tactics a few hundred MCTS
//! visits leave open, so the value head learns from a deeper look than its own search's.
//! Decisions in the middle of a capture keep the root's value (the engine searches whole moves).

use draughts::{DrawRules, Game};
use egdb::Tables;
use search::alphabeta::{value_of_score, AlphaBeta, AlphaBetaConfig, LeafEvaluator, Limit};
use search::GameRecord;
use std::sync::Arc;

/// Table entries of a worker's engine: 2^18 (4 MB), as a match's full engine.
const TABLE_BITS: u8 = 18;

/// The engine that scores one worker's finished games.
#[derive(Debug)]
pub struct ValueSearch {
    engine: AlphaBeta,
    nodes: u64,
}

impl ValueSearch {
    /// An engine searching `nodes` nodes a decision (at least depth 1), the positions `tables`
    /// cover scored by them.
    pub fn new(nodes: u64, tables: Option<Arc<Tables>>) -> ValueSearch {
        let engine = AlphaBeta::new(&AlphaBetaConfig::full(TABLE_BITS)).with_tables(tables);
        ValueSearch { engine, nodes }
    }

    /// Replays `record` under `draw_rules` and sets the search value of each decision at the
    /// start of a move to the engine's score there, with `leaves` scoring the quiet leaves.
    /// Returns the decisions scored.
    pub fn score(
        &mut self,
        record: &mut GameRecord,
        draw_rules: DrawRules,
        leaves: &mut dyn LeafEvaluator,
    ) -> usize {
        let mut game = Game::new(record.start, draw_rules);
        let mut moves = record.moves.iter();
        let mut scored = 0;
        for decision in &mut record.decisions {
            while (game.ply() as u32) < decision.ply {
                let Some(&mv) = moves.next() else { return scored };
                game.play_unchecked(mv);
            }
            if decision.observation.moving_piece.is_some() {
                continue;
            }
            debug_assert_eq!(decision.observation.position, *game.position());
            let limit = Limit::Nodes(self.nodes);
            let best =
                self.engine.best_move_parallel(&game, limit, None, &mut |_| {}, leaves, &mut []);
            if let Some(best) = best {
                decision.search_value = value_of_score(best.score);
                scored += 1;
            }
        }
        scored
    }
}

#[cfg(test)]
mod tests;
