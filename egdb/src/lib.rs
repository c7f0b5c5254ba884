//! Endgame databases for English draughts: the exact value (win, draw or loss for the side to
//! move) of every position with at most N pieces (N up to 6), and the number of plies to the end
//! of the game under best play, computed by retrograde analysis.
//!
//! Values follow the rules of `rules.md` without draw rules: no repetition and no 40-move rule,
//! so play that never ends is a draw. A side with no legal move, or no piece, loses.
//!
//! ```no_run
//! # fn main() -> Result<(), egdb::EgdbError> {
//! let dir = egdb::default_dir().expect("a home folder");
//! egdb::build(&dir, 4, |event| eprintln!("{event}"))?;
//! let tables = egdb::Tables::open(&dir)?;
//! // First Position: White to move wins.
//! let pos = draughts::Position::from_fen("W:WK19,K23:BK28,12").unwrap();
//! assert_eq!(tables.probe(&pos), Some(egdb::Wdl::Win));
//! let best = tables.best_move(&pos).unwrap();
//! println!("{} {} plies={:?}", best.wdl, best.best.unwrap(), best.distance);
//! # Ok(()) }
//! ```
//!
//! # Layout
//! The tables are split by material into slices ([`Material`]: men and kings of each side) and
//! store only Black to move: a position with White to move is looked up turned round 180 degrees
//! with the colours swapped. Within a slice a combinatorial index ranks exactly the possible
//! placements (no man on its own crowning row, see the `index` module), so the slices hold
//! [`positions_with_pieces`] positions in all.
//!
//! # Files
//! Each slice is two files in the folder, named after its material with the side to move first,
//! e.g. `2m1k-1m0k.wdl` (win/draw/loss, 2 bits per position) and `2m1k-1m0k.dist` (plies to the
//! end, 1 byte per position, or 2 when some distance exceeds 255; 0 for draws). Both start with a
//! 64-byte header: magic `CZEGDB\r\n`, [`FORMAT_VERSION`], kind, material, bits per position,
//! position count, data length, CRC-32 of the data and of the header. Files are written to a
//! temporary name, flushed and renamed, and checked completely when loaded, by memory map.

mod board;
mod build;
mod error;
mod file;
mod index;
mod material;
mod probe;
mod sample;
mod slice;
mod solve;
pub mod verify;

#[cfg(test)]
mod tests;

pub use build::{build, BuildEvent, BuildReport};
pub use error::EgdbError;
pub use file::VERSION as FORMAT_VERSION;
pub use index::positions_with_pieces;
pub use material::{Material, MAX_PIECES};
pub use probe::{Probe, Tables};

use std::fmt;
use std::path::PathBuf;

/// The value of a position for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses with best play.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins with best play.
    Win,
}

impl Wdl {
    /// The same outcome seen by the other side.
    #[inline]
    pub const fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// The 2-bit code stored in `.wdl` files.
    #[inline]
    pub(crate) const fn code(self) -> u8 {
        self as u8
    }

    /// The value of a 2-bit code (3 is never written; read as a draw).
    #[inline]
    pub(crate) const fn from_code(code: u8) -> Wdl {
        match code & 3 {
            0 => Wdl::Loss,
            2 => Wdl::Win,
            _ => Wdl::Draw,
        }
    }
}

/// `win`, `draw` or `loss`.
impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        })
    }
}

/// The folder tables live in by default: `$CHECKERS_ZERO_CACHE/egdb`, else
/// `$XDG_CACHE_HOME/checkers-zero/egdb`, else `$HOME/.cache/checkers-zero/egdb` (the cache root
/// that `scripts/libtorch-env.sh` uses). `None` when none of these variables is set.
pub fn default_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let root = var("CHECKERS_ZERO_CACHE")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("checkers-zero")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("checkers-zero")))?;
    Some(root.join("egdb"))
}
