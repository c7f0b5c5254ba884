//! The sparse net's cost by size, on one thread: for each size of [`SIZES`] (an accumulator
//! width and a count of value stacks, the dense layers as the default's), evaluations per second of the whole forward pass from the
//! features, one position a call (what MCTS asks for), and nodes per second of the full
//! alpha-beta engine with the net's integer accumulators kept move by move (what its player
//! uses), over the same positions; each also as a share of the narrowest net's figure. The nets
//! have random weights, so the engines' trees differ; the rates are what is compared.

use super::alphabeta::{bench_games, incremental_engine};
use super::families::{evaluations_per_sec, sparse_weights};
use model::{NetConfig, SparseConfig};
use search::alphabeta::Limit;
use search::{BoxedEvaluator, EvalRequest};
use sparsenet::{QuantisedNet, SparseEvaluator};
use std::sync::Arc;
use std::time::Duration;

/// The sizes measured, as (accumulator, buckets): the default, the default with a value stack per
/// bucket of material of four (`net.buckets`), and two and four times its width (what a run grows
/// its net to with `net.accumulator`).
pub const SIZES: [(usize, usize); 4] = [(128, 1), (128, 4), (256, 1), (512, 1)];

/// One size's figures.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SizeFigures {
    /// The net (`sparse 256-32x2`).
    pub net: String,
    /// Its accumulator's width.
    pub accumulator: usize,
    /// Its value stacks, one per bucket of material.
    pub buckets: usize,
    /// Evaluations per second, one position a call, features to priors.
    pub evals_per_s: f64,
    /// Nodes per second of the full alpha-beta engine with the net incremental.
    pub alphabeta_nodes_per_s: f64,
}

/// How long each size is measured.
#[derive(Clone, Copy, Debug)]
pub struct SizePlan {
    /// The evaluation figure.
    pub evaluations: Duration,
    /// Time a move of the alpha-beta figure.
    pub per_move: Duration,
    /// Positions the alpha-beta engine searches.
    pub positions: usize,
}

/// Measures each size of [`SIZES`] over `requests`.
pub fn bench_sizes(requests: &[EvalRequest], plan: SizePlan) -> anyhow::Result<Vec<SizeFigures>> {
    let games = bench_games(requests, plan.positions);
    SIZES
        .iter()
        .map(|&(accumulator, buckets)| {
            let config =
                NetConfig::Sparse(SparseConfig { accumulator, buckets, ..SparseConfig::default() });
            let weights =
                super::in_scratch_dir("sizes", |scratch| sparse_weights(&config, scratch))?;
            let mut evaluator: BoxedEvaluator =
                Box::new(SparseEvaluator::new(Arc::clone(&weights)));
            let evals_per_s = evaluations_per_sec(&mut evaluator, requests, 1, plan.evaluations)?;
            let quantised = Arc::new(QuantisedNet::new(&weights));
            let engine = incremental_engine(&quantised, &games, Limit::Time(plan.per_move));
            Ok(SizeFigures {
                net: config.short_name(),
                accumulator,
                buckets,
                evals_per_s,
                alphabeta_nodes_per_s: engine.nodes_per_s,
            })
        })
        .collect()
}
