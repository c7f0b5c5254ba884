//! `checkers-zero egdb accuracy NET`: a checkpoint's value head measured on a fixed, seeded set
//! of endgame-table positions (the measure a run with tables logs at every checkpoint).

use anyhow::{bail, Result};
use egdb::Tables;
use std::path::PathBuf;

/// What `checkers-zero egdb accuracy` measures.
pub struct AccuracyOptions {
    /// The checkpoint file (a net or a training state).
    pub net: PathBuf,
    /// Folder of the tables.
    pub dir: PathBuf,
    /// Positions of at most this many pieces.
    pub pieces: u32,
    /// Seed of the set (a run's `seed` gives the set that run measures on).
    pub seed: u64,
}

/// `checkers-zero egdb accuracy`: a checkpoint's value head against the endgame tables.
pub fn accuracy(options: AccuracyOptions) -> Result<()> {
    let AccuracyOptions { net, dir, pieces, seed } = options;
    let tables = Tables::open_up_to(&dir, pieces)?;
    if tables.max_pieces() < pieces {
        bail!(
            "the tables in {} are complete up to {} pieces, not {}: build them with `checkers-zero egdb build --pieces {} --dir {}`",
            dir.display(),
            tables.max_pieces(),
            pieces,
            pieces,
            dir.display()
        );
    }
    let checkpoint = model::checkpoint::load(&net, None, tch::Device::Cpu)?;
    let set = train::EndgameSet::sample(&tables, seed);
    let measured = set.measure(&checkpoint.net, checkpoint.meta.step);
    println!(
        "step {} positions {} accuracy {:.4} mae {:.4} ({:.1} s)",
        measured.step, measured.positions, measured.accuracy, measured.mae, measured.seconds
    );
    Ok(())
}
