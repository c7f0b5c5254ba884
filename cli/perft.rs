//! `checkers-zero perft`: leaf counts of the move tree and nodes per second.

use anyhow::Result;
use clap::Args;
use draughts::{PerftCounter, Position};
use std::time::Instant;

#[derive(Args)]
pub struct PerftArgs {
    /// Depth in plies.
    depth: u32,
    /// Count capture paths that reach the same position once.
    #[arg(long)]
    unique: bool,
}

pub fn run(args: PerftArgs) -> Result<()> {
    let counter = if args.unique { PerftCounter::UniquePositions } else { PerftCounter::AllPaths };
    let start = Instant::now();
    let nodes = counter.count(&Position::start(), args.depth);
    let secs = start.elapsed().as_secs_f64();
    println!("perft({}) = {nodes}  {secs:.3} s  {:.0} nodes/s", args.depth, nodes as f64 / secs);
    Ok(())
}
