//! `checkers-zero egdb accuracy NET`: a checkpoint's value head measured on a fixed, seeded set
//! of endgame-table positions (the measure a run with tables logs at every checkpoint).

use anyhow::{bail, Result};
use cli::egdb::{folder, AccuracyArgs};
use egdb::Tables;

/// `checkers-zero egdb accuracy`: a checkpoint's value head against the endgame tables.
pub fn accuracy(args: AccuracyArgs) -> Result<()> {
    let dir = folder(args.dir)?;
    let tables = Tables::open_up_to(&dir, args.pieces)?;
    if tables.max_pieces() < args.pieces {
        bail!(
            "the tables in {} are complete up to {} pieces, not {}: build them with `checkers-zero egdb build --pieces {} --dir {}`",
            dir.display(),
            tables.max_pieces(),
            args.pieces,
            args.pieces,
            dir.display()
        );
    }
    let checkpoint = model::checkpoint::load(&args.net, None, tch::Device::Cpu)?;
    let set = train::EndgameSet::sample(&tables, args.seed);
    let measured = set.measure(&checkpoint.net, checkpoint.meta.step);
    println!(
        "step {} positions {} accuracy {:.4} mae {:.4} ({:.1} s)",
        measured.step, measured.positions, measured.accuracy, measured.mae, measured.seconds
    );
    Ok(())
}
