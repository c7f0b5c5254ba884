//! Perft: counting the leaves of the move tree, the reference check of move generation.

use crate::position::Position;
use std::collections::HashSet;

/// Leaf count at `depth`, every capture path counted separately (as the published table does).
/// Uses bulk counting at the last ply.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => {
            let mut n = 0;
            pos.for_each_legal_move(|mv| n += perft(&pos.play(mv), depth - 1));
            n
        }
    }
}

/// Leaf count at `depth` where capture paths that reach the same position count once.
pub fn perft_unique(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut seen = HashSet::new();
    let mut n = 0;
    pos.for_each_legal_move(|mv| {
        let next = pos.play(mv);
        if !mv.is_capture() || seen.insert(next) {
            n += perft_unique(&next, depth - 1);
        }
    });
    n
}

/// Counts perft leaves with a choice of duplicate handling, for the CLI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerftCounter {
    AllPaths,
    UniquePositions,
}

impl PerftCounter {
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

    const PUBLISHED: [u64; 10] = [7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564];

    #[test]
    fn start_position_matches_published_counts() {
        let start = Position::start();
        for (i, &expected) in PUBLISHED.iter().enumerate() {
            assert_eq!(perft(&start, i as u32 + 1), expected, "perft({})", i + 1);
        }
    }

    #[test]
    fn unique_counts_never_exceed_all_paths() {
        let start = Position::start();
        for depth in 1..=8 {
            assert!(perft_unique(&start, depth) <= perft(&start, depth));
        }
    }
}
