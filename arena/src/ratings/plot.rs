//! The ladder and the learning curve as pictures, self-contained SVGs: Elo against training step
//! or wall time, and the score against each fixed opponent of `[eval]` along the run.
//!
//! On the ladder, checkpoint players are points with their 95% interval, one line per kind of
//! player (`mcts`, `policy`); built-in players are labelled dashed horizontal lines at their
//! rating. On the curve, each opponent is a line through its evaluations' scores, each with its
//! 95% interval.

use crate::ratings::curve::LearningCurve;
use crate::ratings::ladder::Rating;
use std::collections::BTreeMap;
use std::fmt::Write;

const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 500.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 160.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 50.0;
const COLOURS: [&str; 6] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];

/// What the plot's x axis measures for each checkpoint player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XAxis {
    /// Its training step.
    Step,
    /// When it first played, in hours since the first game among the rated records.
    Hours,
}

impl XAxis {
    fn label(self) -> &'static str {
        match self {
            XAxis::Step => "training step",
            XAxis::Hours => "hours since the first game",
        }
    }
}

/// The SVG document for `ratings`, checkpoint players placed along `axis`.
pub fn elo_svg(ratings: &[Rating], axis: XAxis) -> String {
    let start = ratings.iter().map(|r| r.first_played).min().unwrap_or(0);
    let at = |r: &Rating| match axis {
        XAxis::Step => r.step.unwrap_or(0) as f64,
        XAxis::Hours => (r.first_played - start) as f64 / 3600.0,
    };
    let (x_min, x_max) = padded_range(ratings.iter().filter(|r| r.step.is_some()).map(at));
    let (y_min, y_max) =
        padded_range(ratings.iter().flat_map(|r| [r.elo - r.margin, r.elo + r.margin]));
    let x = |step: f64| LEFT + (step - x_min) / (x_max - x_min) * (WIDTH - LEFT - RIGHT);
    let y = |elo: f64| HEIGHT - BOTTOM - (elo - y_min) / (y_max - y_min) * (HEIGHT - TOP - BOTTOM);
    let mut svg = header();
    let labels = (axis.label(), "Elo (95% interval)");
    axes(&mut svg, (x_min, x_max), (y_min, y_max), &x, &y, labels);
    let mut series: BTreeMap<&str, Vec<&Rating>> = BTreeMap::new();
    for r in ratings.iter().filter(|r| r.step.is_some()) {
        series.entry(r.name.split(':').next().unwrap_or(&r.name)).or_default().push(r);
    }
    for (k, (kind, mut points)) in series.into_iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        points.sort_by(|a, b| at(a).total_cmp(&at(b)));
        let line: Vec<String> =
            points.iter().map(|r| format!("{:.1},{:.1}", x(at(r)), y(r.elo))).collect();
        let _ = writeln!(
            svg,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="2" points="{}"/>"#,
            line.join(" ")
        );
        for r in &points {
            let (px, lo, hi) = (x(at(r)), y(r.elo - r.margin), y(r.elo + r.margin));
            let _ = writeln!(
                svg,
                r#"<line x1="{px:.1}" y1="{lo:.1}" x2="{px:.1}" y2="{hi:.1}" stroke="{colour}"/>"#
            );
            let _ = writeln!(
                svg,
                r#"<circle cx="{px:.1}" cy="{:.1}" r="3.5" fill="{colour}"><title>{} {:.0} ± {:.0}</title></circle>"#,
                y(r.elo),
                escape(&r.name),
                r.elo,
                r.margin
            );
        }
        legend_entry(&mut svg, k, colour, kind);
    }
    for r in ratings.iter().filter(|r| r.step.is_none()) {
        let py = y(r.elo);
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}" stroke="#777" stroke-dasharray="6 4"/>"##,
            WIDTH - RIGHT
        );
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" fill="#555">{} {:.0}</text>"##,
            LEFT + 4.0,
            py - 4.0,
            escape(&r.name),
            r.elo
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// The SVG document of `curve`: for each opponent, the score of every evaluation against it
/// (with its 95% interval) along the run's hours or along the training step.
pub fn curve_svg(curve: &LearningCurve, axis: XAxis) -> String {
    let x_label = match axis {
        XAxis::Step => "training step",
        XAxis::Hours => curve.clock.label(),
    };
    let points = || curve.anchors.iter().flat_map(|a| &a.points);
    let at = |p: &crate::CurvePoint| match axis {
        XAxis::Step => p.step as f64,
        XAxis::Hours => p.hours,
    };
    let (x_min, x_max) = padded_range(points().map(at));
    let (y_min, y_max) = (-0.02, 1.02);
    let x = |v: f64| LEFT + (v - x_min) / (x_max - x_min) * (WIDTH - LEFT - RIGHT);
    let y = |s: f64| HEIGHT - BOTTOM - (s - y_min) / (y_max - y_min) * (HEIGHT - TOP - BOTTOM);
    let mut svg = header();
    let labels = (x_label, "score against the opponent (95% interval)");
    axes(&mut svg, (x_min, x_max), (y_min, y_max), &x, &y, labels);
    for (k, anchor) in curve.anchors.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let line: Vec<String> = anchor
            .points
            .iter()
            .map(|p| format!("{:.1},{:.1}", x(at(p)), y(p.tally.score())))
            .collect();
        let _ = writeln!(
            svg,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{}"/>"#,
            line.join(" ")
        );
        for p in &anchor.points {
            let (score, games) = (p.tally.score(), f64::from(p.tally.games().max(1)));
            let half = 1.96 * (p.tally.variance() / games).sqrt();
            let (px, lo, hi) = (x(at(p)), y((score - half).max(0.0)), y((score + half).min(1.0)));
            let _ = writeln!(
                svg,
                r#"<line x1="{px:.1}" y1="{lo:.1}" x2="{px:.1}" y2="{hi:.1}" stroke="{colour}" stroke-opacity="0.4"/>"#
            );
            let _ = writeln!(
                svg,
                r#"<circle cx="{px:.1}" cy="{:.1}" r="3" fill="{colour}"><title>step {} at {:.2} {}s: +{} ={} -{}</title></circle>"#,
                y(score),
                p.step,
                p.hours,
                curve.clock.unit(),
                p.tally.wins,
                p.tally.draws,
                p.tally.losses
            );
        }
        legend_entry(&mut svg, k, colour, &anchor.opponent);
    }
    svg.push_str("</svg>\n");
    svg
}

/// The opening of an SVG document of the plots' size, on white.
fn header() -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
"#
    )
}

/// The range of `values` with 5% room each side (a unit range around a single value).
fn padded_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.05).max(0.5);
    (lo - pad, hi + pad)
}

/// The frame, the ticks and the labels `(x, y)` of a plot.
fn axes(
    svg: &mut String,
    xs: (f64, f64),
    ys: (f64, f64),
    x: &dyn Fn(f64) -> f64,
    y: &dyn Fn(f64) -> f64,
    (x_label, y_label): (&str, &str),
) {
    let (x0, x1, y0, y1) = (LEFT, WIDTH - RIGHT, HEIGHT - BOTTOM, TOP);
    let _ = writeln!(
        svg,
        r#"<rect x="{x0}" y="{y1}" width="{}" height="{}" fill="none" stroke="black"/>"#,
        x1 - x0,
        y0 - y1
    );
    for (v, label) in ticks(xs) {
        let px = x(v);
        let _ = writeln!(
            svg,
            r#"<line x1="{px:.1}" y1="{y0}" x2="{px:.1}" y2="{}" stroke="black"/><text x="{px:.1}" y="{}" text-anchor="middle">{label}</text>"#,
            y0 + 5.0,
            y0 + 20.0
        );
    }
    for (v, label) in ticks(ys) {
        let py = y(v);
        let _ = writeln!(
            svg,
            r##"<line x1="{x0}" y1="{py:.1}" x2="{x1}" y2="{py:.1}" stroke="#eee"/><text x="{}" y="{:.1}" text-anchor="end">{label}</text>"##,
            x0 - 6.0,
            py + 4.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{}" text-anchor="middle">{x_label}</text>"#,
        (x0 + x1) / 2.0,
        HEIGHT - 10.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="15" y="{:.1}" text-anchor="middle" transform="rotate(-90 15 {:.1})">{y_label}</text>"#,
        (y0 + y1) / 2.0,
        (y0 + y1) / 2.0
    );
}

/// About six round tick values inside `range`, as labels.
fn ticks((lo, hi): (f64, f64)) -> Vec<(f64, String)> {
    let raw = (hi - lo) / 6.0;
    let exponent = raw.log10().floor();
    let magnitude = 10f64.powf(exponent);
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    let decimals = (-exponent).max(0.0) as usize;
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).map(|v| (v, format!("{v:.decimals$}"))).collect()
}

/// Legend line `row` (from 0) beside the plot.
fn legend_entry(svg: &mut String, row: usize, colour: &str, label: &str) {
    let ly = TOP + 10.0 + 18.0 * row as f64;
    let lx = WIDTH - RIGHT + 10.0;
    let _ = writeln!(
        svg,
        r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{colour}" stroke-width="2"/><text x="{}" y="{}">{}</text>"#,
        lx + 20.0,
        lx + 25.0,
        ly + 4.0,
        escape(label)
    );
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(name: &str, step: Option<u64>, elo: f64) -> Rating {
        Rating {
            name: name.into(),
            step,
            games: 10,
            score: 0.5,
            elo,
            margin: 40.0,
            first_played: 0,
        }
    }

    /// The names of the points in `svg`, left to right.
    fn points_left_to_right(svg: &str) -> Vec<String> {
        let mut points: Vec<(f64, String)> = svg
            .lines()
            .filter_map(|line| {
                let cx = line.split("<circle cx=\"").nth(1)?.split('"').next()?.parse().ok()?;
                let name = line.split("<title>").nth(1)?.split(' ').next()?;
                Some((cx, name.to_string()))
            })
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        points.into_iter().map(|(_, name)| name).collect()
    }

    #[test]
    fn checkpoints_are_placed_left_to_right_along_the_chosen_axis() {
        // The net of step 100 first played after the net of step 200 (rated late, say).
        let ratings = [
            Rating { first_played: 7200, ..rating("mcts:step-100:64", Some(100), 150.0) },
            Rating { first_played: 3600, ..rating("mcts:step-200:64", Some(200), 320.0) },
            Rating { first_played: 1800, ..rating("mcts:step-300:64", Some(300), 400.0) },
            rating("random", None, 0.0),
        ];
        let by_step = elo_svg(&ratings, XAxis::Step);
        let by_time = elo_svg(&ratings, XAxis::Hours);
        assert_eq!(
            points_left_to_right(&by_step),
            ["mcts:step-100:64", "mcts:step-200:64", "mcts:step-300:64"]
        );
        assert_eq!(
            points_left_to_right(&by_time),
            ["mcts:step-300:64", "mcts:step-200:64", "mcts:step-100:64"]
        );
        assert!(by_step.contains(">training step</text>"));
        assert!(by_time.contains(">hours since the first game</text>"));
        assert_eq!(by_time.matches("stroke-dasharray").count(), 1, "built-in players stay lines");
    }

    #[test]
    fn the_plot_is_one_svg_with_a_point_per_checkpoint_and_a_line_per_builtin() {
        let ratings = [
            rating("mcts:step-100:64", Some(100), 150.0),
            rating("mcts:step-200:64", Some(200), 320.0),
            rating("random", None, 0.0),
            rating("alphabeta:2", None, 250.0),
        ];
        let svg = elo_svg(&ratings, XAxis::Step);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<circle").count(), 2);
        assert_eq!(svg.matches("stroke-dasharray").count(), 2, "a line per built-in player");
        assert!(svg.contains("alphabeta:2 250"));
    }

    #[test]
    fn the_curve_has_a_point_per_evaluation_and_a_legend_line_per_opponent() {
        use crate::ratings::curve::LearningCurve;
        use crate::{EvalRecord, Tally};
        let record = |opponent: &str, step: u64, wins: u32| EvalRecord {
            generation: 0,
            step,
            net: format!("mcts:step-{step}:64"),
            opponent: opponent.into(),
            spec: None,
            tally: Tally { wins, draws: 2, losses: 4 - wins },
            score: 0.0,
            unix_time: 0,
            seconds: 0.0,
            run_seconds: Some(step as f64 * 3.6),
            run_cpu_seconds: None,
            checkpoint: None,
        };
        let records = [record("a", 0, 0), record("a", 1000, 2), record("b", 1000, 4)];
        let curve = LearningCurve::of(&records);
        for (axis, label) in [(XAxis::Step, "training step"), (XAxis::Hours, "hours of the run")] {
            let svg = curve_svg(&curve, axis);
            assert_eq!(svg.matches("<circle").count(), 3);
            assert_eq!(svg.matches("<polyline").count(), 2, "a line per opponent");
            assert!(svg.contains(&format!(">{label}</text>")), "{svg}");
            assert!(svg.contains("step 1000 at 1.00 hours: +4 =2 -0"), "{svg}");
        }
        // With the run's CPU time in every record, the points are placed (and named) in core-hours.
        let cpu = records.map(|r| EvalRecord { run_cpu_seconds: Some(r.step as f64 * 7.2), ..r });
        let svg = curve_svg(&LearningCurve::of(&cpu), XAxis::Hours);
        assert!(svg.contains("step 1000 at 2.00 core-hours: +4 =2 -0"), "{svg}");
        assert!(svg.contains(">core-hours of the run (its CPU time)</text>"), "{svg}");
    }

    #[test]
    fn ticks_are_round() {
        let labels = |range| ticks(range).into_iter().map(|(_, label)| label).collect::<Vec<_>>();
        assert_eq!(labels((0.0, 1000.0)), ["0", "200", "400", "600", "800", "1000"]);
        assert_eq!(labels((0.0, 1.0)), ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
    }
}
