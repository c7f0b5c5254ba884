//! A self-play session: worker threads, each with its own evaluator, play a number of games;
//! this thread collects the finished games and writes them into the run's shards (and PDN).

use crate::openings::Openings;
use crate::worker::{run_worker, FinishedGame, GameCounter, GamePlan, WorkerStats};
use draughts::{Color, GameResult, PdnGame};
use egdb::Tables;
use runconfig::SelfPlayConfig;
use rundata::RunDir;
use search::{Evaluator, GameEnd, GameRecord, SearchError};
use shard::Sample;
use shard::{EncodedShard, ShardError, ShardHeader};
use std::path::Path;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Why a session failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// A worker could not make its evaluator (e.g. load its net).
    #[error("self-play worker {worker}")]
    Evaluator {
        /// The worker, from 0.
        worker: usize,
        /// Why the evaluator could not be made.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A worker's search failed.
    #[error("self-play worker {worker}")]
    Search {
        /// The worker, from 0.
        worker: usize,
        /// What went wrong in the search.
        source: SearchError,
    },
    /// Writing a shard failed.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// Writing a game file failed.
    #[error(transparent)]
    RunDir(#[from] rundata::RunDirError),
}

/// Running totals of a session, handed to the progress callback after every game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionTotals {
    /// Games finished.
    pub games: u64,
    /// Finished games already in shards on disk (the rest wait for their shard).
    pub written: u64,
    /// Searched decision points written as samples.
    pub samples: u64,
    /// Plies of all finished games.
    pub plies: u64,
    /// Games Black won.
    pub black_wins: u64,
    /// Games White won.
    pub white_wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games where resignation was off and a side met the resignation condition.
    pub resign_checks: u64,
    /// ...of which that side did not lose.
    pub resign_false_positives: u64,
    /// Games a result of which the endgame tables changed (`selfplay.rescore_egdb`).
    pub rescored: u64,
    /// Wall time since the session started.
    pub elapsed: Duration,
}

impl SessionTotals {
    /// Games finished per second of wall time.
    pub fn games_per_sec(&self) -> f64 {
        self.games as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Mean game length in plies.
    pub fn mean_length(&self) -> f64 {
        self.plies as f64 / self.games.max(1) as f64
    }

    /// One line: rates, mean game length and results (and the games rescored, if any).
    pub fn describe(&self) -> String {
        let rescored = match self.rescored {
            0 => String::new(),
            n => format!("  rescored by the tables {n}"),
        };
        format!(
            "{:.2} games/s  {:.0} pos/s  mean {:.0} plies  B/D/W {}/{}/{}{rescored}",
            self.games_per_sec(),
            self.samples as f64 / self.elapsed.as_secs_f64().max(1e-9),
            self.mean_length(),
            self.black_wins,
            self.draws,
            self.white_wins
        )
    }

    fn add(&mut self, record: &GameRecord, samples: usize, rescored: bool) {
        self.games += 1;
        self.rescored += u64::from(rescored);
        self.samples += samples as u64;
        self.plies += record.moves.len() as u64;
        match record.end.score_for(Color::Black) {
            1 => self.black_wins += 1,
            -1 => self.white_wins += 1,
            _ => self.draws += 1,
        }
        if let Some(false_positive) = record.resignation.false_positive(record.end) {
            self.resign_checks += 1;
            self.resign_false_positives += false_positive as u64;
        }
    }
}

/// What a session did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionReport {
    /// The session's totals when it ended.
    pub totals: SessionTotals,
    /// Summed over the workers.
    pub workers: WorkerStats,
}

/// A self-play session's fixed inputs.
pub struct Session<'a> {
    /// The run whose shards and game files receive the games.
    pub run: &'a RunDir,
    /// Workers, games in flight, search and draw rules.
    pub config: &'a SelfPlayConfig,
    /// Seeds this session's games (derive it from the run seed and the session's place in the run).
    pub seed: u64,
    /// The generation of the net that plays now, recorded in each shard as it is written (a
    /// caller that swaps in a newer net while games are in flight says so here).
    pub generation: &'a dyn Fn() -> Option<u32>,
    /// Where the games start (the start position, or ballots of an opening deck).
    pub openings: Openings,
    /// Endgame tables: the searches' exact leaves when `config.search_egdb` is set, the games' end
    /// when `config.adjudicate_egdb` is, their results' source when `config.rescore_egdb` is.
    pub tables: Option<Arc<Tables>>,
    /// Called with each shard's path and the games it holds, once it is on disk (its PDN file,
    /// when written, is already there): e.g. to upload it.
    pub shard_written: Option<ShardWritten<'a>>,
}

/// Told of each shard once it is on disk: its path and the games it holds.
pub type ShardWritten<'a> = &'a dyn Fn(&Path, u64);

impl Session<'_> {
    /// Plays `games` games. `make_evaluator(worker)` runs on each worker's thread and builds its
    /// evaluator (load the net there). `stop()` is polled between games: once it returns true, no
    /// new game starts, games in flight are abandoned and what is finished is kept.
    pub fn play<E, F, X>(
        &self,
        games: u64,
        make_evaluator: F,
        stop: &(dyn Fn() -> bool + Sync),
        mut progress: impl FnMut(&SessionTotals),
    ) -> Result<SessionReport, SessionError>
    where
        E: Evaluator,
        F: Fn(usize) -> Result<E, X> + Sync,
        X: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let plan = GamePlan {
            mcts: self.config.mcts.clone(),
            draw_rules: self.config.draw.into(),
            seed: self.seed,
            games_in_flight: self.config.games_in_flight,
            openings: self.openings.clone(),
            tables: self.tables.clone(),
            search_egdb: self.config.search_egdb,
            adjudicate_egdb: self.config.adjudicate_egdb,
            rescore_egdb: self.config.rescore_egdb,
            value_search_nodes: self.config.value_search_nodes,
            value_lambda: self.config.value_lambda,
        };
        let counter = GameCounter::new(0, games);
        let start = Instant::now();
        let (tx, rx) = mpsc::channel::<FinishedGame>();
        let mut report = SessionReport::default();
        let mut pending: Vec<GameRecord> = Vec::new();
        let worker_results = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..self.config.worker_threads())
                .map(|worker| {
                    let (tx, plan, counter, make_evaluator) =
                        (tx.clone(), &plan, &counter, &make_evaluator);
                    scope.spawn(move || {
                        let mut evaluator = make_evaluator(worker)
                            .map_err(|e| SessionError::Evaluator { worker, source: e.into() })?;
                        run_worker(plan, &mut evaluator, counter, &tx)
                            .map_err(|source| SessionError::Search { worker, source })
                    })
                })
                .collect();
            drop(tx);
            let mut collected = Ok(());
            for finished in rx.iter() {
                let samples = finished.record.decisions.len();
                report.totals.add(&finished.record, samples, finished.rescored);
                report.totals.elapsed = start.elapsed();
                pending.push(finished.record);
                if pending.len() >= self.config.games_per_shard {
                    collected = collected
                        .and_then(|()| self.flush(&mut pending))
                        .map(|n| report.totals.written += n);
                }
                progress(&report.totals);
                // Asked once the game is in a shard: `stop` may wait (e.g. on the store).
                if stop() {
                    counter.stop();
                }
            }
            let flushed = self.flush(&mut pending).map(|n| report.totals.written += n);
            let results: Vec<_> = handles
                .into_iter()
                .map(|h| h.join().expect("a self-play worker panicked"))
                .collect();
            collected.and(flushed).map(|()| results)
        })?;
        for result in worker_results {
            report.workers.add(&result?);
        }
        report.totals.elapsed = start.elapsed();
        Ok(report)
    }

    /// Writes the pending games as one shard (and PDN file), empties the list and returns how
    /// many games it wrote.
    fn flush(&self, pending: &mut Vec<GameRecord>) -> Result<u64, SessionError> {
        if pending.is_empty() {
            return Ok(0);
        }
        let samples: Vec<Sample> = pending.iter().flat_map(game_samples).collect();
        let header = ShardHeader::now(u64::from(std::process::id()), (self.generation)());
        let encoded = EncodedShard::new(&header, &samples)?;
        // The games first, under the shard's name: the shard, written last, commits them (a
        // crash in between leaves games on record that no shard trains on, never a shard
        // without its games).
        if self.config.write_pdn {
            let games: Vec<PdnGame> = pending.iter().map(to_pdn).collect();
            let path = self.run.games_dir().join(format!("{}.pdn", encoded.stem()));
            support::write_atomic(&path, draughts::write_pdn(&games).as_bytes())
                .map_err(rundata::RunDirError::from)?;
        }
        let shard = encoded.write(&self.run.shards_dir())?;
        let written = pending.len() as u64;
        pending.clear();
        if let Some(shard_written) = self.shard_written {
            shard_written(&shard, written);
        }
        Ok(written)
    }
}

/// The samples of one game, in order, each linked to the opponent's reply: the decision at the
/// next ply (a multi-jump's decisions share a ply), when it was searched.
fn game_samples(record: &GameRecord) -> impl Iterator<Item = Sample> + '_ {
    let decisions = &record.decisions;
    decisions.iter().enumerate().map(|(i, d)| {
        let later = &decisions[i + 1..];
        let reply_after = later
            .iter()
            .position(|next| next.ply > d.ply)
            .filter(|&k| later[k].ply == d.ply + 1)
            .and_then(|k| u8::try_from(k + 1).ok());
        Sample {
            observation: d.observation,
            policy: d.policy.clone(),
            search_value: d.search_value,
            result: d.result,
            plies_to_end: d.plies_to_end.min(u16::MAX as u32) as u16,
            full_search: d.full_search,
            reply_after,
        }
    })
}

fn to_pdn(record: &GameRecord) -> PdnGame {
    let mut game = PdnGame::new(record.start);
    game.moves = record.moves.clone();
    game.result = match record.end {
        GameEnd::Played(outcome) => GameResult::from_outcome(Some(outcome)),
        GameEnd::Resigned { loser: Color::Black } => GameResult::WhiteWins,
        GameEnd::Resigned { loser: Color::White } => GameResult::BlackWins,
        GameEnd::Tables { winner: Some(Color::Black) } => GameResult::BlackWins,
        GameEnd::Tables { winner: Some(Color::White) } => GameResult::WhiteWins,
        GameEnd::Tables { winner: None } => GameResult::Draw,
    };
    game.set_tag("Event", "checkers-zero self-play");
    game.set_tag("Black", "self");
    game.set_tag("White", "self");
    match record.end {
        GameEnd::Resigned { loser } => game.set_tag("Termination", format!("{loser:?} resigned")),
        GameEnd::Tables { .. } => game.set_tag("Termination", "endgame_tables"),
        GameEnd::Played(_) => {}
    }
    game
}

#[cfg(test)]
mod tests;
