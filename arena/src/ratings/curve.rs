//! The learning curve of a run against its fixed opponents (`[eval]`): each opponent's
//! evaluations along the run's hours, pooled into equal spans of time, and the slope of the score
//! per hour over the first and the last half of the run, so a reader sees whether a run still
//! learns.
//!
//! A record's time is the run's CPU time when the evaluation began (`run_cpu_seconds`, summed
//! over resumed sessions: core-hours, the compute spent, whatever else shared the machine); a log
//! with a record that lacks it (written by an older version) is placed by the run's wall time
//! (`run_seconds`), and one with a record that lacks that too (written by a gate outside `run`) by
//! its `unix_time` since the first record, gaps between sessions included.

use crate::anchors::EvalRecord;
use crate::ratings::tally::Tally;
use std::collections::BTreeMap;

/// z for a two-sided 95% interval (Student's t would be wider for a handful of points; the
/// halves of a run of hours hold dozens).
const Z95: f64 = 1.959_963_984_540_054;

/// Which clock placed the records along the curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// The run's CPU time, summed over its sessions.
    RunCpu,
    /// The run's wall time, summed over its sessions.
    Run,
    /// Wall-clock time since the first record (a log with records that lack the run's time).
    SinceFirstRecord,
}

impl Clock {
    /// What the curve's hours are, as an axis label.
    pub fn label(self) -> &'static str {
        match self {
            Clock::RunCpu => "core-hours of the run (its CPU time)",
            Clock::Run => "hours of the run",
            Clock::SinceFirstRecord => "hours since the first evaluation",
        }
    }

    /// The unit of the curve's hours.
    pub fn unit(self) -> &'static str {
        match self {
            Clock::RunCpu => "core-hour",
            Clock::Run | Clock::SinceFirstRecord => "hour",
        }
    }

    /// A record's time on this clock, in seconds, where it has it.
    fn seconds(self, record: &EvalRecord) -> Option<f64> {
        match self {
            Clock::RunCpu => record.run_cpu_seconds,
            Clock::Run => record.run_seconds,
            Clock::SinceFirstRecord => None,
        }
    }
}

/// One evaluation of a net against the opponent.
#[derive(Clone, Debug, PartialEq)]
pub struct CurvePoint {
    /// Hours into the run (see [`Clock`]).
    pub hours: f64,
    /// The net's training step.
    pub step: u64,
    /// The net's results.
    pub tally: Tally,
}

/// A score's change per hour, fitted by least squares (each evaluation weighted by its games).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slope {
    /// Points of score per hour.
    pub per_hour: f64,
    /// Half the width of its 95% interval (from the fit's residuals).
    pub margin: f64,
    /// Evaluations behind it.
    pub points: usize,
}

/// Every evaluation against one opponent, in time order.
#[derive(Clone, Debug, PartialEq)]
pub struct AnchorCurve {
    /// The opponent.
    pub opponent: String,
    /// Its evaluations, oldest first.
    pub points: Vec<CurvePoint>,
}

/// The run's curves, one per opponent (in name order), and the clock that placed them.
#[derive(Clone, Debug, PartialEq)]
pub struct LearningCurve {
    /// How the hours were measured.
    pub clock: Clock,
    /// One curve per opponent.
    pub anchors: Vec<AnchorCurve>,
}

/// A span of the run's time with the evaluations in it pooled.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// Start and end, in hours.
    pub hours: (f64, f64),
    /// The training steps of the nets evaluated in it, lowest and highest.
    pub steps: (u64, u64),
    /// Their results together.
    pub tally: Tally,
}

impl LearningCurve {
    /// The curves of `records`.
    pub fn of(records: &[EvalRecord]) -> LearningCurve {
        let clock = [Clock::RunCpu, Clock::Run]
            .into_iter()
            .find(|clock| records.iter().all(|r| clock.seconds(r).is_some()))
            .unwrap_or(Clock::SinceFirstRecord);
        let first = records.iter().map(|r| r.unix_time.saturating_sub(r.seconds as u64)).min();
        let hours = |r: &EvalRecord| match clock.seconds(r) {
            Some(seconds) => seconds / 3600.0,
            None => {
                let began = r.unix_time.saturating_sub(r.seconds as u64);
                began.saturating_sub(first.unwrap_or(0)) as f64 / 3600.0
            }
        };
        let mut by_opponent: BTreeMap<&str, Vec<CurvePoint>> = BTreeMap::new();
        for r in records {
            let point = CurvePoint { hours: hours(r), step: r.step, tally: r.tally };
            by_opponent.entry(&r.opponent).or_default().push(point);
        }
        let anchors = by_opponent
            .into_iter()
            .map(|(opponent, mut points)| {
                points.sort_by(|a, b| a.hours.total_cmp(&b.hours).then(a.step.cmp(&b.step)));
                AnchorCurve { opponent: opponent.to_string(), points }
            })
            .collect();
        LearningCurve { clock, anchors }
    }

    /// The hours the curves cover: from 0 to the last evaluation.
    pub fn end_hours(&self) -> f64 {
        self.anchors.iter().flat_map(|a| &a.points).map(|p| p.hours).fold(0.0, f64::max)
    }
}

impl AnchorCurve {
    /// The evaluations in `spans` equal spans of time from 0 to `end` hours, pooled; empty spans
    /// are left out.
    pub fn spans(&self, spans: usize, end: f64) -> Vec<Span> {
        let width = end / spans.max(1) as f64;
        let mut out: Vec<Span> = Vec::new();
        for i in 0..spans.max(1) {
            let (from, to) = (i as f64 * width, (i + 1) as f64 * width);
            let last = i + 1 == spans.max(1);
            let inside: Vec<&CurvePoint> =
                self.points.iter().filter(|p| p.hours >= from && (p.hours < to || last)).collect();
            let (Some(lowest), Some(highest)) =
                (inside.iter().map(|p| p.step).min(), inside.iter().map(|p| p.step).max())
            else {
                continue;
            };
            let mut tally = Tally::default();
            for p in &inside {
                tally.wins += p.tally.wins;
                tally.draws += p.tally.draws;
                tally.losses += p.tally.losses;
            }
            out.push(Span { hours: (from, to), steps: (lowest, highest), tally });
        }
        out
    }

    /// The slope of the score per hour over the evaluations from `from` to `to` hours; `None`
    /// with fewer than three evaluations or all at one time.
    pub fn slope(&self, from: f64, to: f64) -> Option<Slope> {
        let points: Vec<(f64, f64, f64)> = self
            .points
            .iter()
            .filter(|p| p.hours >= from && p.hours <= to && p.tally.games() > 0)
            .map(|p| (p.hours, p.tally.score(), f64::from(p.tally.games())))
            .collect();
        weighted_slope(&points)
    }

    /// The slopes over the first and the last half of `0..=end` hours.
    pub fn halves(&self, end: f64) -> (Option<Slope>, Option<Slope>) {
        (self.slope(0.0, end / 2.0), self.slope(end / 2.0, end))
    }

    /// The slope over the last hour of `0..=end` hours.
    pub fn last_hour(&self, end: f64) -> Option<Slope> {
        self.slope(end - 1.0, end)
    }
}

/// Weighted least squares of `y` on `x` over `(x, y, weight)`, with the slope's standard error
/// from the weighted residuals (each weight counts as that many observations).
fn weighted_slope(points: &[(f64, f64, f64)]) -> Option<Slope> {
    if points.len() < 3 {
        return None;
    }
    let total: f64 = points.iter().map(|p| p.2).sum();
    let mean_x = points.iter().map(|p| p.0 * p.2).sum::<f64>() / total;
    let mean_y = points.iter().map(|p| p.1 * p.2).sum::<f64>() / total;
    let sxx: f64 = points.iter().map(|p| p.2 * (p.0 - mean_x).powi(2)).sum();
    if sxx <= f64::EPSILON {
        return None;
    }
    let sxy: f64 = points.iter().map(|p| p.2 * (p.0 - mean_x) * (p.1 - mean_y)).sum();
    let slope = sxy / sxx;
    let intercept = mean_y - slope * mean_x;
    let residuals: f64 =
        points.iter().map(|p| p.2 * (p.1 - intercept - slope * p.0).powi(2)).sum::<f64>();
    // The residual variance per unit weight, over the points' degrees of freedom.
    let n = points.len() as f64;
    let variance = residuals / total * n / (n - 2.0);
    let margin = Z95 * (variance / (sxx / total * n)).sqrt();
    Some(Slope { per_hour: slope, margin, points: points.len() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(opponent: &str, run_seconds: Option<f64>, step: u64, tally: Tally) -> EvalRecord {
        EvalRecord {
            generation: 0,
            step,
            net: format!("mcts:step-{step}:64"),
            opponent: opponent.into(),
            spec: None,
            tally,
            score: tally.score(),
            unix_time: 1_000_000 + run_seconds.unwrap_or(0.0) as u64,
            seconds: 0.0,
            run_seconds,
            run_cpu_seconds: None,
            checkpoint: None,
        }
    }

    fn tally(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally { wins, draws, losses }
    }

    #[test]
    fn a_straight_rise_has_its_slope_and_no_doubt() {
        // Score 0.25 + 0.25 per hour, exactly, at 0, 1 and 2 hours.
        let records = [
            record("alphabeta:4", Some(0.0), 0, tally(0, 8, 8)),
            record("alphabeta:4", Some(3600.0), 100, tally(0, 16, 0)),
            record("alphabeta:4", Some(7200.0), 200, tally(8, 8, 0)),
        ];
        let curve = LearningCurve::of(&records);
        assert_eq!(curve.clock, Clock::Run);
        let slope = curve.anchors[0].slope(0.0, 2.0).expect("three points");
        assert!((slope.per_hour - 0.25).abs() < 1e-9, "{slope:?}");
        assert!(slope.margin < 1e-9);
        assert_eq!(slope.points, 3);
    }

    #[test]
    fn a_flat_noisy_curve_has_an_interval_around_zero() {
        let records: Vec<EvalRecord> = (0u32..12)
            .map(|i| {
                let t = if i % 2 == 0 { tally(6, 4, 6) } else { tally(4, 8, 4) };
                let t = if i % 3 == 0 { tally(8, 2, 6) } else { t };
                record("alphabeta:4", Some(600.0 * f64::from(i)), u64::from(i), t)
            })
            .collect();
        let slope = LearningCurve::of(&records).anchors[0].slope(0.0, 2.0).unwrap();
        assert!(slope.margin > 0.0);
        assert!(slope.per_hour - slope.margin < 0.0 && 0.0 < slope.per_hour + slope.margin);
    }

    #[test]
    fn halves_and_spans_split_the_run_by_time_and_pool_results() {
        let records: Vec<EvalRecord> = (0..8)
            .map(|i| record("a", Some(900.0 * f64::from(i)), 10 * u64::from(i), tally(i, 1, 1)))
            .collect();
        let curve = LearningCurve::of(&records);
        let end = curve.end_hours();
        assert!((end - 1.75).abs() < 1e-9);
        let (first, last) = curve.anchors[0].halves(end);
        assert_eq!(first.unwrap().points, 4); // 0, 0.25, 0.5, 0.75 h
        assert_eq!(last.unwrap().points, 4); // 1, 1.25, 1.5, 1.75 h
        let spans = curve.anchors[0].spans(2, end);
        assert_eq!(spans.len(), 2);
        assert_eq!(spans[0].tally, tally(1 + 2 + 3, 4, 4)); // 0, 0.25, 0.5, 0.75 < 0.875
        assert_eq!(spans[0].steps, (0, 30));
        assert_eq!(spans[1].steps, (40, 70));
        assert_eq!(spans[1].tally.games(), 4 * 2 + 4 + 5 + 6 + 7);
    }

    #[test]
    fn the_last_hour_of_a_long_run_has_its_own_slope() {
        // Rising 0.2 an hour for two hours, then flat for the last hour.
        let records: Vec<EvalRecord> = (0..13)
            .map(|i| {
                let wins = if i <= 8 { 2 + i } else { 10 };
                record("a", Some(900.0 * f64::from(i)), u64::from(i), tally(wins, 0, 20 - wins))
            })
            .collect();
        let curve = LearningCurve::of(&records);
        let end = curve.end_hours();
        assert!((end - 3.0).abs() < 1e-9);
        let last = curve.anchors[0].last_hour(end).expect("five evaluations in the last hour");
        assert_eq!(last.points, 5); // 2, 2.25, 2.5, 2.75, 3 h
        assert!(last.per_hour.abs() < 1e-9, "{last:?}");
        let (first, _) = curve.anchors[0].halves(end);
        assert!((first.unwrap().per_hour - 0.2).abs() < 1e-9);
    }

    #[test]
    fn the_runs_cpu_time_places_the_records_when_every_record_has_it() {
        // Two cores' worth of CPU time per wall hour, the second core's share rising.
        let mut records = vec![
            record("a", Some(0.0), 0, tally(1, 0, 0)),
            record("a", Some(3600.0), 10, tally(1, 0, 0)),
        ];
        records[0].run_cpu_seconds = Some(0.0);
        records[1].run_cpu_seconds = Some(7200.0);
        let curve = LearningCurve::of(&records);
        assert_eq!(curve.clock, Clock::RunCpu);
        assert_eq!((curve.clock.unit(), curve.end_hours()), ("core-hour", 2.0));
        // A record from before the CPU time was kept puts the whole curve on the wall clock.
        records[0].run_cpu_seconds = None;
        let curve = LearningCurve::of(&records);
        assert_eq!(curve.clock, Clock::Run);
        assert_eq!((curve.clock.unit(), curve.end_hours()), ("hour", 1.0));
    }

    #[test]
    fn without_the_run_clock_records_are_placed_by_their_own_times() {
        let mut records =
            vec![record("b", Some(0.0), 0, tally(1, 0, 0)), record("a", None, 5, tally(1, 0, 0))];
        records[1].unix_time = records[0].unix_time + 1800;
        let curve = LearningCurve::of(&records);
        assert_eq!(curve.clock, Clock::SinceFirstRecord);
        assert_eq!(curve.anchors.len(), 2);
        assert_eq!(curve.anchors[0].opponent, "a");
        assert!((curve.anchors[0].points[0].hours - 0.5).abs() < 1e-9);
        assert_eq!(curve.anchors[0].slope(0.0, 1.0), None, "one point has no slope");
    }
}
