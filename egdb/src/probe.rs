//! The loaded set of tables and the look-ups the players use: value, distance, and a move that
//! keeps the value.

use crate::board::Board;
use crate::error::EgdbError;
use crate::material::{Material, CODES, MAX_PIECES};
use crate::slice::Slice;
use crate::Wdl;
use draughts::{Move, Position};
use std::path::Path;

/// Every table found in a folder, memory-mapped. `Send + Sync`; share it with an `Arc`.
#[derive(Debug)]
pub struct Tables {
    /// By material code.
    pub(crate) slices: Vec<Option<Slice>>,
    max_pieces: u32,
}

/// What the tables say about a position: its value, a move that keeps it, and its distance.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Probe {
    /// The value for the side to move.
    pub wdl: Wdl,
    /// A move that keeps the value: for a win the one with the shortest distance to the end, for a
    /// loss the longest (when distances are stored), for a draw one that keeps the draw. `None`
    /// when the side to move has no legal move (and so has lost).
    pub best: Option<Move>,
    /// Plies to the end of the game with best play, for a win or a loss when distances are stored.
    pub distance: Option<u16>,
}

impl Default for Tables {
    fn default() -> Self {
        Tables::empty()
    }
}

impl Tables {
    /// A set with no tables: every probe answers "not covered".
    pub fn empty() -> Tables {
        Tables { slices: (0..CODES).map(|_| None).collect(), max_pieces: 0 }
    }

    /// Loads every table file in `dir` that is present, each one checked (header, length and
    /// checksum). A damaged, foreign or other-version file is an error naming it; absent files (or
    /// an absent folder) are simply not used: then [`Tables::max_pieces`] is 0.
    pub fn open(dir: &Path) -> Result<Tables, EgdbError> {
        Tables::open_up_to(dir, MAX_PIECES)
    }

    /// [`Tables::open`] for the tables of at most `pieces` pieces only: the others are not loaded,
    /// so no probe answers for more pieces.
    pub fn open_up_to(dir: &Path, pieces: u32) -> Result<Tables, EgdbError> {
        let mut tables = Tables::empty();
        for n in 1..=pieces.min(MAX_PIECES) {
            for m in Material::with_pieces(n) {
                if let Some(slice) = Slice::open(dir, m)? {
                    tables.insert(m, slice);
                }
            }
        }
        Ok(tables)
    }

    /// Adds a slice and updates [`Tables::max_pieces`].
    pub(crate) fn insert(&mut self, m: Material, slice: Slice) {
        self.slices[m.code()] = Some(slice);
        self.max_pieces = (1..=MAX_PIECES)
            .take_while(|&n| {
                Material::with_pieces(n).iter().all(|m| self.slices[m.code()].is_some())
            })
            .last()
            .unwrap_or(0);
    }

    /// The largest N such that every table with at most N pieces is loaded (0 when none is).
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// Whether every table loaded with at most [`Tables::max_pieces`] pieces has distances.
    pub fn has_distances(&self) -> bool {
        self.max_pieces > 0
            && (1..=self.max_pieces).all(|n| {
                Material::with_pieces(n)
                    .iter()
                    .all(|m| self.slices[m.code()].as_ref().is_some_and(Slice::has_distances))
            })
    }

    /// Bytes of every loaded table file.
    pub fn file_bytes(&self) -> u64 {
        self.slices.iter().flatten().map(Slice::file_bytes).sum()
    }

    /// The slice of `b` and the index of `b` in it, when that slice is loaded and `b` can be in a
    /// table at all.
    #[inline]
    fn locate(&self, b: &Board) -> Option<(&Slice, u64)> {
        if !b.is_valid() {
            return None;
        }
        let m = b.material();
        if m.pieces() > MAX_PIECES {
            return None;
        }
        let slice = self.slices[m.code()].as_ref()?;
        Some((slice, slice.layout().rank(b)))
    }

    /// The value and distance (0 for draws or when not stored) of a board, Black to move.
    #[inline]
    pub(crate) fn probe_board(&self, b: &Board) -> Option<(Wdl, Option<u16>)> {
        if b.occupied() == 0 {
            return Some((Wdl::Loss, Some(0)));
        }
        let (slice, i) = self.locate(b)?;
        Some((slice.wdl(i), slice.distance(i)))
    }

    /// The value of `pos` for the side to move; `None` when no loaded table covers it (too many
    /// pieces, a table not built, or an impossible placement such as a man on its crowning row).
    /// Allocation-free. The empty board is a loss (the side to move has no piece).
    #[inline]
    pub fn probe(&self, pos: &Position) -> Option<Wdl> {
        self.probe_board(&Board::from_position(pos)).map(|(wdl, _)| wdl)
    }

    /// Plies to the end of the game with best play (the winner hurrying, the loser holding out),
    /// when `pos` is a win or a loss and distances are stored.
    pub fn distance(&self, pos: &Position) -> Option<u16> {
        match self.probe_board(&Board::from_position(pos))? {
            (Wdl::Draw, _) => None,
            (_, d) => d,
        }
    }

    /// The value of `pos`, a move that keeps it (see [`Probe::best`]) and its distance. `None` when
    /// `pos` or one of its successors is not covered.
    pub fn best_move(&self, pos: &Position) -> Option<Probe> {
        let (wdl, own) = self.probe_board(&Board::from_position(pos))?;
        let distance = if wdl == Wdl::Draw { None } else { own };
        let mut best: Option<(Move, u16)> = None;
        let mut covered = true;
        pos.for_each_legal_move(|mv| {
            let Some((next, d)) = self.probe_board(&Board::from_position(&pos.play_unchecked(mv)))
            else {
                covered = false;
                return;
            };
            let d = d.unwrap_or(0);
            // The value of the move for the mover, and how much better it is (larger is better).
            let keeps = next.flip() == wdl;
            let score = match wdl {
                Wdl::Win => u16::MAX - d,
                Wdl::Loss => d,
                Wdl::Draw => 0,
            };
            if keeps && best.is_none_or(|(_, s)| score > s) {
                best = Some((mv, score));
            }
        });
        if !covered {
            return None;
        }
        Some(Probe { wdl, best: best.map(|(mv, _)| mv), distance })
    }
}

/// `Tables` must be shareable between search threads (e.g. in an `Arc`).
const _: () = {
    const fn shareable<T: Send + Sync>() {}
    shareable::<Tables>()
};
