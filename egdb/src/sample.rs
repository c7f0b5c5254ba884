//! Random positions drawn from the loaded tables with their exact values: a fixed test set, e.g.
//! to measure how well a net's value head knows the endgame.

use crate::material::MAX_PIECES;
use crate::probe::Tables;
use crate::Wdl;
use draughts::{Color, Position};
use support::SplitMix64;

/// Draws per position asked for before [`Tables::sample_positions`] gives up on finding more
/// positions that are not over (only reached with tables where almost every position is over).
const ATTEMPTS_PER_POSITION: usize = 64;

impl Tables {
    /// `n` positions drawn with replacement, uniformly among every position with at most
    /// [`Tables::max_pieces`] pieces and either side to move, each with its value for the side to
    /// move. Positions that are over (the side to move has no legal move) are left out. A slice is
    /// drawn with a weight of its size, then a uniform index in it is unranked, then the side to
    /// move; so the same `seed` and tables give the same positions in the same order. Empty when
    /// no table is loaded; shorter than `n` only when almost every covered position is over.
    pub fn sample_positions(&self, seed: u64, n: usize) -> Vec<(Position, Wdl)> {
        let pieces = self.max_pieces().min(MAX_PIECES);
        let slices: Vec<_> = self
            .slices
            .iter()
            .flatten()
            .filter(|s| s.layout().material().pieces() <= pieces)
            .collect();
        // The index one past each slice's positions in their concatenation.
        let ends: Vec<u64> = slices
            .iter()
            .scan(0, |end, s| {
                *end += s.layout().size();
                Some(*end)
            })
            .collect();
        let Some(&total) = ends.last() else {
            return Vec::new();
        };
        let mut rng = SplitMix64::new(seed);
        let mut out = Vec::with_capacity(n);
        for _ in 0..n.saturating_mul(ATTEMPTS_PER_POSITION) {
            if out.len() == n {
                break;
            }
            let r = rng.below(total);
            let k = ends.partition_point(|&end| end <= r);
            let slice = slices[k];
            let index = r - (ends[k] - slice.layout().size());
            let side = if rng.next_u64() & 1 == 0 { Color::Black } else { Color::White };
            let pos = slice.layout().unrank(index).to_position_for(side);
            if !pos.is_lost() {
                out.push((pos, slice.wdl(index)));
            }
        }
        out
    }
}
