//! `checkers-zero egdb build|probe`: endgame databases, exact values of every position with few
//! pieces (see the `egdb` crate).
//!
//! `build --pieces N [--dir DIR]` builds every table up to N pieces (reusing slices an earlier
//! build finished), with one progress line per slice on stderr. `probe [--dir DIR] [--fen FEN]`
//! prints one line per position, `VALUE MOVE [plies=D]`: `win 18-22 plies=7`, `draw 5-9`,
//! `loss 1-6 plies=12`, or `loss none` when the side to move has no move. Without `--fen` it
//! answers each FEN line of standard input (blank lines skipped); a bad or uncovered position, or
//! a line over 4 KiB or not UTF-8, gets a line `error: ...` and the command fails at the end.
//! `accuracy NET` measures a checkpoint's value head on a fixed, seeded set of table positions (in
//! the net library).

use crate::net_commands::AccuracyArgs;
use crate::net_support::{needs, NetSupport};
use ::egdb::{Tables, MAX_PIECES};
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use draughts::Position;
use std::io::Write;
use std::path::PathBuf;

/// `checkers-zero egdb`.
#[derive(Args)]
pub struct EgdbArgs {
    /// The subcommand.
    #[command(subcommand)]
    pub command: EgdbCommand,
}

/// The `egdb` subcommands.
#[derive(Subcommand)]
pub enum EgdbCommand {
    /// Build every table up to N pieces (slices already built and intact are reused).
    Build(BuildArgs),
    /// Value, a best move and the distance to the end of positions given as FEN.
    Probe(ProbeArgs),
    /// A checkpoint's value head against the tables: the measure a run with tables logs at
    /// every checkpoint, on the same kind of fixed, seeded set of 20,000 positions.
    Accuracy(AccuracyArgs),
    /// Check built tables against the rules: a random sample of each piece count must have the
    /// values and distances its successors give (and with 6 pieces, classic endings theirs).
    Verify(VerifyArgs),
}

/// `egdb verify`.
#[derive(Args)]
pub struct VerifyArgs {
    /// Folder of the tables [default: the per-machine cache, `$CHECKERS_ZERO_CACHE/egdb`].
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Positions checked per piece count (each probes its successors too).
    #[arg(long, default_value_t = 200_000)]
    samples: u64,
    /// Seed of the sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// `egdb build`.
#[derive(Args)]
pub struct BuildArgs {
    /// Most pieces on the board (5: about 150 million positions, minutes on two cores).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=MAX_PIECES as i64))]
    pieces: u32,
    /// Folder of the tables [default: the per-machine cache, `$CHECKERS_ZERO_CACHE/egdb`].
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// `egdb probe`.
#[derive(Args)]
pub struct ProbeArgs {
    /// Folder of the tables [default: the per-machine cache, `$CHECKERS_ZERO_CACHE/egdb`].
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The position in draughts FEN, e.g. `W:WK19,K23:BK28,12`; without it, FEN lines from stdin.
    #[arg(long)]
    fen: Option<String>,
}

impl EgdbArgs {
    /// Whether the subcommand needs libtorch (`accuracy` runs a net).
    pub fn needs_net(&self) -> bool {
        matches!(self.command, EgdbCommand::Accuracy(_))
    }
}

/// Runs `build`, `probe` and `verify`; `accuracy` goes to `net` (the net library's code).
pub fn run(args: EgdbArgs, net: Option<&dyn NetSupport>) -> Result<()> {
    match args.command {
        EgdbCommand::Build(args) => build(args),
        EgdbCommand::Probe(args) => probe(args),
        EgdbCommand::Accuracy(args) => needs(net, "egdb accuracy")?.egdb_accuracy(args),
        EgdbCommand::Verify(args) => verify(args),
    }
}

fn verify(args: VerifyArgs) -> Result<()> {
    let dir = folder(args.dir)?;
    let tables = Tables::open(&dir)?;
    eprintln!("egdb: {} up to {} pieces", dir.display(), tables.max_pieces());
    for pieces in 1..=tables.max_pieces() {
        let start = std::time::Instant::now();
        let seed = args.seed.wrapping_add(u64::from(pieces));
        ::egdb::verify::check_sample(&tables, pieces, args.samples, seed)
            .with_context(|| format!("{} is inconsistent", dir.display()))?;
        let seconds = start.elapsed().as_secs_f64();
        eprintln!("egdb: {pieces} pieces: {} positions consistent ({seconds:.1} s)", args.samples);
    }
    if tables.max_pieces() >= 6 {
        ::egdb::verify::check_endings(&tables)
            .with_context(|| format!("{} is inconsistent", dir.display()))?;
        eprintln!("egdb: the classic 6-piece endings have their published values");
    }
    println!("{}: consistent", dir.display());
    Ok(())
}

/// `--dir`, else the default cache folder.
pub fn folder(dir: Option<PathBuf>) -> Result<PathBuf> {
    match dir.or_else(::egdb::default_dir) {
        Some(dir) => Ok(dir),
        None => bail!("no cache folder (none of CHECKERS_ZERO_CACHE, XDG_CACHE_HOME, HOME is set): pass --dir"),
    }
}

fn build(args: BuildArgs) -> Result<()> {
    let dir = folder(args.dir)?;
    let report = ::egdb::build(&dir, args.pieces, |event| eprintln!("{event}"))?;
    eprintln!(
        "egdb: done: {} slices built, {} reused, {} positions, {:.1} MiB in {}, {:.1} s",
        report.slices_built,
        report.slices_reused,
        report.positions,
        report.bytes as f64 / (1024.0 * 1024.0),
        report.dir.display(),
        report.seconds
    );
    Ok(())
}

fn probe(args: ProbeArgs) -> Result<()> {
    let dir = folder(args.dir)?;
    let tables = Tables::open(&dir)?;
    if let Some(fen) = &args.fen {
        println!("{}", answer(&tables, &dir, fen)?);
        return Ok(());
    }
    let (mut total, mut failed) = (0, 0);
    let mut out = std::io::stdout().lock();
    let mut input = std::io::stdin().lock();
    while let Some(line) = support::read_line_capped(&mut input, MAX_FEN_LINE_BYTES)
        .context("reading FEN lines from stdin")?
    {
        let answered = match &line {
            Ok(fen) if fen.trim().is_empty() => continue,
            Ok(fen) => answer(&tables, &dir, fen.trim()),
            Err(bad) => Err(anyhow::Error::from(bad.clone())),
        };
        total += 1;
        match answered {
            Ok(text) => writeln!(out, "{text}")?,
            Err(err) => {
                failed += 1;
                writeln!(out, "error: {}", support::one_line(err.as_ref()))?;
            }
        }
        out.flush()?;
    }
    if failed > 0 {
        bail!("{failed} of {total} positions could not be answered");
    }
    Ok(())
}

/// The longest line of standard input `probe` reads as a FEN (one of 24 pieces is under 100
/// bytes); a longer one, or one that is not UTF-8, is answered with an error line.
const MAX_FEN_LINE_BYTES: usize = 4096;

/// The answer line for one FEN: `VALUE MOVE [plies=D]`.
fn answer(tables: &Tables, dir: &std::path::Path, fen: &str) -> Result<String> {
    let pos = Position::from_fen(fen)?;
    let Some(probe) = tables.best_move(&pos) else {
        let pieces = pos.occupied().count();
        bail!(
            "FEN `{}`: not covered by the tables in {} ({pieces} pieces; complete up to {}{})",
            support::shown(fen),
            dir.display(),
            tables.max_pieces(),
            if tables.max_pieces() == 0 {
                ", build them with `checkers-zero egdb build`"
            } else {
                ""
            }
        );
    };
    let mut text = match probe.best {
        Some(mv) => format!("{} {mv}", probe.wdl),
        None => return Ok(format!("{} none", probe.wdl)),
    };
    if let Some(d) = probe.distance {
        text.push_str(&format!(" plies={d}"));
    }
    Ok(text)
}
