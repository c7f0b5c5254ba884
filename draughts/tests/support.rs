//! Helpers shared by the tests: positions from FEN, sorted move texts, random games.

use draughts::{Move, Position};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub fn fen(text: &str) -> Position {
    Position::from_fen(text).unwrap_or_else(|e| panic!("{e}"))
}

/// The legal moves as sorted PDN texts with full paths.
pub fn move_texts(pos: &Position) -> Vec<String> {
    let mut texts: Vec<String> = pos.legal_moves().iter().map(Move::to_string).collect();
    texts.sort();
    texts
}

/// The positions and moves of a random game of at most `max_plies` plies from `start`.
pub fn random_game(start: Position, seed: u64, max_plies: usize) -> Vec<(Position, Move)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pos = start;
    let mut played = Vec::new();
    for _ in 0..max_plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.random_range(0..moves.len())];
        played.push((pos, mv));
        pos = pos.play(mv);
    }
    played
}
