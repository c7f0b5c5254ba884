//! Move ordering for the alpha-beta engine: the transposition table's move first, then captures
//! taking the most pieces, then (when the engine keeps them) the ply's killer moves and the quiet
//! moves by their history score, then moves that crown, then the rest in generation order.

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
}

/// Sorts `moves` best-first for the side to move in `position` (stable, so deterministic): each
/// move's rank is computed once, then the moves are sorted by it.
pub(crate) fn order(
    moves: &mut MoveList,
    position: &Position,
    table_move: Option<Move>,
    quiet: Option<QuietOrder<'_>>,
) {
    if moves.len() < 2 {
        return;
    }
    let side = position.side_to_move();
    let crown_row = Position::crown_row(side);
    let men = position.men(side);
    // Lower ranks first: not the table's move, then fewer jumps, then the killer rank, then not
    // crowning, then the history score from high to low (it stays below 2^24).
    let rank = |mv: Move| -> u64 {
        let from_table = Some(mv) == table_move;
        let crowns = men.contains(mv.from()) && crown_row.contains(mv.to());
        let (killer, history) = match quiet {
            Some(q) if !mv.is_capture() => (
                if q.killers { q.history.killer_rank(q.ply, mv) } else { KILLERS },
                if q.by_history { q.history.scores[MoveHistory::index(side, mv)] } else { 0 },
            ),
            _ => (KILLERS, 0),
        };
        (u64::from(!from_table) << 60)
            | ((15 - mv.jump_count().min(15) as u64) << 52)
            | ((killer as u64) << 48)
            | (u64::from(!crowns) << 44)
            | (HISTORY_CAP - history.clamp(0, HISTORY_CAP as i32) as u64)
    };
    let mut ranked: SmallVec<[(u64, Move); 32]> = moves.iter().map(|&mv| (rank(mv), mv)).collect();
    ranked.sort_by_key(|&(rank, _)| rank);
    for (slot, (_, mv)) in moves.iter_mut().zip(ranked) {
        *slot = mv;
    }
}
