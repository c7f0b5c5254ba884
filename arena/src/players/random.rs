//! The random player: a uniformly drawn legal move, from a seeded generator.

use crate::error::ArenaError;
use crate::player::{Choice, Player};
use draughts::Game;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Plays a uniformly random legal move: the weakest anchor of the ladder.
pub struct RandomPlayer {
    rng: StdRng,
}

impl RandomPlayer {
    /// A player whose choices are fixed by `seed`.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer { rng: StdRng::seed_from_u64(seed) }
    }
}

impl Player for RandomPlayer {
    fn choose(&mut self, game: &Game) -> Result<Choice, ArenaError> {
        let moves = game.position().legal_moves();
        let mv = moves[self.rng.random_range(0..moves.len())];
        Ok(Choice::bare(mv))
    }
}
