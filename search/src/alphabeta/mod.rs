//! A classic alpha-beta engine over whole moves: the fixed, deterministic baseline opponent.
//!
//! Negamax with alpha-beta, iterative deepening (depth- or time-limited), a transposition table,
//! move ordering (table move, then the captures taking most, then crowning moves), a capture
//! quiescence (a position with a capture to make is never scored statically) and repetition of
//! the game history or the search path scored as a draw. For a depth limit the answer depends only
//! on the game.
//!
//! Quiet leaves get the static evaluation, or with [`AlphaBeta::best_move_evaluated`] an
//! evaluator's (a net's) value, mapped to a score by [`score_of_value`]. Captures are still
//! resolved by the quiescence and wins and losses by the search, so the net judges only quiet
//! positions.

mod eval;
mod leaf;
mod ordering;
mod tt;

pub use leaf::{score_of_value, value_of_score, NET_SCORE_LIMIT, WON};

use crate::control::SearchControl;
use crate::decision::no_progress_after;
use crate::error::SearchError;
use crate::evaluator::Evaluator;
use draughts::{DrawRules, Game, Move, Observation, Position};
use leaf::{Leaves, NetValue, StaticEval};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use tt::{Bound, Table};

/// Score of a won position, less the plies to the win (a quicker win scores higher).
pub const WIN: i32 = 30_000;
/// Deepest ply the search reaches (nominal depth plus capture quiescence).
const MAX_PLY: usize = 128;
/// Scores beyond this are wins or losses found by search.
const WIN_THRESHOLD: i32 = WIN - MAX_PLY as i32;
/// Nodes between two looks at the clock.
const CLOCK_INTERVAL: u64 = 1024;

/// Settings of the alpha-beta engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AlphaBetaConfig {
    /// The transposition table has `2^tt_bits` entries (about 32 bytes each).
    pub tt_bits: u8,
}

impl Default for AlphaBetaConfig {
    fn default() -> Self {
        AlphaBetaConfig { tt_bits: 18 }
    }
}

/// When to stop deepening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Search every depth up to this one (at least 1). Deterministic.
    Depth(u32),
    /// Deepen until this much time has passed; the deepest completed iteration answers. Depth 1
    /// always completes.
    Time(Duration),
    /// Deepen until this many nodes are searched (an iteration past it is cut short); depth 1
    /// always completes. Deterministic.
    Nodes(u64),
}

/// The engine's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// The move to play.
    pub mv: Move,
    /// Score for the side to move, in hundredths of a man; `WIN - n` is a win in `n` plies.
    pub score: i32,
    /// Principal variation, starting with `mv`.
    pub pv: Vec<Move>,
    /// Depth of the iteration that produced this answer.
    pub depth: u32,
    /// Nodes searched in all iterations.
    pub nodes: u64,
}

/// The alpha-beta engine; keep one per player to reuse its table's memory.
#[derive(Clone, Debug)]
pub struct AlphaBeta {
    table: Table,
    /// Hashes of the positions on the game and search path; `path[i]` is the position `i` plies
    /// after the game's start.
    path: Vec<u64>,
    /// Plies since the last capture or man's move, for each entry of `path`.
    no_progress: Vec<u16>,
    rules: DrawRules,
    /// Principal variation found at each ply (triangular table).
    pv: Vec<Vec<Move>>,
    nodes: u64,
    deadline: Option<Instant>,
    /// Node budget of the search, if any.
    max_nodes: Option<u64>,
    /// Whether the clock may stop the current iteration (never the first).
    may_abort: bool,
    aborted: bool,
}

impl AlphaBeta {
    /// An engine with an empty transposition table of the configured size.
    pub fn new(config: &AlphaBetaConfig) -> AlphaBeta {
        AlphaBeta {
            table: Table::new(config.tt_bits),
            path: Vec::new(),
            no_progress: Vec::new(),
            rules: DrawRules::default(),
            pv: vec![Vec::new(); MAX_PLY + 1],
            nodes: 0,
            deadline: None,
            max_nodes: None,
            may_abort: false,
            aborted: false,
        }
    }

    /// The best move in `game`'s position; `None` when the side to move has no move. Repetitions
    /// of the game's positions count as draws, as do the no-progress rule's.
    pub fn best_move(&mut self, game: &Game, limit: Limit) -> Option<BestMove> {
        self.best_move_controlled(game, limit, None, &mut |_| {})
    }

    /// [`AlphaBeta::best_move`], also ended early by `control` (a stop, or its deadline; depth 1
    /// always completes), with `on_iteration` told each completed iteration's answer.
    pub fn best_move_controlled(
        &mut self,
        game: &Game,
        limit: Limit,
        control: Option<&SearchControl>,
        on_iteration: &mut dyn FnMut(&BestMove),
    ) -> Option<BestMove> {
        let Ok(best) = self.search(game, limit, control, on_iteration, &mut StaticEval);
        best
    }

    /// [`AlphaBeta::best_move_controlled`] with `evaluator`'s value of each quiet leaf (one
    /// request per leaf, the observation's counters from the game and the search path) in place
    /// of the static evaluation. Fails when the evaluator does, or answers with no usable value.
    pub fn best_move_evaluated<E: Evaluator + ?Sized>(
        &mut self,
        game: &Game,
        limit: Limit,
        control: Option<&SearchControl>,
        on_iteration: &mut dyn FnMut(&BestMove),
        evaluator: &mut E,
    ) -> Result<Option<BestMove>, SearchError> {
        self.search(game, limit, control, on_iteration, &mut NetValue(evaluator))
    }

    /// The iterative deepening, its quiet leaves scored by `leaves`.
    fn search<L: Leaves>(
        &mut self,
        game: &Game,
        limit: Limit,
        control: Option<&SearchControl>,
        on_iteration: &mut dyn FnMut(&BestMove),
        leaves: &mut L,
    ) -> Result<Option<BestMove>, L::Error> {
        let position = *game.position();
        let moves = position.legal_moves();
        let Some(&first) = moves.first() else {
            return Ok(None);
        };
        self.start(game, limit);
        let max_depth = match limit {
            Limit::Depth(depth) => depth.max(1),
            Limit::Time(_) | Limit::Nodes(_) => MAX_PLY as u32 / 2,
        };
        let mut best = BestMove { mv: first, score: 0, pv: vec![first], depth: 0, nodes: 0 };
        for depth in 1..=max_depth {
            self.may_abort = depth > 1;
            let score = self.negamax(
                &position,
                game.hash(),
                depth as i32,
                -WIN - 1,
                WIN + 1,
                0,
                control,
                leaves,
            )?;
            if self.aborted {
                break;
            }
            let pv = self.pv[0].clone();
            best = BestMove { mv: pv[0], score, pv, depth, nodes: self.nodes };
            on_iteration(&best);
            let spent = self.max_nodes.is_some_and(|max| self.nodes >= max);
            if score.abs() >= WIN_THRESHOLD || spent || control.is_some_and(|c| c.should_stop()) {
                break;
            }
        }
        best.nodes = self.nodes;
        Ok(Some(best))
    }

    /// The best move in `position` as the start of a game (no history) under default draw rules.
    pub fn best_move_in(&mut self, position: &Position, limit: Limit) -> Option<BestMove> {
        self.best_move(&Game::new(*position, DrawRules::default()), limit)
    }

    fn start(&mut self, game: &Game, limit: Limit) {
        self.table.new_search();
        self.rules = game.rules();
        self.nodes = 0;
        self.aborted = false;
        self.deadline = match limit {
            Limit::Time(time) => Some(Instant::now() + time),
            Limit::Depth(_) | Limit::Nodes(_) => None,
        };
        self.max_nodes = match limit {
            Limit::Nodes(nodes) => Some(nodes),
            Limit::Depth(_) | Limit::Time(_) => None,
        };
        self.path.clear();
        self.no_progress.clear();
        let mut replay = Game::new(*game.start(), game.rules());
        self.path.push(replay.hash());
        self.no_progress.push(replay.no_progress_plies());
        for &mv in game.moves() {
            replay.play_unchecked(mv);
            self.path.push(replay.hash());
            self.no_progress.push(replay.no_progress_plies());
        }
    }

    /// Negamax score of `position` (hash `hash`, `ply` plies below the root) for its side to
    /// move, searching `depth` more plies and then captures only, the quiet leaves scored by
    /// `leaves`.
    #[allow(clippy::too_many_arguments)]
    fn negamax<L: Leaves>(
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
        if ply > 0 && self.is_draw() {
            return Ok(0);
        }
        let mut moves = position.legal_moves();
        if moves.is_empty() {
            return Ok(-(WIN - ply as i32));
        }
        let quiescent = depth <= 0 && !moves[0].is_capture();
        if quiescent || ply >= MAX_PLY {
            return leaves.score(self, position);
        }
        let entry = self.table.probe(hash);
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
        ordering::order(&mut moves, position, entry.and_then(|e| e.best));
        let original_alpha = alpha;
        let mut best: Option<(Move, i32)> = None;
        for mv in moves {
            let child = position.play_unchecked(mv);
            self.push(position, hash, mv);
            let score = -self.negamax(
                &child,
                *self.path.last().expect("just pushed"),
                depth - 1,
                -beta,
                -alpha,
                ply + 1,
                control,
                leaves,
            )?;
            self.pop();
            if self.aborted {
                return Ok(0);
            }
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((mv, score));
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                }
            }
            if alpha >= beta {
                break;
            }
        }
        let (best_move, best_score) = best.expect("a position with moves has a best one");
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.table.store(hash, Some(best_move), to_table(best_score, ply), depth, bound);
        Ok(best_score)
    }

    fn push(&mut self, position: &Position, hash: u64, mv: Move) {
        let last = *self.no_progress.last().expect("the path starts with the game's start");
        self.no_progress.push(no_progress_after(position, mv, last));
        self.path.push(position.hash_after(hash, mv));
    }

    fn pop(&mut self) {
        self.path.pop();
        self.no_progress.pop();
    }

    /// Whether the position at the end of the path is a draw: it occurred before (one repetition
    /// is enough inside the search) or the no-progress rule applies.
    fn is_draw(&self) -> bool {
        let no_progress = *self.no_progress.last().expect("the path is never empty");
        if self.rules.no_progress_moves > 0 && no_progress >= 2 * self.rules.no_progress_moves {
            return true;
        }
        self.rules.repetitions > 0 && self.earlier_occurrences().next().is_some()
    }

    /// The earlier occurrences on the path of the position at its end (as
    /// `draughts::Game::repetitions` counts them: same side to move, since the last irreversible
    /// move).
    fn earlier_occurrences(&self) -> impl Iterator<Item = &u64> {
        let no_progress = *self.no_progress.last().expect("the path is never empty");
        let hash = *self.path.last().expect("the path is never empty");
        self.path
            .iter()
            .rev()
            .take(no_progress as usize + 1)
            .skip(2)
            .step_by(2)
            .filter(move |&&h| h == hash)
    }

    /// What a net sees at `position`, the position at the end of the path, at the start of a
    /// move: its no-progress count and repetitions from the game and the search path.
    fn observation(&self, position: &Position) -> Observation {
        let repetitions = u8::try_from(self.earlier_occurrences().count()).unwrap_or(u8::MAX);
        let no_progress = *self.no_progress.last().expect("the path is never empty");
        Observation::at_move_start(*position, no_progress, repetitions)
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        line.extend_from_slice(&tail[0]);
    }

    /// Whether the current iteration must end: past the deadline or the node budget, or stopped
    /// from outside (never the first iteration; the clock and the control are read every
    /// `CLOCK_INTERVAL` nodes).
    fn must_abort(&mut self, control: Option<&SearchControl>) -> bool {
        if self.may_abort && !self.aborted {
            let over_budget = self.max_nodes.is_some_and(|max| self.nodes >= max);
            let checkpoint = self.nodes % CLOCK_INTERVAL == 0;
            let late =
                checkpoint && self.deadline.is_some_and(|deadline| Instant::now() >= deadline);
            let stopped = checkpoint && control.is_some_and(|c| c.should_stop());
            self.aborted = over_budget || late || stopped;
        }
        self.aborted
    }
}

/// Win/loss scores are stored relative to the node, not the root, so they stay true elsewhere.
fn to_table(score: i32, ply: usize) -> i32 {
    match score {
        s if s >= WIN_THRESHOLD => s + ply as i32,
        s if s <= -WIN_THRESHOLD => s - ply as i32,
        s => s,
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    match score {
        s if s >= WIN_THRESHOLD => s - ply as i32,
        s if s <= -WIN_THRESHOLD => s + ply as i32,
        s => s,
    }
}

#[cfg(test)]
mod tests;
