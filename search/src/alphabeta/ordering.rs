//! Move ordering for the alpha-beta engine: the transposition table's move first, then captures
//! taking the most pieces, then (when the engine keeps them) the ply's killer moves, then the
//! quiet moves by the net's policy where it is asked (else crowning moves first), then by their
//! history score, then the rest in generation order.

use draughts::{Color, Move, MoveList, Position};
use smallvec::SmallVec;

/// Killer moves a ply keeps.
const KILLERS: usize = 2;
/// History scores stay below this.
const HISTORY_CAP: u64 = 1 << 24;

/// What the search learnt about quiet moves that cut off: the killers of each ply and the
/// history score of each (side, from, to).
#[derive(Clone, Debug)]
pub(crate) struct MoveHistory {
    killers: Vec<[Option<Move>; KILLERS]>,
    /// `[side][from][to]`: the sum of depth² over the cut-offs of that quiet move.
    scores: Vec<i32>,
}

impl MoveHistory {
    /// Empty history for a search of at most `plies` plies.
    pub fn new(plies: usize) -> MoveHistory {
        MoveHistory { killers: vec![[None; KILLERS]; plies + 1], scores: vec![0; 2 * 32 * 32] }
    }

    /// Starts a new search: killers are forgotten, history scores halved (recent counts more).
    pub fn new_search(&mut self) {
        self.killers.fill([None; KILLERS]);
        for score in &mut self.scores {
            *score /= 2;
        }
    }

    fn index(side: Color, mv: Move) -> usize {
        (side.index() * 32 + mv.from().index()) * 32 + mv.to().index()
    }

    /// The quiet move `mv` of `side` cut off at `ply` with `depth` plies left.
    pub fn cut_off(&mut self, side: Color, mv: Move, ply: usize, depth: i32, killers: bool) {
        if killers && self.killers[ply][0] != Some(mv) {
            self.killers[ply].rotate_right(1);
            self.killers[ply][0] = Some(mv);
        }
        let score = &mut self.scores[Self::index(side, mv)];
        let bonus = depth.max(1).saturating_mul(depth.max(1));
        *score = score.saturating_add(bonus).min(HISTORY_CAP as i32 - 1);
    }

    fn killer_rank(&self, ply: usize, mv: Move) -> usize {
        self.killers[ply].iter().position(|&k| k == Some(mv)).unwrap_or(KILLERS)
    }
}

/// How the quiet moves are ordered beyond crowning first.
#[derive(Clone, Copy)]
pub(crate) struct QuietOrder<'a> {
    pub history: &'a MoveHistory,
    pub ply: usize,
    pub killers: bool,
    pub by_history: bool,
    /// The net's score of each move, in the moves' order before sorting (higher first).
    pub policy: Option<&'a [f32]>,
}

/// Policy logits are ordered in steps of `1 / 2^POLICY_STEPS` over ±[`POLICY_RANGE`].
const POLICY_STEPS: u32 = 12;
const POLICY_RANGE: f32 = 64.0;

/// A policy logit as a key below 2^20 that sorts the higher logits first (NaN last).
fn policy_key(logit: f32) -> u64 {
    let top = (2.0 * POLICY_RANGE * (1u32 << POLICY_STEPS) as f32) as u64;
    let clamped =
        if logit.is_nan() { -POLICY_RANGE } else { logit.clamp(-POLICY_RANGE, POLICY_RANGE) };
    top - ((clamped + POLICY_RANGE) * (1u32 << POLICY_STEPS) as f32) as u64
}

/// The search order of a node's moves, best first: each move's rank (lower first) and its index
/// into the node's legal moves as generated.
#[derive(Default)]
pub(crate) struct Order(SmallVec<[(u64, usize); 32]>);

impl Order {
    /// The moves' indices into the legal moves, in the order they are searched.
    pub fn indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().map(|&(_, index)| index)
    }
}

/// `moves` best-first for the side to move in `position` (a stable sort, so deterministic), as
/// indices into `moves`, written into `order` (filled in place: a returned order would be
/// copied); `table_move` is the table's move as such an index. Each move's rank is computed
/// once, then the moves are sorted by it.
pub(crate) fn order(
    moves: &MoveList,
    position: &Position,
    table_move: Option<usize>,
    quiet: Option<QuietOrder<'_>>,
    order: &mut Order,
) {
    let side = position.side_to_move();
    let crown_row = Position::crown_row(side);
    let men = position.men(side);
    // Lower ranks first: not the table's move, then fewer jumps, then the killer rank, then the
    // policy's key from high to low logits (or not crowning), then the history score from high
    // to low (it stays below 2^24).
    let rank = |(i, mv): (usize, Move)| -> u64 {
        let from_table = Some(i) == table_move;
        let (killer, history, policy) = match quiet {
            Some(q) if !mv.is_capture() => (
                if q.killers { q.history.killer_rank(q.ply, mv) } else { KILLERS },
                if q.by_history { q.history.scores[MoveHistory::index(side, mv)] } else { 0 },
                q.policy.map(|logits| policy_key(logits[i])),
            ),
            _ => (KILLERS, 0, None),
        };
        let quiet_key = policy.unwrap_or_else(|| {
            let crowns = men.contains(mv.from()) && crown_row.contains(mv.to());
            u64::from(!crowns)
        });
        (u64::from(!from_table) << 60)
            | ((15 - mv.jump_count().min(15) as u64) << 52)
            | ((killer as u64) << 48)
            | (quiet_key << 24)
            | (HISTORY_CAP - history.clamp(0, HISTORY_CAP as i32) as u64)
    };
    let ranked = &mut order.0;
    ranked.clear();
    if moves.len() < 2 {
        ranked.extend((0..moves.len()).map(|index| (0, index)));
        return;
    }
    ranked.extend(moves.iter().copied().enumerate().map(|entry| (rank(entry), entry.0)));
    ranked.sort_by_key(|&(rank, _)| rank);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quiet_order<'a>(history: &'a MoveHistory, policy: Option<&'a [f32]>) -> QuietOrder<'a> {
        QuietOrder { history, ply: 0, killers: true, by_history: true, policy }
    }

    /// `generated` in the order the engine searches them.
    fn ordered(
        generated: &MoveList,
        position: &Position,
        table_move: Option<usize>,
        quiet: QuietOrder<'_>,
    ) -> Vec<Move> {
        let mut searched = Order::default();
        order(generated, position, table_move, Some(quiet), &mut searched);
        searched.indices().map(|i| generated[i]).collect()
    }

    #[test]
    fn the_policy_orders_the_quiet_moves_after_the_table_move() {
        let position = Position::start();
        let generated = position.legal_moves();
        // The policy likes the moves in the reverse of their generation order.
        let logits: Vec<f32> = (0..generated.len()).map(|i| -(i as f32) * 0.7).rev().collect();
        let history = MoveHistory::new(8);
        let moves = ordered(&generated, &position, None, quiet_order(&history, Some(&logits)));
        let reversed: Vec<Move> = generated.iter().rev().copied().collect();
        assert_eq!(moves, reversed);

        let table_move = generated[2];
        let moves = ordered(&generated, &position, Some(2), quiet_order(&history, Some(&logits)));
        assert_eq!(moves[0], table_move);
        let rest: Vec<Move> = reversed.into_iter().filter(|&mv| mv != table_move).collect();
        assert_eq!(moves[1..].to_vec(), rest);
    }

    #[test]
    fn a_killer_goes_before_the_policy_and_history_breaks_its_ties() {
        let position = Position::start();
        let generated = position.legal_moves();
        let mut history = MoveHistory::new(8);
        let side = position.side_to_move();
        history.cut_off(side, generated[0], 0, 5, true);
        history.cut_off(side, generated[3], 1, 9, false);
        // Equal logits everywhere: the killer first, then the move with history.
        let logits = vec![1.5f32; generated.len()];
        let moves = ordered(&generated, &position, None, quiet_order(&history, Some(&logits)));
        assert_eq!((moves[0], moves[1]), (generated[0], generated[3]));
        // NaN logits sort last and never panic.
        let mut logits = vec![0.0f32; generated.len()];
        logits[1] = f32::NAN;
        let moves = ordered(&generated, &position, None, quiet_order(&history, Some(&logits)));
        assert_eq!(moves.last(), Some(&generated[1]));
    }
}
