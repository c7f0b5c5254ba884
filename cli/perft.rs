//! `checkers-zero perft`: leaf counts of the move tree and nodes per second.

use anyhow::{Context, Result};
use clap::Args;
use draughts::{PerftCounter, Position};
use std::time::Instant;

/// Deeper counts would run for years (perft(13) is already 1.8 billion leaves).
const MAX_DEPTH: u32 = 25;

/// `checkers-zero perft`.
#[derive(Args)]
pub struct PerftArgs {
    /// Depth in plies.
    #[arg(value_parser = clap::value_parser!(u32).range(0..=MAX_DEPTH as i64))]
    depth: u32,
    /// Start position in draughts FEN, e.g. `W:WK7:B10,11,18,19` (default: the initial position).
    #[arg(long)]
    fen: Option<String>,
    /// Print the count below each legal move of the start position.
    #[arg(long)]
    divide: bool,
    /// Count capture paths that reach the same position once.
    #[arg(long)]
    unique: bool,
}

/// Counts and prints the leaves.
pub fn run(args: PerftArgs) -> Result<()> {
    let position = match &args.fen {
        Some(fen) => Position::from_fen(fen).context("--fen")?,
        None => Position::start(),
    };
    let counter = if args.unique { PerftCounter::UniquePositions } else { PerftCounter::AllPaths };
    let start = Instant::now();
    let nodes = if args.divide && args.depth > 0 {
        divide(&position, args.depth, counter)
    } else {
        counter.count(&position, args.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    let kind = if args.unique { "unique " } else { "" };
    println!(
        "{kind}perft({}) = {nodes}  {secs:.3} s  {:.0} nodes/s",
        args.depth,
        nodes as f64 / secs.max(1e-9)
    );
    Ok(())
}

/// Prints the count below each root move and returns the total. With unique counting, a capture
/// that reaches the same position as an earlier one is listed but counted once.
fn divide(position: &Position, depth: u32, counter: PerftCounter) -> u64 {
    let mut reached: Vec<(Position, String)> = Vec::new();
    let mut total = 0;
    for mv in position.legal_moves() {
        let next = position.play_unchecked(mv);
        let same =
            reached.iter().find(|(p, _)| *p == next && mv.is_capture()).map(|(_, m)| m.clone());
        match (counter, same) {
            (PerftCounter::UniquePositions, Some(first)) => {
                println!("{mv}: same position as {first}")
            }
            _ => {
                let n = counter.count(&next, depth - 1);
                println!("{mv}: {n}");
                total += n;
            }
        }
        reached.push((next, mv.to_string()));
    }
    total
}
