//! Zobrist hashing of positions, computed from scratch or updated move by move.

use crate::bitboard::Bitboard;
use crate::moves::Move;
use crate::position::Position;
use crate::square::{Color, Square};
use support::SplitMix64;

/// Keys indexed by `[color][is_king][square]`.
const fn build_keys() -> [[[u64; 32]; 2]; 2] {
    let mut keys = [[[0; 32]; 2]; 2];
    let mut rng = SplitMix64::new(0x00C0_FFEE_D1A6_0A15);
    let mut i = 0;
    while i < 128 {
        keys[i / 64][(i / 32) % 2][i % 32] = rng.next_u64();
        i += 1;
    }
    keys
}

static PIECE_KEYS: [[[u64; 32]; 2]; 2] = build_keys();
const WHITE_TO_MOVE: u64 = SplitMix64::new(0x5EED).next_u64();

#[inline]
fn key(color: Color, king: bool, sq: Square) -> u64 {
    PIECE_KEYS[color.index()][king as usize][sq.index()]
}

fn keys_of(squares: Bitboard, color: Color, king: bool) -> u64 {
    squares.fold(0, |h, sq| h ^ key(color, king, sq))
}

impl Position {
    /// The Zobrist hash of this position (pieces and side to move), computed from scratch.
    pub fn hash(&self) -> u64 {
        let side = if self.side_to_move() == Color::White { WHITE_TO_MOVE } else { 0 };
        [Color::Black, Color::White].iter().fold(side, |h, &c| {
            h ^ keys_of(self.men(c), c, false) ^ keys_of(self.kings(c), c, true)
        })
    }

    /// The hash of `self.play_unchecked(mv)`, updated from `hash` (the hash of `self`) without recomputing.
    #[inline]
    pub fn hash_after(&self, hash: u64, mv: Move) -> u64 {
        let us = self.side_to_move();
        let them = us.other();
        let was_king = self.kings(us).contains(mv.from());
        let is_king = was_king || Position::crown_row(us).contains(mv.to());
        let mut h = hash ^ WHITE_TO_MOVE ^ key(us, was_king, mv.from()) ^ key(us, is_king, mv.to());
        if mv.is_capture() {
            h ^= keys_of(mv.captured() & self.men(them), them, false);
            h ^= keys_of(mv.captured() & self.kings(them), them, true);
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incremental_hash_equals_recomputed_along_games() {
        let mut pos = Position::start();
        let mut hash = pos.hash();
        let mut rng = SplitMix64::new(7);
        for _ in 0..2000 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                pos = Position::start();
                hash = pos.hash();
                continue;
            }
            let mv = moves[rng.below(moves.len() as u64) as usize];
            hash = pos.hash_after(hash, mv);
            pos = pos.play_unchecked(mv);
            assert_eq!(hash, pos.hash());
        }
    }
}
