//! Checking built tables against the rules of the game (`checkers-zero egdb verify`). The files'
//! checksums catch damage after a build; this catches a build that was wrong: every position of a
//! seeded random sample must have the value and distance its successors give (a win when some move
//! reaches a lost position, one ply more than the quickest such loss; a loss when every move
//! reaches a won position, one ply more than the slowest, or at once without a move; a draw
//! otherwise), and with 6 pieces, classic endings from the literature must have their published
//! values.

use crate::index::Layout;
use crate::material::Material;
use crate::{Tables, Wdl};
use draughts::Position;
use std::fmt;
use support::SplitMix64;

/// A position whose stored value or distance is not what its successors give, or that a table
/// should cover and does not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inconsistency {
    /// The position, in FEN.
    pub fen: String,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for Inconsistency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.fen, self.problem)
    }
}

impl std::error::Error for Inconsistency {}

/// Endings with published values: (FEN, value for the side to move).
/// - Lasker's Diagram 96, "the move": Black men 2, 8, 12 against White men 19, 24, 31: a draw
///   with Black to move, a White win with White to move.
/// - W. Strickland's "Negative Second Position" (Bob Newell, Checker School): Black to play and win.
/// - Wyllie's First Position page: an extra Black man on 21 and White man on 30 do not alter First
///   Position's outcome.
pub const SIX_PIECE_ENDINGS: [(&str, Wdl); 4] = [
    ("B:W19,24,31:B2,8,12", Wdl::Draw),
    ("W:W19,24,31:B2,8,12", Wdl::Win),
    ("B:WK28,13,12:BK15,5,3", Wdl::Win),
    ("W:WK19,K23,30:BK28,12,21", Wdl::Win),
];

/// What a position's successors give it: its value, and its distance where the tables keep them.
fn expected(tables: &Tables, pos: &Position) -> Result<(Wdl, Option<u16>), String> {
    let (mut win, mut draw, mut loss) = (None::<u16>, false, 0u16);
    for mv in pos.legal_moves() {
        let next = pos.play_unchecked(mv);
        let value = tables
            .probe(&next)
            .ok_or_else(|| format!("its successor {} is not covered", next.to_fen()))?;
        let distance = tables.distance(&next);
        let plies = || distance.map_or(0, |d| d + 1);
        match value {
            Wdl::Loss => win = Some(win.map_or(plies(), |w| w.min(plies()))),
            Wdl::Draw => draw = true,
            Wdl::Win => loss = loss.max(plies()),
        }
    }
    let (wdl, plies) = match win {
        Some(plies) => (Wdl::Win, Some(plies)),
        None if draw => (Wdl::Draw, None),
        None => (Wdl::Loss, Some(loss)),
    };
    Ok((wdl, plies.filter(|_| tables.has_distances())))
}

/// Checks one position of at most the tables' pieces against its successors.
pub fn check_position(tables: &Tables, pos: &Position) -> Result<(), Inconsistency> {
    let fail = |problem: String| Inconsistency { fen: pos.to_fen(), problem };
    let stored = tables.probe(pos).ok_or_else(|| fail("not covered by the tables".into()))?;
    let stored = (stored, tables.distance(pos));
    let wanted = expected(tables, pos).map_err(fail)?;
    if stored != wanted {
        return Err(fail(format!(
            "stored {} at {:?} plies, its successors give {} at {:?}",
            stored.0, stored.1, wanted.0, wanted.1
        )));
    }
    Ok(())
}

/// Checks `samples` positions of `pieces` pieces drawn uniformly (by `seed`) from every slice of
/// that many pieces, Black to move (the tables store only Black to move).
pub fn check_sample(
    tables: &Tables,
    pieces: u32,
    samples: u64,
    seed: u64,
) -> Result<(), Inconsistency> {
    let slices: Vec<(Material, u64)> =
        Material::with_pieces(pieces).into_iter().map(|m| (m, Layout::new(m).size())).collect();
    let total: u64 = slices.iter().map(|s| s.1).sum();
    let mut rng = SplitMix64::new(seed);
    for _ in 0..samples {
        let mut i = rng.below(total);
        for &(m, size) in &slices {
            if i < size {
                check_position(tables, &Layout::new(m).unrank(i).to_position())?;
                break;
            }
            i -= size;
        }
    }
    Ok(())
}

/// Checks [`SIX_PIECE_ENDINGS`] (tables of at least 6 pieces).
pub fn check_endings(tables: &Tables) -> Result<(), Inconsistency> {
    for (fen, published) in SIX_PIECE_ENDINGS {
        let pos = Position::from_fen(fen).expect("a listed ending parses");
        let stored = tables.probe(&pos);
        if stored != Some(published) {
            let problem = format!("stored {stored:?}, published {published}");
            return Err(Inconsistency { fen: fen.to_string(), problem });
        }
    }
    Ok(())
}
