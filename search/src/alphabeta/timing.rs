//! Time management under a game clock ([`super::Limit::Clock`]): after each completed iteration
//! the engine decides whether to begin another by how settled its answer is, spending less time
//! on an answer that has stayed the same for several iterations and more on one that just changed
//! or whose score fell. An iteration under way is cut short only at the clock's `most`.

use draughts::Move;
use std::time::{Duration, Instant};

/// Share of the (scaled) target past which no new iteration begins: the next one costs about as
/// much as all before it, so one begun later would mostly be cut short.
const BEGIN_SHARE: f64 = 0.5;
/// Iterations an answer must have lasted to count as settled.
const SETTLED_AFTER: u32 = 4;
/// The target's scale for a settled answer.
const SETTLED_SCALE: f64 = 0.5;
/// The target's scale for an answer that changed in the last iteration, or whose score fell.
const UNSETTLED_SCALE: f64 = 2.0;
/// A fall of the score from one iteration to the next, in hundredths of a man, that asks for
/// more time.
const SCORE_FALL: i32 = 30;

/// When the iterations of one move under a clock stop (see the module's header).
#[derive(Clone, Copy, Debug)]
pub(super) struct MoveTimer {
    started: Instant,
    /// The time the move should take about.
    target: Duration,
    /// The last iteration's answer and score.
    last: Option<(Move, i32)>,
    /// Iterations the answer has lasted.
    lasted: u32,
}

impl MoveTimer {
    /// A timer for a move that should take about `target`, started now.
    pub fn new(target: Duration) -> MoveTimer {
        MoveTimer { started: Instant::now(), target, last: None, lasted: 0 }
    }

    /// Whether to stop after an iteration that answered `mv` with `score` (begin no other).
    pub fn enough(&mut self, mv: Move, score: i32) -> bool {
        self.enough_after(mv, score, self.started.elapsed())
    }

    /// [`MoveTimer::enough`] with `elapsed` since the search began.
    fn enough_after(&mut self, mv: Move, score: i32, elapsed: Duration) -> bool {
        let (changed, fell) = match self.last {
            Some((last_mv, last_score)) => (last_mv != mv, score <= last_score - SCORE_FALL),
            None => (false, false),
        };
        self.lasted = if changed { 1 } else { self.lasted + 1 };
        self.last = Some((mv, score));
        let scale = if changed || fell {
            UNSETTLED_SCALE
        } else if self.lasted >= SETTLED_AFTER {
            SETTLED_SCALE
        } else {
            1.0
        };
        elapsed.as_secs_f64() >= BEGIN_SHARE * scale * self.target.as_secs_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use draughts::Position;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_settled_answer_stops_sooner_and_a_changed_one_later() {
        let moves = Position::start().legal_moves();
        let (a, b) = (moves[0], moves[1]);
        // Target 1 s: an answer that has not settled yet stops from 0.5 s on.
        let mut timer = MoveTimer::new(ms(1000));
        assert!(!timer.enough_after(a, 0, ms(100)));
        assert!(!timer.enough_after(a, 0, ms(300)));
        assert!(timer.enough_after(a, 0, ms(500)));
        // Settled (four iterations the same): from 0.25 s on.
        let mut timer = MoveTimer::new(ms(1000));
        for elapsed in [10, 20, 30] {
            assert!(!timer.enough_after(a, 0, ms(elapsed)));
        }
        assert!(timer.enough_after(a, 0, ms(260)));
        // The answer changed: not before 1 s, however settled it was.
        assert!(!timer.enough_after(b, 0, ms(900)));
        assert!(timer.enough_after(b, 0, ms(1000)));
    }

    #[test]
    fn a_falling_score_asks_for_more_time() {
        let mv = Position::start().legal_moves()[0];
        let mut timer = MoveTimer::new(ms(1000));
        assert!(!timer.enough_after(mv, 50, ms(100)));
        assert!(!timer.enough_after(mv, 20, ms(600)), "fell by 30: twice the time");
        assert!(timer.enough_after(mv, 20, ms(600)), "held: the usual time");
        assert!(!timer.enough_after(mv, -40, ms(900)));
        assert!(timer.enough_after(mv, -40, ms(1000)));
    }
}
