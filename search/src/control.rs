//! Controlling a search from outside, as an engine protocol does: what one move may cost, a stop
//! flag and a deadline that another thread may set or move while the search runs (`stop`, a
//! ponder hit that starts the clock), and the progress a search reports as it goes.

use draughts::{Move, Step};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What one move may cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MoveBudget {
    /// The player's own setting (its depth, time or playouts).
    Own,
    /// This much wall time for the whole move (every jump of a capture included).
    Time(Duration),
    /// Search this many plies deep (alpha-beta); a player without depths uses its own setting.
    Depth(u32),
    /// Search this many nodes (alpha-beta) or playouts (MCTS).
    Nodes(u64),
    /// Until stopped.
    Infinite,
    /// A move under a game clock: about `target` of wall time, never more than `most`. A player
    /// that manages its time (the alpha-beta engine's `time_management`) spends less on a
    /// settled answer and more on one that changes; others take `target`, as [`MoveBudget::Time`].
    Clock {
        /// About what the move should take.
        target: Duration,
        /// The most it may take.
        most: Duration,
    },
}

/// Moves a sudden-death clock is spread over when the moves to the next control are not given.
const MOVES_TO_GO: f64 = 30.0;
/// Seconds always kept on the clock (process and pipe latency), besides [`RESERVE_SHARE`] of it.
const RESERVE: f64 = 0.05;
/// The share of the clock always kept in hand.
const RESERVE_SHARE: f64 = 0.02;
/// The least time a move is given, in seconds.
const MIN_MOVE_TIME: f64 = 0.01;
/// The most a move may take, in shares.
const MOST_SHARES: f64 = 3.0;

/// What a move may take with `time` seconds left on its side's clock before this move's increment
/// `inc` (added before every move), and `moves` moves to the next time control when given: the
/// target (a share of `time / moves`, else `time / 30`, plus the increment) and the most (three
/// shares), always keeping 0.05 s plus 2% of the clock in hand (and at least 0.01 s).
pub fn clock_allowance(time: f64, inc: f64, moves: Option<u32>) -> (Duration, Duration) {
    let available = time + inc;
    let share = time / moves.map_or(MOVES_TO_GO, f64::from) + inc;
    let most = (MOST_SHARES * share)
        .min(available - RESERVE - RESERVE_SHARE * available)
        .max(MIN_MOVE_TIME);
    let target = share.clamp(MIN_MOVE_TIME, most);
    (Duration::from_secs_f64(target), Duration::from_secs_f64(most))
}

impl MoveBudget {
    /// The budget of a move under a clock: [`clock_allowance`] as [`MoveBudget::Clock`].
    pub fn of_clock(time: f64, inc: f64, moves: Option<u32>) -> MoveBudget {
        let (target, most) = clock_allowance(time, inc, moves);
        MoveBudget::Clock { target, most }
    }
}

/// One request to think about a move: its budget, the control that may end it early, and where
/// progress reports go.
pub struct ThinkRequest<'a> {
    /// What the move may cost.
    pub budget: MoveBudget,
    /// Stop flag and deadline, set from another thread.
    pub control: &'a SearchControl,
    /// Told the progress of the search as it goes.
    pub report: &'a mut dyn FnMut(&Progress),
}

/// How a searching player rates the position for its side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Score {
    /// An estimate in men (one man ahead is about 1.0).
    Men(f32),
    /// A win found in this many plies.
    WinIn(u32),
    /// A loss found in this many plies.
    LossIn(u32),
}

/// A searching player's report on its thinking so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Completed depth (alpha-beta) or the length of the principal variation in moves (MCTS).
    pub depth: u32,
    /// Root visits (MCTS only).
    pub playouts: Option<u32>,
    /// Nodes searched (alpha-beta) or playouts made in this search (MCTS).
    pub nodes: u64,
    /// The position's rating for the side to move.
    pub score: Score,
    /// The principal variation, whole moves from the position searched.
    pub pv: Vec<Move>,
    /// Time since the search began.
    pub elapsed: Duration,
    /// The chances of a win, a draw and a loss for the side to move (MCTS only).
    pub outlook: Option<Outlook>,
    /// The most visited moves at the root, most visited first (MCTS only).
    pub root_moves: Vec<RootMove>,
}

/// The chances of a win, a draw and a loss, summing to 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outlook {
    /// The chance of a win.
    pub win: f32,
    /// The chance of a draw.
    pub draw: f32,
    /// The chance of a loss.
    pub loss: f32,
}

impl Outlook {
    /// The chances that a value `win - loss` in [-1, 1] and a draw probability in
    /// [0, 1 - |value|] mean.
    pub fn of_value(value: f32, draw: f32) -> Outlook {
        let value = value.clamp(-1.0, 1.0);
        let draw = draw.clamp(0.0, 1.0 - value.abs());
        Outlook { win: (1.0 - draw + value) / 2.0, draw, loss: (1.0 - draw - value) / 2.0 }
    }
}

/// One root move of a search, as a progress report shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootMove {
    /// The move's first step.
    pub step: Step,
    /// The whole move, when the search knows how a capture goes on.
    pub mv: Option<Move>,
    /// Visits the move received.
    pub visits: u32,
    /// The net's prior for the first step (with root noise, if any).
    pub prior: f32,
    /// Mean value for the side to move; `None` when unvisited.
    pub value: Option<f32>,
}

impl RootMove {
    /// The move in standard notation, or its first square and `x...` for a capture whose way on
    /// the search has not seen.
    pub fn text(&self) -> String {
        match self.mv {
            Some(mv) => mv.to_string(),
            None => format!("{}x...", self.step.square),
        }
    }
}

/// No deadline (the search runs until its own limit or a stop).
const NO_DEADLINE: u64 = u64::MAX;

/// Shared between a searching thread and the thread that may stop it.
#[derive(Debug)]
pub struct SearchControl {
    stop: AtomicBool,
    /// Nanoseconds after `epoch` at which the search should end; `NO_DEADLINE` for none.
    deadline: AtomicU64,
    epoch: Instant,
}

impl Default for SearchControl {
    fn default() -> Self {
        SearchControl::new()
    }
}

impl SearchControl {
    /// No stop asked, no deadline.
    pub fn new() -> SearchControl {
        SearchControl {
            stop: AtomicBool::new(false),
            deadline: AtomicU64::new(NO_DEADLINE),
            epoch: Instant::now(),
        }
    }

    /// Asks the search to finish as soon as it can (it still answers with a move).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Ends the search `after` from now (replacing any earlier deadline), or never with `None`.
    pub fn set_time_left(&self, after: Option<Duration>) {
        let nanos = after.map_or(NO_DEADLINE, |after| {
            let at = self.epoch.elapsed() + after;
            u64::try_from(at.as_nanos()).unwrap_or(NO_DEADLINE - 1)
        });
        self.deadline.store(nanos, Ordering::Relaxed);
    }

    /// Clears the stop flag and the deadline, for the next search.
    pub fn reset(&self) {
        self.stop.store(false, Ordering::Relaxed);
        self.deadline.store(NO_DEADLINE, Ordering::Relaxed);
    }

    /// Whether `stop` was called.
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Whether the search should end now: stopped, or past its deadline.
    pub fn should_stop(&self) -> bool {
        if self.stop_requested() {
            return true;
        }
        let deadline = self.deadline.load(Ordering::Relaxed);
        deadline != NO_DEADLINE && self.epoch.elapsed().as_nanos() >= u128::from(deadline)
    }

    /// Whether a deadline is set (a search without one runs until its own limit or a stop).
    pub fn has_deadline(&self) -> bool {
        self.deadline.load(Ordering::Relaxed) != NO_DEADLINE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_and_deadline_end_the_search_and_reset_clears_them() {
        let control = SearchControl::new();
        assert!(!control.should_stop());
        control.set_time_left(Some(Duration::ZERO));
        assert!(control.should_stop() && control.has_deadline());
        control.set_time_left(Some(Duration::from_secs(3600)));
        assert!(!control.should_stop());
        control.stop();
        assert!(control.should_stop());
        control.reset();
        assert!(!control.should_stop() && !control.has_deadline());
    }
}
