//! A game clock for a match (`match --clock BASE+INC`): each side starts with `base` seconds and
//! gets `increment` before each of its moves; a move is given what an engine protocol gives
//! under the same clock ([`MoveBudget::of_clock`]: a share as its target, three at most), and a
//! side whose move takes more than its clock holds loses on time.

use search::alphabeta::Limit;
use search::{clock_allowance, MoveBudget};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// Seconds on each side's clock at the start, and added before each move (see the module's
/// header).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameClock {
    /// Seconds each side starts with.
    pub base: f64,
    /// Seconds added before each of a side's moves.
    pub increment: f64,
}

impl GameClock {
    /// The budget of a move with `left` seconds on the mover's clock, before its increment.
    pub fn budget(&self, left: f64) -> MoveBudget {
        MoveBudget::of_clock(left, self.increment, None)
    }

    /// The first move's budget as a target alone: what a player asked to choose without a
    /// budget (outside a match's clock) thinks for.
    pub fn first_move_target(&self) -> Duration {
        clock_allowance(self.base, self.increment, None).0
    }

    /// The first move's budget as the alpha-beta engine's limit.
    pub fn first_move_limit(&self) -> Limit {
        let (target, most) = clock_allowance(self.base, self.increment, None);
        Limit::Clock { target, most }
    }

    /// Seconds on the mover's clock after a move that took `spent` with `left` before it (its
    /// increment added); below 0 the side has lost on time.
    pub fn after_move(&self, left: f64, spent: f64) -> f64 {
        left + self.increment - spent
    }
}

impl FromStr for GameClock {
    type Err = String;

    /// `BASE+INC` or `BASE`, in seconds: a base above 0 and at most a day, an increment from 0 to
    /// an hour.
    fn from_str(text: &str) -> Result<GameClock, String> {
        let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
        let seconds = |part: &str, what: &str, min_exclusive: bool, max: f64| {
            part.trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s <= max && (*s > 0.0 || (!min_exclusive && *s == 0.0)))
                .ok_or_else(|| {
                    format!("`{text}`: the {what} `{part}` is not seconds in range (BASE+INC, e.g. 60+0.5)")
                })
        };
        Ok(GameClock {
            base: seconds(base, "base", true, 86_400.0)?,
            increment: seconds(increment, "increment", false, 3_600.0)?,
        })
    }
}

impl fmt::Display for GameClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.base, self.increment)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_reads_and_writes_as_base_plus_increment() {
        let clock: GameClock = "5+0.1".parse().unwrap();
        assert_eq!(clock, GameClock { base: 5.0, increment: 0.1 });
        assert_eq!(clock.to_string(), "5+0.1");
        assert_eq!("60".parse::<GameClock>().unwrap(), GameClock { base: 60.0, increment: 0.0 });
        for bad in ["", "0+1", "-5+1", "5+-1", "5+x", "inf", "5+0.1+2"] {
            let error = bad.parse::<GameClock>().unwrap_err();
            assert!(error.contains(&format!("`{bad}`")), "{error}");
        }
    }

    #[test]
    fn a_move_gets_its_share_and_pays_for_its_time() {
        let clock = GameClock { base: 6.0, increment: 0.1 };
        let MoveBudget::Clock { target, most } = clock.budget(6.0) else { panic!("a clock") };
        assert!((target.as_secs_f64() - 0.3).abs() < 1e-9, "{target:?}");
        assert!((most.as_secs_f64() - 0.9).abs() < 1e-9, "{most:?}");
        assert!((clock.after_move(6.0, 0.5) - 5.6).abs() < 1e-9);
        assert!(clock.after_move(0.2, 0.4) < 0.0, "out of time");
    }
}
