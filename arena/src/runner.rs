//! Plays a schedule of games in parallel and hands the finished games back in schedule order,
//! so that progress, records and early stopping (SPRT) see the same sequence whatever the
//! number of threads.

use crate::clock::GameClock;
use crate::error::ArenaError;
use crate::fixture::Fixture;
use crate::play::{play_fixture, PlayedGame};
use crate::player::Contestant;
use draughts::DrawRules;
use egdb::Tables;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Games at once between players whose nets share batches: each game's search waits for its
/// net's answers most of the time, and their requests together make the batches (with the
/// evaluation cache answering some of the leaves, more games keep the batches full; measured in
/// docs/performance.md).
pub const GAMES_SHARING_NETS: usize = 128;

/// How the games of a match are played.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Draw rules of every game (repetition, no-progress and ply limits).
    pub rules: DrawRules,
    /// Drives every player's randomness.
    pub seed: u64,
    /// Games played at once; 0 means [`GAMES_SHARING_NETS`] when both contestants share batches
    /// ([`Contestant::shares_batches`]), else one per core.
    pub threads: usize,
    /// Endgame tables that adjudicate a game at the first position they cover; `None` plays every
    /// game to its end by the rules.
    pub tables: Option<Arc<Tables>>,
    /// A clock both sides play under (each move thought about within its budget, a side out of
    /// time losing); `None`: each player's own budget a move.
    pub clock: Option<GameClock>,
}

/// Plays `fixtures` between `a` and `b`. `on_game` sees each finished game in schedule order and
/// may stop the match; games after the one it stopped at are dropped (those in flight finish first).
/// Returns the games `on_game` saw. The first failing game (in schedule order) is the error.
pub fn run_fixtures(
    a: &dyn Contestant,
    b: &dyn Contestant,
    fixtures: &[Fixture],
    config: MatchConfig,
    on_game: impl FnMut(&PlayedGame) -> ControlFlow<()> + Send,
) -> Result<Vec<PlayedGame>, ArenaError> {
    run_fixtures_until(a, b, fixtures, config, &|| false, on_game)
}

/// [`run_fixtures`] that starts no further game once `stop_starting` says so (an interrupted
/// match): the games in flight then finish, and `on_game` sees each of them.
pub fn run_fixtures_until(
    a: &dyn Contestant,
    b: &dyn Contestant,
    fixtures: &[Fixture],
    config: MatchConfig,
    stop_starting: &(dyn Fn() -> bool + Sync),
    on_game: impl FnMut(&PlayedGame) -> ControlFlow<()> + Send,
) -> Result<Vec<PlayedGame>, ArenaError> {
    let threads = match config.threads {
        0 if a.shares_batches() && b.shares_batches() => GAMES_SHARING_NETS,
        threads => threads,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| ArenaError::Threads { threads, source })?;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let delivery = Mutex::new(Delivery {
        pending: BTreeMap::new(),
        seen: Vec::new(),
        error: None,
        over: false,
        on_game,
    });
    pool.broadcast(|_| {
        while !stop.load(Ordering::Relaxed) && !stop_starting() {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(fixture) = fixtures.get(i) else { break };
            let result = play_fixture(a, b, fixture, &config);
            let mut delivery = delivery.lock().expect("no thread panics while delivering");
            if delivery.accept(i, result).is_break() {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
    let delivery = delivery.into_inner().expect("no thread panics while delivering");
    match delivery.error {
        Some(error) => Err(error),
        None => Ok(delivery.seen),
    }
}

/// Finished games waiting for the ones before them.
struct Delivery<F> {
    pending: BTreeMap<usize, Result<PlayedGame, ArenaError>>,
    seen: Vec<PlayedGame>,
    error: Option<ArenaError>,
    /// Set once `on_game` stopped the match or a game failed.
    over: bool,
    on_game: F,
}

impl<F: FnMut(&PlayedGame) -> ControlFlow<()>> Delivery<F> {
    /// Takes game `i` and delivers every game now in order; `Break` once the match is over.
    fn accept(&mut self, i: usize, result: Result<PlayedGame, ArenaError>) -> ControlFlow<()> {
        if self.over {
            return ControlFlow::Break(());
        }
        self.pending.insert(i, result);
        while let Some(result) = self.pending.remove(&self.seen.len()) {
            let flow = match result {
                Ok(game) => {
                    let flow = (self.on_game)(&game);
                    self.seen.push(game);
                    flow
                }
                Err(error) => {
                    self.error = Some(error);
                    ControlFlow::Break(())
                }
            };
            if flow.is_break() {
                self.over = true;
                return flow;
            }
        }
        ControlFlow::Continue(())
    }
}
