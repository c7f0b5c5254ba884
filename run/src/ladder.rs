//! `checkers-zero ladder RUN`: Elo ratings of every player in the run's recorded games (its
//! results log, read through the store for an `s3://` run)
//! (Bradley-Terry maximum likelihood, anchored), as a table and as plots of Elo against training
//! step (`RUN/elo.svg`) and against wall time (`RUN/elo-time.svg`). With endgame tables, each
//! net's value accuracy on them (`egdb acc`, from `RUN/train/egdb_accuracy.jsonl`) stands beside
//! its rating. Then the learning curve against the fixed opponents of `[eval]` (`RUN/eval.jsonl`):
//! the results pooled over equal spans of the run's core-hours (its CPU time; wall hours in a log
//! from before it was kept), the slope of the score per (core-)hour over the first and the last
//! half of the run (and over its last hour, from two hours on), and plots of each evaluation's score
//! against step (`RUN/curve.svg`) and against the run's hours (`RUN/curve-time.svg`).

use anyhow::{Context, Result};
use arena::signed_elo;
use arena::{
    curve_svg, default_anchor, elo_svg, linked_to, rate, Clock, LearningCurve, Slope, XAxis,
    VIRTUAL_DRAWS,
};
use rundata::{CachedRun, Log, RunDir};
use std::path::{Path, PathBuf};

/// What `checkers-zero ladder` rates.
pub struct LadderOptions {
    /// The run: a folder or `s3://bucket/prefix`.
    pub run_dir: String,
    /// For an `s3://` run: the local folder for its records and plots (default: under the cache).
    pub cache: Option<PathBuf>,
    /// The player rated 0 (default: [`default_anchor`]).
    pub anchor: Option<String>,
    /// Where to write the plot against training step (default: RUN/elo.svg); the plot against
    /// wall time goes beside it, with `-time` added before the extension.
    pub plot: Option<PathBuf>,
}

/// `checkers-zero ladder`: rates a run's nets and anchors, with its learning curve.
pub fn ladder(options: LadderOptions) -> Result<()> {
    if !options.run_dir.starts_with("s3://") {
        RunDir::existing(&options.run_dir)?;
    }
    let cached = CachedRun::open(&options.run_dir, options.cache.as_deref(), "ladder")?;
    let run = cached.run();
    let file = cached.sync(Log::Results)?;
    let results = rundata::read_json_lines::<arena::ResultRecord>(&file)?.warned();
    anyhow::ensure!(!results.is_empty(), "{}: no recorded games", file.display());
    let anchor = options.anchor.clone().unwrap_or_else(|| default_anchor(&results));
    let linked = linked_to(&results, &anchor);
    if linked.len() < results.len() {
        let mut apart: Vec<&str> =
            results.iter().filter(|r| !linked.contains(r)).map(|r| r.black.as_str()).collect();
        apart.sort_unstable();
        apart.dedup();
        eprintln!(
            "note: {} games among players no chain of games links to {anchor} are left out ({}); choose another --anchor to rate them",
            results.len() - linked.len(),
            support::some_of(&apart)
        );
    }
    let ratings = rate(&linked, &anchor)?;
    let width = ratings.iter().map(|r| r.name.len()).max().unwrap_or(0).max(6);
    println!(
        "{} games; Bradley-Terry fit, draws as half points, {VIRTUAL_DRAWS} virtual draw per pair that met, {} = 0",
        linked.len(),
        anchor
    );
    // The trainer's measurements on the endgame tables, when the run has them.
    let endgame_file = run.train_dir().join(train::ENDGAME_LOG_FILE);
    let endgame =
        endgame_file.exists().then(|| train::read_endgame_log(&endgame_file)).transpose()?;
    if let Some(log) = &endgame {
        rundata::warn_skipped(&log.skipped);
    }
    print!(
        "{:width$}  {:>8}  {:>5}  {:>5}  {:>6}  {:>5}",
        "player", "step", "games", "score", "Elo", "±95%"
    );
    println!("{}", if endgame.is_some() { "  egdb acc" } else { "" });
    for r in &ratings {
        let step = r.step.map_or_else(|| "-".to_string(), |s| s.to_string());
        print!(
            "{:width$}  {step:>8}  {:>5}  {:.3}  {:>6}  {:>5.0}",
            r.name,
            r.games,
            r.score,
            signed_elo(r.elo),
            r.margin
        );
        let accuracy = endgame.as_ref().map(|log| {
            r.step
                .and_then(|s| log.by_step.get(&s))
                .map_or_else(|| "-".to_string(), |m| format!("{:.1}%", 100.0 * m.accuracy))
        });
        println!("{}", accuracy.map_or_else(String::new, |a| format!("  {a:>8}")));
    }
    let plot = options.plot.unwrap_or_else(|| run.root().join("elo.svg"));
    for (axis, path) in [(XAxis::Step, plot.clone()), (XAxis::Hours, time_plot(&plot))] {
        std::fs::write(&path, elo_svg(&ratings, axis))
            .with_context(|| format!("writing {}", path.display()))?;
        println!("plot: {}", path.display());
    }
    let mut tb = train::TbLogger::create(&run.tb_dir().join("ladder"))?;
    for r in &ratings {
        if let Some(step) = r.step {
            tb.scalar("ladder/elo", r.elo as f32, step)?;
        }
    }
    tb.flush()?;
    learning_curve(&cached, &plot)
}

/// Spans of the run's hours in the printed curve.
const CURVE_SPANS: usize = 8;

/// Prints and plots the learning curve against the fixed opponents, when the run has one.
fn learning_curve(cached: &CachedRun, plot: &Path) -> Result<()> {
    let records = crate::gate::anchors::read_evaluations(cached)?;
    if records.is_empty() {
        return Ok(());
    }
    let curve = LearningCurve::of(&records);
    let end = curve.end_hours();
    let (label, unit) = (curve.clock.label(), curve.clock.unit());
    let clock = match curve.clock {
        Clock::SinceFirstRecord => format!("{label} (some records lack the run's time)"),
        Clock::RunCpu | Clock::Run => label.to_string(),
    };
    println!();
    println!("learning curve against the fixed opponents: {} evaluations; {clock}", records.len());
    for anchor in &curve.anchors {
        println!("{}", anchor.opponent);
        println!(
            "  {:>11}  {:>15}  {:>5}  {:>14}  {:>5}  {:>22}",
            format!("{unit}s"),
            "steps",
            "games",
            "+W =D -L",
            "score",
            "Elo [95%]"
        );
        for span in anchor.spans(CURVE_SPANS, end) {
            let (t, elo) = (span.tally, span.tally.elo());
            println!(
                "  {:>11}  {:>15}  {:>5}  {:>14}  {:.3}  {:>22}",
                format!("{:.2}-{:.2}", span.hours.0, span.hours.1),
                format!("{}-{}", span.steps.0, span.steps.1),
                t.games(),
                format!("+{} ={} -{}", t.wins, t.draws, t.losses),
                t.score(),
                elo.to_string(),
            );
        }
        let (first, last) = anchor.halves(end);
        // A run of under two hours: its last half says as much as its last hour.
        let last_hour = if end >= 2.0 {
            format!(", last {unit} {}", describe_slope(anchor.last_hour(end)))
        } else {
            String::new()
        };
        println!(
            "  score per {unit}: first half {}, last half {}{last_hour}",
            describe_slope(first),
            describe_slope(last)
        );
    }
    let step_plot = plot.with_file_name("curve.svg");
    for (axis, path) in [(XAxis::Step, step_plot.clone()), (XAxis::Hours, time_plot(&step_plot))] {
        std::fs::write(&path, curve_svg(&curve, axis))
            .with_context(|| format!("writing {}", path.display()))?;
        println!("plot: {}", path.display());
    }
    Ok(())
}

/// `+0.120 ± 0.080 (14 evaluations)`, or why there is no slope.
fn describe_slope(slope: Option<Slope>) -> String {
    slope.map_or_else(
        || "- (fewer than 3 evaluations)".to_string(),
        |s| format!("{:+.3} ± {:.3} ({} evaluations)", s.per_hour, s.margin, s.points),
    )
}

/// The plot against wall time, beside the plot against step: `elo.svg` → `elo-time.svg`.
fn time_plot(step_plot: &Path) -> PathBuf {
    let mut name = step_plot.file_stem().unwrap_or_default().to_os_string();
    name.push("-time");
    if let Some(extension) = step_plot.extension() {
        name.push(".");
        name.push(extension);
    }
    step_plot.with_file_name(name)
}
