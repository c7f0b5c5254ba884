//! Building every table up to N pieces into a folder: pair by pair in dependency order, reusing
//! slices a previous (perhaps interrupted) build finished, writing each file atomically.

use crate::error::EgdbError;
use crate::file::{table_path, write_table, Kind};
use crate::material::{build_order, Pair, MAX_PIECES};
use crate::probe::Tables;
use crate::slice::Slice;
use crate::solve::{solve_pair, Solved};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What a build reports while it runs, for progress display.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildEvent {
    /// The build starts: how many slices and positions it covers.
    Started {
        /// The folder written to.
        dir: PathBuf,
        /// Most pieces.
        max_pieces: u32,
        /// Slices in all (a material with its side to move).
        slices: usize,
        /// Positions in all.
        positions: u64,
    },
    /// A pair of slices was already built and checked; it is used as it is.
    Reused {
        /// The slices' names, e.g. `1m0k-2m1k + 2m1k-1m0k`.
        slices: String,
        /// Positions in them.
        positions: u64,
    },
    /// A slice present in the folder cannot be used (damaged, foreign, or without distances) and
    /// is built again.
    Rebuilding {
        /// The slices' names.
        slices: String,
        /// Why the old file is not used.
        reason: String,
    },
    /// A pair of slices is being solved.
    Solving {
        /// The slices' names.
        slices: String,
        /// Positions in them.
        positions: u64,
    },
    /// A pair of slices is solved and written.
    Solved {
        /// The slices' names.
        slices: String,
        /// Positions in them.
        positions: u64,
        /// Won, drawn and lost positions (for the side to move).
        counts: [u64; 3],
        /// The longest distance to the end, in plies.
        max_distance: u16,
        /// Seconds spent on it.
        seconds: f64,
    },
}

/// One line per event, e.g. `egdb: 2m1k-1m0k + 1m0k-2m1k: 18513600 positions, 12.3 s`.
impl fmt::Display for BuildEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildEvent::Started { dir, max_pieces, slices, positions } => write!(
                f,
                "egdb: building up to {max_pieces} pieces in {}: {slices} slices, {positions} positions",
                dir.display()
            ),
            BuildEvent::Reused { slices, positions } => {
                write!(f, "egdb: {slices}: {positions} positions, already built")
            }
            BuildEvent::Rebuilding { slices, reason } => {
                write!(f, "egdb: {slices}: building again: {reason}")
            }
            BuildEvent::Solving { slices, positions } => {
                write!(f, "egdb: {slices}: {positions} positions ...")
            }
            BuildEvent::Solved { slices, positions, counts, max_distance, seconds } => write!(
                f,
                "egdb: {slices}: {positions} positions ({} won, {} drawn, {} lost, longest {max_distance} plies) in {seconds:.1} s",
                counts[0], counts[1], counts[2]
            ),
        }
    }
}

/// What a finished build did.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildReport {
    /// The folder written to.
    pub dir: PathBuf,
    /// Most pieces.
    pub max_pieces: u32,
    /// Slices solved and written by this build.
    pub slices_built: usize,
    /// Slices a previous build had finished.
    pub slices_reused: usize,
    /// Positions in all slices.
    pub positions: u64,
    /// Bytes of all table files in the folder up to `max_pieces`.
    pub bytes: u64,
    /// Seconds the build took.
    pub seconds: f64,
}

/// Builds every table with at most `max_pieces` (1..=6) pieces into `dir` (made if needed), with
/// distances. Slices finished by an earlier build are checked and reused, so an interrupted
/// build goes on where it stopped. Uses all cores (rayon's global pool). Calls `progress` with
/// each step.
pub fn build(
    dir: &Path,
    max_pieces: u32,
    mut progress: impl FnMut(&BuildEvent),
) -> Result<BuildReport, EgdbError> {
    if !(1..=MAX_PIECES).contains(&max_pieces) {
        return Err(EgdbError::Pieces { requested: max_pieces, max: MAX_PIECES });
    }
    let start = Instant::now();
    std::fs::create_dir_all(dir).map_err(|e| EgdbError::io(dir, "create the folder", e))?;
    remove_stale_temporaries(dir);
    let order = build_order(max_pieces);
    let size = |pair: &Pair| -> u64 {
        pair.members.iter().map(|&m| crate::index::Layout::new(m).size()).sum()
    };
    progress(&BuildEvent::Started {
        dir: dir.to_owned(),
        max_pieces,
        slices: order.iter().map(|p| p.members.len()).sum(),
        positions: order.iter().map(size).sum(),
    });
    let mut tables = Tables::empty();
    let (mut built, mut reused) = (0, 0);
    for pair in &order {
        let positions = size(pair);
        match reuse(dir, pair) {
            Ok(Some(slices)) => {
                reused += slices.len();
                for (&m, slice) in pair.members.iter().zip(slices) {
                    tables.insert(m, slice);
                }
                progress(&BuildEvent::Reused { slices: pair.name(), positions });
                continue;
            }
            Ok(None) => {}
            Err(reason) => progress(&BuildEvent::Rebuilding { slices: pair.name(), reason }),
        }
        progress(&BuildEvent::Solving { slices: pair.name(), positions });
        let t = Instant::now();
        let solved = solve_pair(pair, &tables);
        let mut counts = [0u64; 3];
        let mut max_distance = 0;
        for (&m, s) in pair.members.iter().zip(&solved) {
            for (total, c) in counts.iter_mut().zip(s.counts) {
                *total += c;
            }
            max_distance = max_distance.max(s.max_distance);
            write_slice(dir, m, s)?;
        }
        drop(solved);
        for &m in &pair.members {
            let slice = Slice::open(dir, m)?.expect("the slice was just written");
            tables.insert(m, slice);
        }
        built += pair.members.len();
        progress(&BuildEvent::Solved {
            slices: pair.name(),
            positions,
            counts,
            max_distance,
            seconds: t.elapsed().as_secs_f64(),
        });
    }
    Ok(BuildReport {
        dir: dir.to_owned(),
        max_pieces,
        slices_built: built,
        slices_reused: reused,
        positions: order.iter().map(size).sum(),
        bytes: tables.file_bytes(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Removes temporary files that builds which are no longer running left in `dir` (a crash while
/// writing leaves one; it is never mistaken for a table, whose names have no leading dot).
fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = support::temporary_owner(&name) else { continue };
        let running = Path::new("/proc").join(pid.to_string()).exists();
        if !running && Path::new("/proc/self").exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The slices of `pair` as an earlier build left them, when all are there, whole and with
/// distances; `Ok(None)` when some file is absent, `Err(reason)` when one is unusable.
fn reuse(dir: &Path, pair: &Pair) -> Result<Option<Vec<Slice>>, String> {
    let mut slices = Vec::new();
    for &m in &pair.members {
        match Slice::open(dir, m) {
            Ok(Some(slice)) if slice.has_distances() => slices.push(slice),
            Ok(Some(_)) => {
                return Err(format!("{} is missing", table_path(dir, m, Kind::Distance).display()))
            }
            Ok(None) => return Ok(None),
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(Some(slices))
}

/// Writes the two files of a solved slice: values, then distances.
fn write_slice(dir: &Path, m: crate::Material, s: &Solved) -> Result<u64, EgdbError> {
    let n = s.positions;
    let wdl = write_table(&table_path(dir, m, Kind::Wdl), Kind::Wdl, m, 2, n, &s.wdl)?;
    let dist_path = table_path(dir, m, Kind::Distance);
    Ok(wdl + write_table(&dist_path, Kind::Distance, m, s.dist_bits, n, &s.dist)?)
}
