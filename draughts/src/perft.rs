//! Perft: counting the leaves of the move tree, the reference check of move generation.

use crate::position::Position;
use smallvec::SmallVec;

/// Leaf count at `depth`, every capture path counted separately (as the published table does).
/// Uses bulk counting at the last ply.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => {
            let mut n = 0;
            pos.for_each_legal_move(|mv| n += perft(&pos.play_unchecked(mv), depth - 1));
            n
        }
    }
}

/// Leaf count at `depth` where capture paths that reach the same position count once.
/// Uses bulk counting at the last ply when there is no capture.
pub fn perft_unique(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 && !pos.has_capture() {
        return pos.count_legal_moves();
    }
    // Positions reached by captures so far; there are few, so a list beats a hash set.
    let mut seen: SmallVec<[Position; 16]> = SmallVec::new();
    let mut n = 0;
    pos.for_each_legal_move(|mv| {
        let next = pos.play_unchecked(mv);
        if mv.is_capture() {
            if seen.contains(&next) {
                return;
            }
            seen.push(next);
        }
        n += perft_unique(&next, depth - 1);
    });
    n
}

/// Counts perft leaves with a choice of duplicate handling, for the CLI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerftCounter {
    /// Every move path counts, so captures that reach the same position by two paths count twice ([`perft`]).
    AllPaths,
    /// Moves leading to the same position count once ([`perft_unique`]).
    UniquePositions,
}

impl PerftCounter {
    /// The leaves of the move tree of `pos` at `depth` plies, counted this way.
    pub fn count(self, pos: &Position, depth: u32) -> u64 {
        match self {
            PerftCounter::AllPaths => perft(pos, depth),
            PerftCounter::UniquePositions => perft_unique(pos, depth),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The published start-position counts are in the suite tests/perft/start.perft; the speed is
    // `checkers-zero bench`'s perft row.

    #[test]
    fn unique_counts_never_exceed_all_paths() {
        let start = Position::start();
        for depth in 1..=8 {
            assert!(perft_unique(&start, depth) <= perft(&start, depth));
        }
    }
}
