//! The alpha-beta engine on one thread: nodes per second and the depth it reaches in a fixed
//! time a move, with the static evaluation (the classic baseline), and with a sparse net at the
//! leaves three ways: its integer accumulators kept move by move (what the player uses), and the
//! whole f32 forward pass from the features at each leaf, under the full engine. And what each
//! refinement of the full engine saves: the nodes it needs to complete a fixed depth over the same
//! positions with that refinement off, over the nodes with all on (a count, so the same on any
//! machine).

use search::alphabeta::{AlphaBeta, AlphaBetaConfig, BestMove, Limit, SearchFeatures};
use search::EvalRequest;
use sparsenet::{IncrementalNet, QuantisedNet, SparseEvaluator, SparseWeights};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The table of every engine in the benchmark: 2^18 entries, as the players'.
const TABLE_BITS: u8 = 18;

/// One engine's figures over the benchmark's positions.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct EngineFigures {
    /// Nodes searched per second, all positions together.
    pub nodes_per_s: f64,
    /// Mean depth of the last completed iteration.
    pub mean_depth: f64,
    /// Effective branching factor: the geometric mean over positions of
    /// `(nodes of the last iteration / nodes of the first)^(1 / (depth - 1))`.
    pub branching: f64,
}

/// The three engines' figures.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct AlphaBetaBench {
    /// The classic engine with the static evaluation (the `alphabeta` baseline).
    pub classic_static: EngineFigures,
    /// The full engine with the net's integer accumulators kept move by move.
    pub net_incremental: EngineFigures,
    /// The full engine with the net's f32 forward pass from the features at each leaf.
    pub net_full_recompute: EngineFigures,
    /// For each refinement of the full engine: its name and the nodes the engine needs to
    /// complete [`AlphaBetaBench::feature_depth`] over the positions without it, over the nodes
    /// with every refinement on (above 1: the refinement saves nodes).
    pub feature_node_ratios: Vec<(String, f64)>,
    /// The depth of the node counts.
    pub feature_depth: u32,
    /// Time a move.
    pub seconds_per_move: f64,
    /// Positions searched by each engine.
    pub positions: usize,
}

/// Turns one refinement off.
type TurnOff = fn(&mut SearchFeatures);

/// The refinements whose node counts are measured, each with how to turn it off.
const FEATURES: [(&str, TurnOff); 6] = [
    ("pvs", |f| f.pvs = false),
    ("aspiration", |f| f.aspiration = 0),
    ("killers", |f| f.killers = false),
    ("history", |f| f.history = false),
    ("policy", |f| f.policy = false),
    ("keep_table", |f| f.keep_table = false),
];

/// Searches each of the start-of-move positions of `requests` (every 37th, `positions` of them)
/// for `per_move` with each engine, and to `feature_depth` with each refinement off.
pub fn bench_alphabeta(
    weights: &Arc<SparseWeights>,
    requests: &[EvalRequest],
    per_move: Duration,
    positions: usize,
    feature_depth: u32,
) -> AlphaBetaBench {
    let games = bench_games(requests, positions);
    let limit = Limit::Time(per_move);
    let quantised = Arc::new(QuantisedNet::new(weights));
    let quantised = &quantised;
    let classic = measure(&games, AlphaBetaConfig::default(), |engine, game, on_iteration| {
        engine.best_move_controlled(game, limit, None, on_iteration)
    });
    let net_incremental = incremental_engine(quantised, &games, limit);
    let mut recompute = SparseEvaluator::new(Arc::clone(weights));
    let net_full_recompute = measure(&games, full(), |engine, game, on_iteration| {
        engine
            .best_move_evaluated(game, limit, None, on_iteration, &mut recompute)
            .expect("the native net never fails")
    });
    let nodes_to_depth = |features: SearchFeatures| -> u64 {
        let mut leaves = IncrementalNet::new(Arc::clone(quantised));
        let mut engine = AlphaBeta::new(&AlphaBetaConfig { tt_bits: TABLE_BITS, features });
        let mut search = |game| {
            engine
                .best_move_parallel(
                    game,
                    Limit::Depth(feature_depth),
                    None,
                    &mut |_| {},
                    &mut leaves,
                    &mut [],
                )
                .map_or(0, |best| best.nodes)
        };
        games.iter().map(&mut search).sum()
    };
    let all_on = nodes_to_depth(SearchFeatures::full()).max(1) as f64;
    let feature_node_ratios = FEATURES
        .iter()
        .map(|(name, turn_off)| {
            let mut features = SearchFeatures::full();
            turn_off(&mut features);
            (name.to_string(), nodes_to_depth(features) as f64 / all_on)
        })
        .collect();
    AlphaBetaBench {
        classic_static: classic,
        net_incremental,
        net_full_recompute,
        feature_node_ratios,
        feature_depth,
        seconds_per_move: per_move.as_secs_f64(),
        positions: games.len(),
    }
}

/// The start-of-move positions with a move among `requests`, every 37th, `positions` of them, as
/// games.
pub(super) fn bench_games(requests: &[EvalRequest], positions: usize) -> Vec<draughts::Game> {
    requests
        .iter()
        .filter(|r| r.observation.moving_piece.is_none())
        .filter(|r| !r.observation.position.legal_moves().is_empty())
        .step_by(37)
        .take(positions)
        .map(|r| draughts::Game::new(r.observation.position, draughts::DrawRules::default()))
        .collect()
}

/// The full engine over `games` with `net`'s integer accumulators kept move by move at its
/// leaves, `limit` a move.
pub(super) fn incremental_engine(
    net: &Arc<QuantisedNet>,
    games: &[draughts::Game],
    limit: Limit,
) -> EngineFigures {
    let mut incremental = IncrementalNet::new(Arc::clone(net));
    measure(games, full(), |engine, game, on_iteration| {
        engine.best_move_parallel(game, limit, None, on_iteration, &mut incremental, &mut [])
    })
}

fn full() -> AlphaBetaConfig {
    AlphaBetaConfig::full(TABLE_BITS)
}

/// One engine (a fresh one, so that no table is shared between the engines) over `games`.
fn measure(
    games: &[draughts::Game],
    config: AlphaBetaConfig,
    mut search: impl FnMut(
        &mut AlphaBeta,
        &draughts::Game,
        &mut dyn FnMut(&BestMove),
    ) -> Option<BestMove>,
) -> EngineFigures {
    let mut engine = AlphaBeta::new(&config);
    // One search untimed first, so that the table's memory is touched before the clock runs.
    if let Some(game) = games.first() {
        search(&mut engine, game, &mut |_| {});
    }
    let (mut nodes, mut depths, mut log_branching, mut deep) = (0u64, 0u64, 0.0f64, 0u32);
    let started = Instant::now();
    for game in games {
        let mut iterations: Vec<(u32, u64)> = Vec::new();
        let best = search(&mut engine, game, &mut |b| iterations.push((b.depth, b.nodes)));
        let best = best.expect("the benchmark's positions have moves");
        nodes += best.nodes;
        depths += u64::from(best.depth);
        if let (Some(&(1, first)), Some(&(depth, last))) = (iterations.first(), iterations.last()) {
            if depth > 1 && first > 0 {
                log_branching += (last as f64 / first as f64).ln() / f64::from(depth - 1);
                deep += 1;
            }
        }
    }
    EngineFigures {
        nodes_per_s: nodes as f64 / started.elapsed().as_secs_f64(),
        mean_depth: depths as f64 / games.len().max(1) as f64,
        branching: if deep > 0 { (log_branching / f64::from(deep)).exp() } else { 0.0 },
    }
}
