//! The alpha-beta player: the search crate's engine, limited by depth or time per move, its quiet
//! leaves scored by the static evaluation or by a net's value.

use crate::error::{ArenaError, PlayerFailure};
use crate::player::{Choice, Player};
use draughts::Game;
use search::alphabeta::{value_of_score, AlphaBeta, AlphaBetaConfig, BestMove, Limit, WIN, WON};
use search::{BoxedEvaluator, MoveBudget, Progress, Score, SearchControl, ThinkRequest};
use std::time::{Duration, Instant};

/// The built-in alpha-beta engine as a player, searching each move to a depth or for a time.
pub struct AlphaBetaPlayer {
    engine: AlphaBeta,
    limit: Limit,
    /// The name its failures are reported under.
    name: String,
    /// Scores the quiet leaves in place of the static evaluation, when given.
    evaluator: Option<BoxedEvaluator>,
}

impl AlphaBetaPlayer {
    /// An engine with the default settings that searches each move within `limit`.
    pub fn new(limit: Limit) -> AlphaBetaPlayer {
        AlphaBetaPlayer {
            engine: AlphaBeta::new(&AlphaBetaConfig::default()),
            limit,
            name: "alphabeta".to_string(),
            evaluator: None,
        }
    }

    /// The player named `name` whose engine takes `evaluator`'s value (a net's) at its quiet
    /// leaves (see `search::alphabeta::AlphaBeta::best_move_evaluated`).
    pub fn with_evaluator(self, name: String, evaluator: BoxedEvaluator) -> AlphaBetaPlayer {
        AlphaBetaPlayer { name, evaluator: Some(evaluator), ..self }
    }

    /// The engine's answer within `limit`, its iterations told to `on_iteration`.
    fn search(
        &mut self,
        game: &Game,
        limit: Limit,
        control: Option<&SearchControl>,
        on_iteration: &mut dyn FnMut(&BestMove),
    ) -> Result<Choice, ArenaError> {
        let best = match &mut self.evaluator {
            None => Ok(self.engine.best_move_controlled(game, limit, control, on_iteration)),
            Some(evaluator) => {
                self.engine.best_move_evaluated(game, limit, control, on_iteration, evaluator)
            }
        };
        let failed = |source| ArenaError::PlayerFailed {
            player: self.name.clone(),
            ply: game.ply(),
            source,
        };
        let best = best
            .map_err(|e| failed(PlayerFailure::Search(e)))?
            .ok_or_else(|| failed(PlayerFailure::NoMove))?;
        Ok(Choice { mv: best.mv, value: Some(value_of_score(best.score)), pv: best.pv })
    }
}

impl Player for AlphaBetaPlayer {
    fn choose(&mut self, game: &Game) -> Result<Choice, ArenaError> {
        self.search(game, self.limit, None, &mut |_| {})
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
        self.search(game, limit, Some(control), &mut on_iteration)
    }
}

/// An infinite search's time limit: longer than anyone waits for a `stop`.
const UNTIL_STOPPED: Duration = Duration::from_secs(365 * 24 * 3600);

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
        outlook: None,
        root_moves: Vec::new(),
    }
}
