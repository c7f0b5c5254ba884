//! An alpha-beta engine over whole moves: the fixed, deterministic baseline opponent with its
//! classic settings, and the engine that runs a net at its leaves with the full ones
//! ([`AlphaBetaConfig`]).
//!
//! Negamax with alpha-beta, iterative deepening (depth- or time-limited), a transposition table,
//! move ordering (table move, then the captures taking most, then crowning moves), a capture
//! quiescence (a position with a capture to make is never scored statically) and repetition of
//! the game history or the search path scored as a draw. The refinements, each on its own switch
//! ([`SearchFeatures`]): principal-variation search with aspiration windows at the root, killer
//! moves and the history heuristic, a table kept from move to move, late-move reductions,
//! extensions of captures and of threats at the horizon, static-null-move pruning, and forced
//! moves answered at once. With endgame tables ([`AlphaBeta::with_tables`]) every position
//! they cover is scored by them inside the search, and a root they cover is answered by their
//! move. With the classic settings the answer for a depth limit depends only on the game.
//!
//! Quiet leaves get the static evaluation, an evaluator's (a net's) value with
//! [`AlphaBeta::best_move_evaluated`], or a [`LeafEvaluator`]'s that follows the search move by
//! move with [`AlphaBeta::best_move_parallel`], mapped to a score by [`score_of_value`].
//! Captures are still resolved by the quiescence and wins and losses by the search, so the net
//! judges only quiet positions.

mod config;
mod eval;
mod leaf;
mod node;
mod ordering;
mod path;
mod smp;
mod timing;
mod tt;

pub use config::{AlphaBetaConfig, SearchFeatures};
pub use leaf::{score_of_value, value_of_score, LeafEvaluator, NET_SCORE_LIMIT, WON};

use crate::control::SearchControl;
use crate::error::SearchError;
use crate::evaluator::Evaluator;
use crate::tables::table_probe;
use draughts::{DrawRules, Game, Move, Position};
use egdb::{Tables, Wdl};
use leaf::{Leaves, NetValue};
use ordering::MoveHistory;
use path::SearchPath;
use std::sync::Arc;
use std::time::{Duration, Instant};
use timing::MoveTimer;
use tt::Table;

/// Score of a won position, less the plies to the win (a quicker win scores higher).
pub const WIN: i32 = 30_000;
/// Deepest ply the search reaches (nominal depth plus capture quiescence).
const MAX_PLY: usize = 128;
/// Scores beyond this are wins or losses found by search.
const WIN_THRESHOLD: i32 = WIN - MAX_PLY as i32;
/// Nodes between two looks at the clock.
const CLOCK_INTERVAL: u64 = 1024;
/// Score of a position the endgame tables call won, less the plies to it: a proven result, but
/// not a win in a known number of plies (below [`WIN_THRESHOLD`], at or above [`WON`]).
const TABLE_WIN: i32 = WON + 500;
/// Iterations from which the root searches in an aspiration window.
const ASPIRATION_FROM_DEPTH: u32 = 4;

const _: () = assert!(TABLE_WIN - MAX_PLY as i32 >= WON && TABLE_WIN < WIN_THRESHOLD);

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
    /// A move under a game clock: about `target`, never more than `most` (an iteration is cut
    /// short there). With [`SearchFeatures::time_management`] the engine begins no iteration
    /// once its answer has had time enough, less when the answer has settled and more when it
    /// just changed; without, this is `Time(target)`. Depth 1 always completes.
    Clock {
        /// About what the move should take.
        target: Duration,
        /// The most it may take.
        most: Duration,
    },
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
#[derive(Debug)]
pub struct AlphaBeta {
    /// Shared with the helper engines of a search on several threads.
    table: Arc<Table>,
    /// Engines that search the same root on other threads (`SearchFeatures::threads` less one),
    /// sharing the table; a helper has none.
    helpers: Vec<AlphaBeta>,
    /// Whether this engine is a helper: its search leaves the table's generation to the main one.
    is_helper: bool,
    /// The game and the search up to the node being searched.
    path: SearchPath,
    /// Principal variation found at each ply (triangular table).
    pv: Vec<Vec<Move>>,
    nodes: u64,
    deadline: Option<Instant>,
    /// When a move under a clock has had time enough (the main engine's, with time management).
    timer: Option<MoveTimer>,
    /// Node budget of the search, if any.
    max_nodes: Option<u64>,
    /// Whether the clock may stop the current iteration (never the first).
    may_abort: bool,
    aborted: bool,
    features: SearchFeatures,
    /// Killer moves and history scores.
    history: MoveHistory,
    /// Endgame tables that score the positions they cover.
    tables: Option<Arc<Tables>>,
    /// The score of the root's move in `pv[0]`, set as the root finds it.
    root_score: i32,
}

impl AlphaBeta {
    /// An engine with an empty transposition table of the configured size.
    pub fn new(config: &AlphaBetaConfig) -> AlphaBeta {
        let table = Arc::new(Table::new(config.tt_bits, config.features.keep_table));
        AlphaBeta::sharing(table, config.features).with_helpers()
    }

    /// An engine without helpers over `table`.
    fn sharing(table: Arc<Table>, features: SearchFeatures) -> AlphaBeta {
        AlphaBeta {
            table,
            helpers: Vec::new(),
            is_helper: false,
            path: SearchPath::default(),
            pv: vec![Vec::new(); MAX_PLY + 1],
            nodes: 0,
            deadline: None,
            timer: None,
            max_nodes: None,
            may_abort: false,
            aborted: false,
            features,
            history: MoveHistory::new(MAX_PLY),
            tables: None,
            root_score: 0,
        }
    }

    /// The same engine with the refinements `features`; its table keeps or forgets its entries
    /// as they say.
    pub fn with_features(mut self, features: SearchFeatures) -> AlphaBeta {
        if features.keep_table != self.features.keep_table {
            self.table = Arc::new(Table::new(self.table.bits(), features.keep_table));
        }
        self.features = features;
        self.with_helpers()
    }

    /// The same engine, scoring the positions `tables` cover by them.
    pub fn with_tables(mut self, tables: Option<Arc<Tables>>) -> AlphaBeta {
        for helper in &mut self.helpers {
            helper.tables = tables.clone();
        }
        self.tables = tables;
        self
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
        self.search_static(game, limit, control, on_iteration)
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

    /// The iterative deepening on this thread alone, its quiet leaves scored by `leaves`.
    fn search<L: Leaves>(
        &mut self,
        game: &Game,
        limit: Limit,
        control: Option<&SearchControl>,
        on_iteration: &mut dyn FnMut(&BestMove),
        leaves: &mut L,
    ) -> Result<Option<BestMove>, L::Error> {
        let Some(root) = self.begin(game, limit, on_iteration) else {
            return Ok(None);
        };
        let best = match root {
            Root::Answered(best) => best,
            Root::Search(root) => {
                leaves.start(&root.position);
                self.deepen(&root, 0, control, on_iteration, leaves)?
            }
        };
        Ok(Some(best))
    }

    /// The root of a search: `None` when the side to move has no move, its answer when the
    /// endgame tables give one (told to `on_iteration`); else the search started.
    fn begin(
        &mut self,
        game: &Game,
        limit: Limit,
        on_iteration: &mut dyn FnMut(&BestMove),
    ) -> Option<Root> {
        let position = *game.position();
        let moves = position.legal_moves();
        let first = *moves.first()?;
        if let Some(best) = self.table_answer(&position) {
            on_iteration(&best);
            return Some(Root::Answered(best));
        }
        self.start(game, limit);
        let max_depth = match limit {
            _ if self.features.instant_forced && moves.len() == 1 => 1,
            Limit::Depth(depth) => depth.max(1),
            Limit::Time(_) | Limit::Nodes(_) | Limit::Clock { .. } => MAX_PLY as u32 / 2,
        };
        Some(Root::Search(RootSearch { position, hash: game.hash(), first, max_depth }))
    }

    /// Deepens `root`'s search iteration by iteration, each `skew` plies deeper than its number
    /// (a helper's, so that the threads do not all search the same depth), until the last depth,
    /// the limit or a stop.
    fn deepen<L: Leaves>(
        &mut self,
        root: &RootSearch,
        skew: u32,
        control: Option<&SearchControl>,
        on_iteration: &mut dyn FnMut(&BestMove),
        leaves: &mut L,
    ) -> Result<BestMove, L::Error> {
        let first = root.first;
        let mut best = BestMove { mv: first, score: 0, pv: vec![first], depth: 0, nodes: 0 };
        for depth in 1 + skew..=root.max_depth {
            self.may_abort = depth > 1;
            let score = self.root_search(root, depth, best.score, control, leaves)?;
            if self.aborted {
                // A move the cut iteration searched to the end and found better than alpha (so
                // better than the last iteration's move, searched first) is played instead.
                if self.features.partial_iterations && !self.pv[0].is_empty() {
                    let pv = self.pv[0].clone();
                    best = BestMove { mv: pv[0], score: self.root_score, pv, depth, nodes: 0 };
                }
                break;
            }
            let pv = self.pv[0].clone();
            best = BestMove { mv: pv[0], score, pv, depth, nodes: self.nodes };
            on_iteration(&best);
            let spent = self.max_nodes.is_some_and(|max| self.nodes >= max);
            let enough = self.timer.as_mut().is_some_and(|timer| timer.enough(best.mv, score));
            let stopped = control.is_some_and(|c| c.should_stop());
            if score.abs() >= WIN_THRESHOLD || spent || enough || stopped {
                break;
            }
        }
        best.nodes = self.nodes;
        Ok(best)
    }

    /// One iteration at the root: in the full window, or (with aspiration windows, from
    /// [`ASPIRATION_FROM_DEPTH`] on) in a window around the last iteration's score `last`,
    /// widened fourfold on each side it fails.
    fn root_search<L: Leaves>(
        &mut self,
        root: &RootSearch,
        depth: u32,
        last: i32,
        control: Option<&SearchControl>,
        leaves: &mut L,
    ) -> Result<i32, L::Error> {
        let (position, hash) = (&root.position, root.hash);
        let full = (-WIN - 1, WIN + 1);
        let width = self.features.aspiration;
        if width <= 0 || depth < ASPIRATION_FROM_DEPTH || last.abs() >= WON {
            return self.negamax(position, hash, depth as i32, full.0, full.1, 0, control, leaves);
        }
        let (mut below, mut above) = (width, width);
        loop {
            let (alpha, beta) = (last - below, last + above);
            let window = if below > NET_SCORE_LIMIT || above > NET_SCORE_LIMIT {
                full
            } else {
                (alpha, beta)
            };
            let score =
                self.negamax(position, hash, depth as i32, window.0, window.1, 0, control, leaves)?;
            if self.aborted || window == full {
                return Ok(score);
            }
            if score <= window.0 {
                below *= 4;
            } else if score >= window.1 {
                above *= 4;
            } else {
                return Ok(score);
            }
        }
    }

    /// The endgame tables' answer at a root they cover: their move (for a win the quickest) with
    /// its proven score.
    fn table_answer(&self, position: &Position) -> Option<BestMove> {
        let probe = table_probe(self.tables.as_deref()?, position)?;
        let mv = probe.best?;
        let score = table_score(probe.wdl, 0);
        Some(BestMove { mv, score, pv: vec![mv], depth: 0, nodes: 0 })
    }

    /// The best move in `position` as the start of a game (no history) under default draw rules.
    pub fn best_move_in(&mut self, position: &Position, limit: Limit) -> Option<BestMove> {
        self.best_move(&Game::new(*position, DrawRules::default()), limit)
    }

    fn start(&mut self, game: &Game, limit: Limit) {
        if !self.is_helper {
            self.table.new_search();
        }
        self.history.new_search();
        self.nodes = 0;
        self.aborted = false;
        let managed = self.features.time_management;
        self.deadline = match limit {
            Limit::Time(time) => Some(Instant::now() + time),
            Limit::Clock { most, .. } if managed => Some(Instant::now() + most),
            Limit::Clock { target, .. } => Some(Instant::now() + target),
            Limit::Depth(_) | Limit::Nodes(_) => None,
        };
        self.timer = match limit {
            Limit::Clock { target, .. } if managed && !self.is_helper => {
                Some(MoveTimer::new(target))
            }
            _ => None,
        };
        self.max_nodes = match limit {
            Limit::Nodes(nodes) => Some(nodes),
            Limit::Depth(_) | Limit::Time(_) | Limit::Clock { .. } => None,
        };
        self.path.start(game);
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

/// Where a search begins.
enum Root {
    /// The endgame tables' answer.
    Answered(BestMove),
    /// A root to search.
    Search(RootSearch),
}

/// A root to search: its position and hash, its first legal move (the answer until an iteration
/// completes) and the deepest iteration.
#[derive(Clone, Copy, Debug)]
struct RootSearch {
    position: Position,
    hash: u64,
    first: Move,
    max_depth: u32,
}

/// The score of a position the endgame tables value as `wdl`, `ply` plies below the root.
fn table_score(wdl: Wdl, ply: usize) -> i32 {
    match wdl {
        Wdl::Win => TABLE_WIN - ply as i32,
        Wdl::Draw => 0,
        Wdl::Loss => -(TABLE_WIN - ply as i32),
    }
}

/// Proven scores (wins found by search or by the tables) are stored relative to the node, not
/// the root, so they stay true elsewhere.
fn to_table(score: i32, ply: usize) -> i32 {
    match score {
        s if s >= WON => s + ply as i32,
        s if s <= -WON => s - ply as i32,
        s => s,
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    match score {
        s if s >= WON => s - ply as i32,
        s if s <= -WON => s + ply as i32,
        s => s,
    }
}

#[cfg(test)]
mod proofs;
#[cfg(test)]
mod tests;
