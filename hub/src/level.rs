//! `level`: the limit of the next searches, and what it leaves for one move.
//!
//! `depth=N` searches N plies (alpha-beta; an MCTS player keeps its own playouts), `nodes=N` N
//! nodes or playouts, `move-time=T` T seconds per move, `infinite` until `stop`. With a clock,
//! `time=T [inc=I] [moves=M]`, the increment is added before every move (as the protocol says), and
//! one move gets its share of what is left ([`MoveBudget::of_clock`]): `T / M` with `moves`, else
//! `T / 30`, plus the increment, as its target, and three shares at most for an engine that
//! manages its time, always keeping 0.05 s plus 2% of the clock in hand.

use crate::line::Line;
use search::MoveBudget;
use std::time::Duration;

/// The limit set by the last `level` line (the engine's own setting before any).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Level {
    /// No `level` yet: the player's own setting.
    #[default]
    Own,
    /// `level depth=N`.
    Depth(u32),
    /// `level nodes=N`.
    Nodes(u64),
    /// `level move-time=T`.
    MoveTime(Duration),
    /// `level [moves=M] time=T [inc=I]`.
    Clock {
        /// Seconds left on the clock, before this move's increment.
        time: f64,
        /// Seconds added before every move.
        inc: f64,
        /// Moves left until the next time control, when given.
        moves: Option<u32>,
    },
    /// `level infinite`.
    Infinite,
}

/// Why a `level` line is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LevelError {
    /// An argument that is not a number in range.
    #[error("level: {name}={value} is not {expected}")]
    BadValue {
        /// The argument.
        name: String,
        /// Its value.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// None of the known forms.
    #[error(
        "level: expected depth=N, nodes=N, move-time=SECONDS, [moves=N] time=SECONDS [inc=SECONDS] or infinite"
    )]
    Form,
}

impl Level {
    /// Reads a `level` line.
    pub fn parse(line: &Line) -> Result<Level, LevelError> {
        if line.has("infinite") {
            return Ok(Level::Infinite);
        }
        if let Some(depth) = line.value("depth") {
            return Ok(Level::Depth(
                number(depth, "depth", "a depth of 1 to 100", 1.0, 100.0)? as u32
            ));
        }
        if let Some(nodes) = line.value("nodes") {
            let nodes = number(nodes, "nodes", "a node count of at least 1", 1.0, 1e15)?;
            return Ok(Level::Nodes(nodes as u64));
        }
        if let Some(time) = line.value("move-time") {
            let seconds = number(time, "move-time", "seconds above 0", 1e-3, 1e6)?;
            return Ok(Level::MoveTime(Duration::from_secs_f64(seconds)));
        }
        if let Some(time) = line.value("time") {
            let time = number(time, "time", "seconds, 0 or more", 0.0, 1e7)?;
            let inc = match line.value("inc") {
                Some(inc) => number(inc, "inc", "seconds, 0 or more", 0.0, 1e6)?,
                None => 0.0,
            };
            let moves = match line.value("moves") {
                Some(moves) => {
                    Some(number(moves, "moves", "a move count of at least 1", 1.0, 1e4)? as u32)
                }
                None => None,
            };
            return Ok(Level::Clock { time, inc, moves });
        }
        Err(LevelError::Form)
    }

    /// What the next move may cost under this level.
    pub fn budget(&self) -> MoveBudget {
        match *self {
            Level::Own => MoveBudget::Own,
            Level::Depth(depth) => MoveBudget::Depth(depth),
            Level::Nodes(nodes) => MoveBudget::Nodes(nodes),
            Level::MoveTime(time) => MoveBudget::Time(time),
            Level::Infinite => MoveBudget::Infinite,
            Level::Clock { time, inc, moves } => MoveBudget::of_clock(time, inc, moves),
        }
    }
}

fn number(
    text: &str,
    name: &str,
    expected: &'static str,
    min: f64,
    max: f64,
) -> Result<f64, LevelError> {
    text.parse::<f64>().ok().filter(|v| v.is_finite() && (min..=max).contains(v)).ok_or_else(|| {
        LevelError::BadValue { name: name.to_string(), value: text.to_string(), expected }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(text: &str) -> Result<Level, LevelError> {
        Level::parse(&Line::parse(text).unwrap())
    }

    /// The target and the most of a clock's move, in seconds.
    fn clock(level: Level) -> (f64, f64) {
        match level.budget() {
            MoveBudget::Clock { target, most } => (target.as_secs_f64(), most.as_secs_f64()),
            other => panic!("not a clock's budget: {other:?}"),
        }
    }

    fn seconds(level: Level) -> f64 {
        clock(level).0
    }

    #[test]
    fn every_form_reads() {
        assert_eq!(level("level depth=6"), Ok(Level::Depth(6)));
        assert_eq!(level("level nodes=5000"), Ok(Level::Nodes(5000)));
        assert_eq!(level("level move-time=0.5"), Ok(Level::MoveTime(Duration::from_millis(500))));
        assert_eq!(level("level infinite"), Ok(Level::Infinite));
        assert_eq!(
            level("level moves=10 time=60 inc=1"),
            Ok(Level::Clock { time: 60.0, inc: 1.0, moves: Some(10) })
        );
        assert_eq!(level("level"), Err(LevelError::Form));
        assert!(matches!(level("level depth=-3"), Err(LevelError::BadValue { .. })));
        assert!(matches!(level("level time=soon"), Err(LevelError::BadValue { .. })));
    }

    #[test]
    fn a_clock_gives_a_share_and_keeps_a_reserve() {
        assert!((seconds(level("level time=60").unwrap()) - 2.0).abs() < 1e-9);
        assert!((seconds(level("level time=60 moves=10").unwrap()) - 6.0).abs() < 1e-9);
        assert!((seconds(level("level time=30 inc=2").unwrap()) - 3.0).abs() < 1e-9);
        // One move left on a nearly empty clock: the reserve stays.
        let last = seconds(level("level time=1 moves=1").unwrap());
        assert!(last < 1.0 - 0.05 && last > 0.9, "{last}");
        assert_eq!(clock(level("level time=0").unwrap()), (0.01, 0.01));
        // A move may stretch to three shares, never into the reserve.
        let (target, most) = clock(level("level time=60").unwrap());
        assert!((target - 2.0).abs() < 1e-9 && (most - 6.0).abs() < 1e-9, "{target} {most}");
        let (target, most) = clock(level("level time=10 moves=2").unwrap());
        assert!((target - 5.0).abs() < 1e-9 && (most - (10.0 - 0.05 - 0.2)).abs() < 1e-9);
    }
}
