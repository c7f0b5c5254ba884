//! The alpha-beta player: the search crate's engine, limited by depth or time per move.

use crate::error::{ArenaError, PlayerFailure};
use crate::player::{Choice, Player};
use draughts::Game;
use search::alphabeta::{AlphaBeta, AlphaBetaConfig, BestMove, Limit, WIN};
use search::{MoveBudget, Progress, Score, ThinkRequest};
use std::time::{Duration, Instant};

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
        let best = self.engine.best_move(game, self.limit);
        choice(game, best)
    }

    fn think(&mut self, game: &Game, request: ThinkRequest<'_>) -> Result<Choice, ArenaError> {
        let ThinkRequest { budget, control, report } = request;
        let limit = match budget {
            MoveBudget::Own => self.limit,
            MoveBudget::Time(time) => Limit::Time(time),
            MoveBudget::Depth(depth) => Limit::Depth(depth),
            MoveBudget::Nodes(nodes) => Limit::Nodes(nodes),
            MoveBudget::Infinite => Limit::Time(UNTIL_STOPPED),
        };
        let started = Instant::now();
        let mut on_iteration = |best: &BestMove| report(&progress(best, started.elapsed()));
        let best = self.engine.best_move_controlled(game, limit, Some(control), &mut on_iteration);
        choice(game, best)
    }
}

/// An infinite search's time limit: longer than anyone waits for a `stop`.
const UNTIL_STOPPED: Duration = Duration::from_secs(365 * 24 * 3600);

fn choice(game: &Game, best: Option<BestMove>) -> Result<Choice, ArenaError> {
    let best = best.ok_or_else(|| ArenaError::PlayerFailed {
        player: "alphabeta".to_string(),
        ply: game.ply(),
        source: PlayerFailure::NoMove,
    })?;
    Ok(Choice { mv: best.mv, value: Some(value_of_score(best.score)), pv: best.pv })
}

fn progress(best: &BestMove, elapsed: Duration) -> Progress {
    let score = match best.score {
        s if s >= WON => Score::WinIn((WIN - s) as u32),
        s if s <= -WON => Score::LossIn((WIN + s) as u32),
        s => Score::Men(s as f32 / 100.0),
    };
    Progress {
        depth: best.depth,
        playouts: None,
        nodes: best.nodes,
        score,
        pv: best.pv.clone(),
        elapsed,
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
