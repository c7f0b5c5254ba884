//! The alpha-beta player: the search crate's engine, limited by depth or time per move.

use crate::error::{ArenaError, PlayerFailure};
use crate::player::{Choice, Player};
use draughts::Game;
use search::alphabeta::{AlphaBeta, AlphaBetaConfig, Limit, WIN};

/// The built-in alpha-beta engine as a player, searching each move to a depth or for a time.
pub struct AlphaBetaPlayer {
    engine: AlphaBeta,
    limit: Limit,
}

impl AlphaBetaPlayer {
    /// An engine with the default settings that searches each move within `limit`.
    pub fn new(limit: Limit) -> AlphaBetaPlayer {
        AlphaBetaPlayer { engine: AlphaBeta::new(&AlphaBetaConfig::default()), limit }
    }
}

impl Player for AlphaBetaPlayer {
    fn choose(&mut self, game: &Game) -> Result<Choice, ArenaError> {
        let best =
            self.engine.best_move(game, self.limit).ok_or_else(|| ArenaError::PlayerFailed {
                player: "alphabeta".to_string(),
                ply: game.ply(),
                source: PlayerFailure::NoMove,
            })?;
        Ok(Choice { mv: best.mv, value: Some(value_of_score(best.score)), pv: best.pv })
    }
}

/// Scores at least this far from 0 are found wins or losses (`WIN` less the plies to the end; no
/// static evaluation comes near).
const WON: i32 = WIN - 1000;

/// The engine's score (hundredths of a man, `WIN` for a win) as a value in [-1, 1]: a won or lost
/// position is ±1; otherwise `tanh` of the material edge in men, so one man up is about 0.46.
fn value_of_score(score: i32) -> f32 {
    if score.abs() >= WON {
        score.signum() as f32
    } else {
        (score as f32 / 200.0).tanh()
    }
}
