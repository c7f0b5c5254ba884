//! The search of one node: draws, endgame tables, the capture quiescence, the transposition
//! table, move ordering, and the moves searched with principal-variation windows, late-move
//! reductions and verified pruning where the engine's settings ask for them.

use super::leaf::Leaves;
use super::ordering::{self, Order, QuietOrder};
use super::tt::Bound;
use super::{from_table, table_score, to_table, AlphaBeta, SearchFeatures, MAX_PLY, WIN, WON};
use crate::control::SearchControl;
use crate::tables::table_value;
use draughts::{Move, MoveList, Position};
use std::sync::LazyLock;

/// Moves searched at full depth before reductions may apply to the quiet ones after them.
const UNREDUCED_MOVES: usize = 3;
/// Depth from which late quiet moves are reduced.
const REDUCTION_DEPTH: i32 = 3;
/// Depth from which quiet moves are ordered by the net's policy (where the settings ask).
const POLICY_DEPTH: i32 = 2;
/// Deepest node whose leaf score may cut it off (static-null-move pruning, where the settings
/// ask).
const FUTILITY_DEPTH: i32 = 3;
/// Fewest plies left after a move for the verified pruning to try it.
const VERIFY_DEPTH: i32 = 3;
/// Plies shallower than the move's own search the verified pruning's search is.
const VERIFY_REDUCTION: i32 = 4;
/// Pieces on the board at or below which the verified pruning stays off: endings, where lines
/// are narrow and a win must be seen to its end.
const VERIFY_ENDING_PIECES: u32 = 6;

impl AlphaBeta {
    /// Negamax score of `position` (hash `hash`, `ply` plies below the root) for its side to
    /// move, searching `depth` more plies and then captures only, the quiet leaves scored by
    /// `leaves`. Fail-soft: a score outside the window bounds the true one.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn negamax<L: Leaves>(
        &mut self,
        position: &Position,
        hash: u64,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        control: Option<&SearchControl>,
        leaves: &mut L,
    ) -> Result<i32, L::Error> {
        self.pv[ply].clear();
        self.nodes += 1;
        if self.must_abort(control) {
            return Ok(0);
        }
        if ply > 0 && self.path.is_draw() {
            return Ok(0);
        }
        if ply > 0 {
            if let Some(wdl) = self.tables.as_deref().and_then(|t| table_value(t, position)) {
                return Ok(table_score(wdl, ply));
            }
        }
        // A leaf is told from its bitboards, without listing its moves.
        if (depth <= 0 || ply >= MAX_PLY) && !position.has_capture() {
            return if !position.has_simple_move() {
                Ok(-(WIN - ply as i32))
            } else {
                leaves.score(self, position)
            };
        }
        if ply >= MAX_PLY {
            return leaves.score(self, position);
        }
        // The table first: a cut-off by it needs no moves listed (a stored position has moves).
        let use_table = depth > 0 || self.features.capture_table;
        let entry = if use_table { self.table.probe(hash) } else { None };
        if let Some(entry) = entry.filter(|e| ply > 0 && e.depth >= depth) {
            let score = from_table(entry.score, ply);
            let usable = match entry.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if usable {
                return Ok(score);
            }
        }
        // Listed into the node's own list (a returned list would be copied).
        let mut moves = MoveList::new();
        position.for_each_legal_move(|mv| moves.push(mv));
        if moves.is_empty() {
            return Ok(-(WIN - ply as i32));
        }
        let quiet_node = !moves[0].is_capture();
        let features = self.features;
        let pv_node = beta - alpha > 1;
        if features.futility > 0 && quiet_node && !pv_node && ply > 0 && depth <= FUTILITY_DEPTH {
            if let Some(score) = self.futile(position, depth, beta, leaves)? {
                return Ok(score);
            }
        }
        let mut policy = Vec::new();
        let by_policy = features.policy
            && quiet_node
            && depth >= POLICY_DEPTH
            && moves.len() > 1
            && leaves.move_scores(position, &moves, &mut policy);
        let quiet = (features.killers || features.history || by_policy).then_some(QuietOrder {
            history: &self.history,
            ply,
            killers: features.killers,
            by_history: features.history,
            policy: by_policy.then_some(policy.as_slice()),
        });
        let table_move = entry.and_then(|e| e.best).filter(|&index| index < moves.len());
        let mut order = Order::default();
        ordering::order(&moves, position, table_move, quiet, &mut order);
        let original_alpha = alpha;
        let by_capture = self.path.reached_by_capture();
        let mut best: Option<(usize, i32)> = None;
        for (i, index) in order.indices().enumerate() {
            let mv = moves[index];
            let child = position.play_unchecked(mv);
            self.path.push(position, hash, mv);
            leaves.push(position, &child);
            let child_hash = self.path.hash();
            self.table.prefetch(child_hash);
            let extension = if features.extensions && depth > 0 {
                extension(position, &child, mv, depth, pv_node, by_capture)
            } else {
                0
            };
            let reduction =
                if quiet_node { late_move_reduction(&features, depth, i, pv_node) } else { 0 };
            let next = depth - 1 + extension;
            // Verified pruning: a move whose leaf score passes beta by the margin is tried with
            // a shallower search first, and not searched further when that confirms it.
            let prune_bar = beta.saturating_add(features.verified_pruning);
            let may_prune = features.verified_pruning > 0
                && !pv_node
                && next >= VERIFY_DEPTH
                && beta.abs() < WON
                && !child.has_capture()
                && child.occupied().count() > VERIFY_ENDING_PIECES
                && -leaves.score(self, &child)? >= prune_bar;
            let mut search = |engine: &mut AlphaBeta, depth: i32, alpha: i32, beta: i32| {
                engine
                    .negamax(&child, child_hash, depth, -beta, -alpha, ply + 1, control, leaves)
                    .map(|score| -score)
            };
            let verified = if may_prune {
                let shallow = (next - VERIFY_REDUCTION).max(1);
                Some(search(self, shallow, prune_bar, prune_bar + 1)?).filter(|&s| s > prune_bar)
            } else {
                None
            };
            let score = if let Some(score) = verified {
                score
            } else if i == 0 {
                search(self, next, alpha, beta)?
            } else {
                // A null window first (PVS), or the full one; a reduced depth first, then the
                // full depth when the move beats alpha; the full window again when a null
                // window's answer may be inside it.
                let first_beta = if features.pvs { alpha + 1 } else { beta };
                let mut score = search(self, next - reduction, alpha, first_beta)?;
                if reduction > 0 && score > alpha {
                    score = search(self, next, alpha, first_beta)?;
                }
                if features.pvs && score > alpha && score < beta {
                    score = search(self, next, alpha, beta)?;
                }
                score
            };
            leaves.pop();
            self.path.pop();
            if self.aborted {
                return Ok(0);
            }
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((index, score));
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if ply == 0 {
                        self.root_score = score;
                    }
                }
            }
            if alpha >= beta {
                if quiet_node && (features.killers || features.history) {
                    let side = position.side_to_move();
                    self.history.cut_off(side, mv, ply, depth, features.killers);
                }
                break;
            }
        }
        let (best_index, best_score) = best.expect("a position with moves has a best one");
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if use_table {
            self.table.store(hash, Some(best_index), to_table(best_score, ply), depth, bound);
        }
        Ok(best_score)
    }

    /// Static-null-move pruning at a quiet node (`position`, at the end of the path) with
    /// `depth` plies left: when its leaf score less the margin for `depth` plies still reaches
    /// `beta` (neither a proven result), the score halfway between the two, a cut-off.
    fn futile<L: Leaves>(
        &mut self,
        position: &Position,
        depth: i32,
        beta: i32,
        leaves: &mut L,
    ) -> Result<Option<i32>, L::Error> {
        if beta.abs() >= WON {
            return Ok(None);
        }
        let score = leaves.score(self, position)?;
        let lowered = score - self.features.futility * depth;
        Ok((lowered >= beta).then_some((lowered + beta) / 2))
    }
}

/// Plies the move `mv` from `position` to `child`, at a node with `depth` plies left, is searched
/// deeper by: one for a capture that answers a capture (the node was `reached_by_capture`) or lies
/// on the principal variation (`pv_node`), and one for a quiet move at the horizon after which its
/// side threatens a capture (so the leaf is not scored with a capture pending); none otherwise.
fn extension(
    position: &Position,
    child: &Position,
    mv: Move,
    depth: i32,
    pv_node: bool,
    reached_by_capture: bool,
) -> i32 {
    if mv.is_capture() {
        i32::from(pv_node || reached_by_capture)
    } else {
        let mover = position.side_to_move();
        i32::from(depth == 1 && child.with_side_to_move(mover).has_capture())
    }
}

/// Plies the quiet move `index` (in the searched order) of a node with `depth` plies left is
/// reduced by at first: none for the first moves or shallow nodes; one with `reductions`; with
/// `deep_reductions` also, `1 + ln(depth) · ln(index) / 2` rounded down, one less at a node of
/// the principal variation (`pv_node`), leaving at least one ply.
fn late_move_reduction(features: &SearchFeatures, depth: i32, index: usize, pv_node: bool) -> i32 {
    if !features.reductions || depth < REDUCTION_DEPTH || index < UNREDUCED_MOVES {
        return 0;
    }
    if !features.deep_reductions {
        return 1;
    }
    let scaled =
        DEEP_REDUCTIONS[(depth as usize).min(REDUCTION_TABLE - 1)][index.min(REDUCTION_TABLE - 1)];
    (1 + i32::from(scaled) - i32::from(pv_node)).clamp(1, depth - 2)
}

/// Depths and move indices [`DEEP_REDUCTIONS`] holds (larger ones read its last row or column).
const REDUCTION_TABLE: usize = 64;

/// `ln(depth) · ln(index) / 2` rounded down, by depth and move index: the deep reductions' extra
/// plies, worked out once instead of at every move.
static DEEP_REDUCTIONS: LazyLock<[[u8; REDUCTION_TABLE]; REDUCTION_TABLE]> = LazyLock::new(|| {
    let ln = |n: usize| (n.max(1) as f32).ln();
    std::array::from_fn(|depth| std::array::from_fn(|index| (ln(depth) * ln(index) / 2.0) as u8))
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_positions::{position, two_for_one_shot};
    use draughts::Color;

    /// The position after `moves` (move text) from `start`, and the last move played.
    fn play(start: Position, moves: &[&str]) -> (Position, Position, Move) {
        let mut before = start;
        let mut last = None;
        for text in moves {
            let mv = before.parse_move(text).unwrap();
            last = Some((before, mv));
            before = before.play_unchecked(mv);
        }
        let (parent, mv) = last.expect("a move");
        (parent, before, mv)
    }

    #[test]
    fn captures_that_answer_captures_or_lie_on_the_principal_variation_are_extended() {
        // 9-14 gives a man; White's 17x10 answers a quiet move; Black's 6x15x24 answers it.
        let (parent, child, take) = play(two_for_one_shot(), &["9-14", "17x10"]);
        assert_eq!(extension(&parent, &child, take, 5, false, false), 0);
        assert_eq!(extension(&parent, &child, take, 5, true, false), 1, "on the PV");
        let (parent, child, retake) = play(two_for_one_shot(), &["9-14", "17x10", "6x15x24"]);
        assert_eq!(extension(&parent, &child, retake, 5, false, true), 1, "a capture answered");
    }

    #[test]
    fn a_quiet_move_that_threatens_a_capture_is_extended_at_the_horizon_only() {
        // 10-14 threatens 14x23 over the man on 18; 10-15 threatens nothing (22 is taken).
        let start = position(&[10], &[18, 22], &[], Color::Black);
        let (parent, child, threat) = play(start, &["10-14"]);
        assert_eq!(extension(&parent, &child, threat, 1, false, false), 1);
        assert_eq!(extension(&parent, &child, threat, 2, false, false), 0, "not above the horizon");
        let (parent, child, quiet) = play(start, &["10-15"]);
        assert_eq!(extension(&parent, &child, quiet, 1, true, true), 0);
    }

    #[test]
    fn late_moves_of_deep_nodes_are_reduced_more() {
        let mut features = SearchFeatures::full();
        let r = |f: &SearchFeatures, depth, index, pv| late_move_reduction(f, depth, index, pv);
        (features.reductions, features.deep_reductions) = (false, false);
        assert_eq!(r(&features, 12, 9, false), 0, "no reductions without the setting");
        features.reductions = true;
        assert_eq!((r(&features, 2, 5, false), r(&features, 8, 2, false)), (0, 0));
        assert_eq!((r(&features, 3, 3, false), r(&features, 12, 9, false)), (1, 1));
        features.deep_reductions = true;
        assert_eq!((r(&features, 2, 5, false), r(&features, 8, 2, false)), (0, 0));
        assert_eq!(r(&features, 3, 3, false), 1, "at least one ply left");
        // 1 + ln 12 · ln 9 / 2 = 3.73.
        assert_eq!((r(&features, 12, 9, false), r(&features, 12, 9, true)), (3, 2));
        assert_eq!(r(&features, 4, 20, false), 2, "never below one ply left");
        for (depth, index) in [(3, 3), (5, 4), (9, 7), (20, 30)] {
            let reduction = r(&features, depth, index, false);
            assert!((1..=depth - 2).contains(&reduction), "{depth} {index}");
        }
    }
}
