//! The alpha-beta player: the search crate's engine, limited by depth or time per move. With the
//! static evaluation it is the classic baseline; with a net it is the full engine (every search
//! refinement, the endgame tables when given), its quiet leaves scored by the net's incremental
//! evaluator where the net has one (the sparse family), else by a request a leaf.

use crate::error::{ArenaError, PlayerFailure};
use crate::player::{Choice, Player};
use draughts::Game;
use egdb::Tables;
use search::alphabeta::{
    value_of_score, AlphaBeta, AlphaBetaConfig, BestMove, LeafEvaluator, Limit, SearchFeatures,
    WIN, WON,
};
use search::{BoxedEvaluator, LoadedNet, MoveBudget, Progress, Score, SearchControl, ThinkRequest};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Table entries of the full engine: 2^18 (4 MB a player, so that a server's games stay
/// small; a larger table measured no faster at 0.1 s a move).
const FULL_TABLE_BITS: u8 = 18;

/// What scores the engine's quiet leaves.
enum LeafScoring {
    /// The static evaluation.
    Static,
    /// A net's evaluator, one request a leaf.
    Requests(BoxedEvaluator),
    /// A net's incremental evaluators: the main search's, and one for each helper thread.
    Incremental(Box<dyn LeafEvaluator>, Vec<Box<dyn LeafEvaluator>>),
}

/// The built-in alpha-beta engine as a player, searching each move to a depth or for a time.
pub struct AlphaBetaPlayer {
    engine: AlphaBeta,
    limit: Limit,
    /// The name its failures are reported under.
    name: String,
    leaves: LeafScoring,
}

impl AlphaBetaPlayer {
    /// An engine with the default settings that searches each move within `limit`.
    pub fn new(limit: Limit) -> AlphaBetaPlayer {
        AlphaBetaPlayer {
            engine: AlphaBeta::new(&AlphaBetaConfig::default()),
            limit,
            name: "alphabeta".to_string(),
            leaves: LeafScoring::Static,
        }
    }

    /// Bytes the table of the player holds at most: the full engine's (a player with a net, see
    /// [`AlphaBetaPlayer::with_net`]) or the classic one's.
    pub fn table_bytes(with_net: bool) -> u64 {
        let bits = if with_net { FULL_TABLE_BITS } else { AlphaBetaConfig::default().tt_bits };
        AlphaBetaConfig { tt_bits: bits, ..AlphaBetaConfig::default() }.table_bytes()
    }

    /// The same player with the engine's refinements `features` (its table kept).
    pub fn with_features(self, features: SearchFeatures) -> Self {
        AlphaBetaPlayer { engine: self.engine.with_features(features), ..self }
    }

    /// The player named `name` with the engine of `features` (the full one unless a spec
    /// changed them), which takes `net`'s value at its quiet leaves (incrementally, on the
    /// features' threads, where the net can) and scores the positions `tables` cover by them.
    pub fn with_net(
        self,
        name: String,
        net: &LoadedNet,
        tables: Option<Arc<Tables>>,
        features: SearchFeatures,
    ) -> Self {
        let leaves = match &net.leaf_evaluators {
            Some(make) => {
                let helpers = (1..features.threads).map(|_| make()).collect();
                LeafScoring::Incremental(make(), helpers)
            }
            None => LeafScoring::Requests((net.evaluators)()),
        };
        // The classic engine's table goes before the full one's is made: one table at a time.
        let AlphaBetaPlayer { limit, engine, .. } = self;
        drop(engine);
        let config = AlphaBetaConfig { tt_bits: FULL_TABLE_BITS, features };
        let engine = AlphaBeta::new(&config).with_tables(tables);
        AlphaBetaPlayer { engine, limit, name, leaves }
    }

    /// The engine's answer within `limit`, its iterations told to `on_iteration`.
    fn search(
        &mut self,
        game: &Game,
        limit: Limit,
        control: Option<&SearchControl>,
        on_iteration: &mut dyn FnMut(&BestMove),
    ) -> Result<Choice, ArenaError> {
        let engine = &mut self.engine;
        let best = match &mut self.leaves {
            LeafScoring::Static => {
                Ok(engine.best_move_controlled(game, limit, control, on_iteration))
            }
            LeafScoring::Requests(evaluator) => {
                engine.best_move_evaluated(game, limit, control, on_iteration, evaluator)
            }
            LeafScoring::Incremental(leaves, helpers) => Ok(engine.best_move_parallel(
                game,
                limit,
                control,
                on_iteration,
                leaves.as_mut(),
                helpers,
            )),
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
            MoveBudget::Clock { target, most } => Limit::Clock { target, most },
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
