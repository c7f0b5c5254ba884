//! Self-play workers: each keeps many games in flight and evaluates the leaves of all of them in
//! one batch (one forward pass), so the net never runs on a single position. Workers run on their
//! own threads; finished games flow back to the caller over a channel. With
//! [`GamePlan::value_search_nodes`] a worker scores each finished game's decisions with the
//! alpha-beta engine before sending it ([`ValueSearch`]), and with [`GamePlan::rescore_egdb`] its
//! results by the endgame tables ([`crate::table_results`]); with [`GamePlan::value_lambda`] its
//! search values become λ-returns ([`crate::lambda_returns`]).

use crate::game::SelfPlayGame;
use crate::openings::Openings;
use crate::value_search::ValueSearch;
use crate::{lambda_returns, table_results};
use draughts::DrawRules;
use egdb::Tables;
use search::{EvalError, EvalRequest, Evaluator, GameRecord, MctsConfig, SearchError};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Where a worker spends its time, for the inference-efficiency figures.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WorkerStats {
    /// Positions handed to the evaluator.
    pub positions: u64,
    /// Of those, the ones its cache answered without the net.
    pub cache_hits: u64,
    /// Evaluator calls (batches).
    pub batches: u64,
    /// Time inside the evaluator.
    pub eval_time: Duration,
    /// Time in the whole loop.
    pub total_time: Duration,
}

impl WorkerStats {
    /// Positions the net evaluated (those its cache did not answer).
    pub fn net_positions(&self) -> u64 {
        self.positions - self.cache_hits
    }

    /// Share of the positions the cache answered.
    pub fn cache_hit_rate(&self) -> f64 {
        self.cache_hits as f64 / self.positions.max(1) as f64
    }

    /// Share of the time the net was busy (1.0: the search never kept it waiting).
    pub fn net_busy_share(&self) -> f64 {
        self.eval_time.as_secs_f64() / self.total_time.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    /// Adds `other`'s counts and times to these.
    pub fn add(&mut self, other: &WorkerStats) {
        self.positions += other.positions;
        self.cache_hits += other.cache_hits;
        self.batches += other.batches;
        self.eval_time += other.eval_time;
        self.total_time += other.total_time;
    }
}

/// Hands out game numbers to all workers until a target count, or until stopped.
#[derive(Debug)]
pub struct GameCounter {
    next: AtomicU64,
    end: u64,
    stop: AtomicBool,
}

impl GameCounter {
    /// Game numbers `first..end`.
    pub fn new(first: u64, end: u64) -> GameCounter {
        GameCounter { next: AtomicU64::new(first), end, stop: AtomicBool::new(false) }
    }

    /// The next game number to play, or `None` when all are handed out or play was stopped.
    pub fn take(&self) -> Option<u64> {
        if self.stop.load(Ordering::Relaxed) {
            return None;
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        (n < self.end).then_some(n)
    }

    /// No new games start after this, and workers abandon the games in flight.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether [`GameCounter::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// What every game of a self-play batch shares.
#[derive(Clone, Debug)]
pub struct GamePlan {
    /// The search of every decision.
    pub mcts: MctsConfig,
    /// When a game is drawn.
    pub draw_rules: DrawRules,
    /// Seeds every game: game `n` uses a seed derived from this and `n` alone, so its moves do not
    /// depend on which worker plays it.
    pub seed: u64,
    /// Games one worker keeps in flight.
    pub games_in_flight: usize,
    /// Where each game starts: the start position or an opening ballot.
    pub openings: Openings,
    /// The run's endgame tables, for what the flags below and `value_search_nodes` ask of them.
    pub tables: Option<Arc<Tables>>,
    /// Whether the searches take the positions `tables` cover as exact leaves.
    pub search_egdb: bool,
    /// Whether a game ends at the first position `tables` cover, with their result.
    pub adjudicate_egdb: bool,
    /// Whether a finished game's results are rescored by `tables` (see [`crate::table_results`]).
    pub rescore_egdb: bool,
    /// Nodes of the alpha-beta engine that scores each decision of a finished game for its
    /// search value (the net at its leaves, through [`Evaluator::leaf_evaluator`]); 0: the
    /// MCTS root's value stays.
    pub value_search_nodes: u64,
    /// λ of the search values' λ-returns over the finished game (see [`crate::lambda_returns`]);
    /// 0: each decision's own.
    pub value_lambda: f32,
}

impl GamePlan {
    fn start(&self, number: u64) -> Result<SelfPlayGame, SearchError> {
        let seed = game_seed(self.seed, number);
        let game = self.openings.start(seed, self.draw_rules);
        let search_tables = self.tables.clone().filter(|_| self.search_egdb);
        let adjudicator = self.tables.clone().filter(|_| self.adjudicate_egdb);
        SelfPlayGame::with_tables(&self.mcts, game, seed, search_tables, adjudicator)
    }
}

/// A finished game with its number.
pub struct FinishedGame {
    /// The game's number (see [`GameCounter`]).
    pub number: u64,
    /// The moves, the end, and every decision's search.
    pub record: GameRecord,
    /// Whether the endgame tables changed a result of it ([`GamePlan::rescore_egdb`]).
    pub rescored: bool,
}

/// Plays games numbered by `counter` with `evaluator` until the counter runs out, sending each
/// finished game to `finished`. Returns the worker's timing.
pub fn run_worker(
    plan: &GamePlan,
    evaluator: &mut impl Evaluator,
    counter: &GameCounter,
    finished: &mpsc::Sender<FinishedGame>,
) -> Result<WorkerStats, SearchError> {
    let start = Instant::now();
    let mut stats = WorkerStats::default();
    let leaves_per_game = plan.mcts.leaves_per_batch as usize;
    let mut games: Vec<(u64, SelfPlayGame)> = Vec::with_capacity(plan.games_in_flight);
    let mut requests: Vec<EvalRequest> = Vec::new();
    let mut leaves: Vec<usize> = Vec::new();
    let mut value_search = (plan.value_search_nodes > 0)
        .then(|| ValueSearch::new(plan.value_search_nodes, plan.tables.clone()));
    loop {
        while games.len() < plan.games_in_flight {
            let Some(number) = counter.take() else { break };
            games.push((number, plan.start(number)?));
        }
        if games.is_empty() || counter.is_stopped() {
            break;
        }
        requests.clear();
        leaves.clear();
        for (_, game) in &mut games {
            leaves.push(game.select_leaves(leaves_per_game, &mut requests)?);
        }
        if !requests.is_empty() {
            let eval_start = Instant::now();
            let evaluations = evaluator.evaluate(&requests)?;
            stats.eval_time += eval_start.elapsed();
            stats.positions += requests.len() as u64;
            stats.batches += 1;
            let mut offset = 0;
            for ((_, game), &n) in games.iter_mut().zip(&leaves) {
                game.apply(&evaluations[offset..offset + n])?;
                offset += n;
            }
        }
        // A game that asked for no leaf has ended.
        let mut i = 0;
        while i < games.len() {
            if leaves[i] == 0 {
                let (number, game) = games.swap_remove(i);
                leaves.swap_remove(i);
                let mut record =
                    game.into_record().expect("a game with no leaves to search has ended");
                if let Some(value_search) = &mut value_search {
                    let mut net_leaves =
                        evaluator.leaf_evaluator().ok_or_else(no_leaf_evaluator)?;
                    value_search.score(&mut record, plan.draw_rules, net_leaves.as_mut());
                }
                let rescored = match plan.tables.as_deref().filter(|_| plan.rescore_egdb) {
                    Some(tables) => table_results::rescore(&mut record, tables) > 0,
                    None => false,
                };
                if plan.value_lambda > 0.0 {
                    lambda_returns::apply(&mut record, plan.value_lambda);
                }
                // The receiver only goes away when the caller stops listening; nothing to do then.
                let _ = finished.send(FinishedGame { number, record, rescored });
            } else {
                i += 1;
            }
        }
    }
    stats.total_time = start.elapsed();
    stats.cache_hits = evaluator.answered_from_cache();
    Ok(stats)
}

/// Why a net cannot give alpha-beta value targets.
fn no_leaf_evaluator() -> SearchError {
    let why = "the net has no incremental evaluator for alpha-beta: value targets by alpha-beta (selfplay.value_search_nodes) need a sparse net";
    SearchError::Evaluator(EvalError::new(0, why))
}

/// The seed of game `number` under the run seed `seed`.
pub fn game_seed(seed: u64, number: u64) -> u64 {
    support::mix(seed, number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use draughts::Position;
    use search::UniformEvaluator;

    fn quick_plan() -> GamePlan {
        let mut mcts = MctsConfig::default();
        mcts.playout_cap.full_visits = 16;
        mcts.playout_cap.cheap_visits = 4;
        GamePlan {
            mcts,
            draw_rules: DrawRules { max_plies: 60, ..DrawRules::default() },
            seed: 1,
            games_in_flight: 4,
            openings: Openings::none(),
            tables: None,
            search_egdb: true,
            adjudicate_egdb: false,
            rescore_egdb: false,
            value_search_nodes: 0,
            value_lambda: 0.0,
        }
    }

    #[test]
    fn worker_plays_every_game_once_in_batches() {
        let plan = quick_plan();
        let counter = GameCounter::new(0, 6);
        let (tx, rx) = mpsc::channel();
        let stats = run_worker(&plan, &mut UniformEvaluator, &counter, &tx).unwrap();
        drop(tx);
        let mut numbers: Vec<u64> = rx.iter().map(|g| g.number).collect();
        numbers.sort();
        assert_eq!(numbers, (0..6).collect::<Vec<_>>());
        assert!(stats.batches > 0 && stats.positions > stats.batches, "{stats:?}");
    }

    /// The uniform net, with an incremental evaluator for alpha-beta that counts its leaves.
    struct CountingLeaves(Arc<AtomicU64>);

    impl search::alphabeta::LeafEvaluator for CountingLeaves {
        fn start(&mut self, _root: &Position) {}
        fn push(&mut self, _parent: &Position, _child: &Position) {}
        fn pop(&mut self) {}
        fn value(&mut self, _observation: &draughts::Observation) -> f32 {
            self.0.fetch_add(1, Ordering::Relaxed);
            0.0
        }
    }

    struct UniformWithLeaves(Arc<AtomicU64>);

    impl Evaluator for UniformWithLeaves {
        fn evaluate(
            &mut self,
            requests: &[EvalRequest],
        ) -> Result<Vec<search::Evaluation>, EvalError> {
            UniformEvaluator.evaluate(requests)
        }

        fn leaf_evaluator(&mut self) -> Option<Box<dyn search::alphabeta::LeafEvaluator>> {
            Some(Box::new(CountingLeaves(Arc::clone(&self.0))))
        }
    }

    #[test]
    fn value_search_scores_finished_games_with_the_nets_leaves_and_needs_them() {
        let plan = GamePlan { value_search_nodes: 200, ..quick_plan() };
        let leaves = Arc::new(AtomicU64::new(0));
        let (tx, rx) = mpsc::channel();
        let counter = GameCounter::new(0, 2);
        run_worker(&plan, &mut UniformWithLeaves(Arc::clone(&leaves)), &counter, &tx).unwrap();
        drop(tx);
        assert_eq!(rx.iter().count(), 2);
        assert!(leaves.load(Ordering::Relaxed) > 100, "the engine scored its leaves with the net");
        let (tx, _rx) = mpsc::channel();
        let counter = GameCounter::new(0, 1);
        let err = run_worker(&plan, &mut UniformEvaluator, &counter, &tx).unwrap_err();
        assert!(err.to_string().contains("evaluator failed"), "{err}");
        let SearchError::Evaluator(cause) = err else { panic!("{err:?}") };
        assert!(format!("{cause:?}").contains("selfplay.value_search_nodes"), "{cause:?}");
    }

    #[test]
    fn a_game_depends_on_its_number_not_its_worker() {
        let plan = quick_plan();
        let play = |first, end| {
            let counter = GameCounter::new(first, end);
            let (tx, rx) = mpsc::channel();
            run_worker(&plan, &mut UniformEvaluator, &counter, &tx).unwrap();
            drop(tx);
            rx.iter()
                .map(|g| (g.number, g.record.moves))
                .collect::<std::collections::BTreeMap<_, _>>()
        };
        let all = play(0, 4);
        let tail = play(2, 4);
        assert_eq!(all[&2], tail[&2]);
        assert_eq!(all[&3], tail[&3]);
    }
}
