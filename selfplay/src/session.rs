//! A self-play session: worker threads, each with its own evaluator, play a number of games;
//! this thread collects the finished games and writes them into the run's shards (and PDN).

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

    /// One line: rates, mean game length and results.
    pub fn describe(&self) -> String {
        format!(
            "{:.2} games/s  {:.0} pos/s  mean {:.0} plies  B/D/W {}/{}/{}",
            self.games_per_sec(),
            self.samples as f64 / self.elapsed.as_secs_f64().max(1e-9),
            self.mean_length(),
            self.black_wins,
            self.draws,
            self.white_wins
        )
    }

    fn add(&mut self, record: &GameRecord, samples: usize) {
        self.games += 1;
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
    /// Endgame tables the searches take as exact leaves, and that end the games when
    /// `config.adjudicate_egdb` is set.
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
            tables: self.tables.clone(),
            adjudicate_egdb: self.config.adjudicate_egdb,
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
                report.totals.add(&finished.record, samples);
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
mod tests {
    use super::*;
    use search::{DecisionRecord, UniformEvaluator};
    use shard::{list_shards, read_shard};

    /// A session of `run` with `config` and `seed`: no generation, tables or shard callback.
    fn session<'a>(run: &'a RunDir, config: &'a SelfPlayConfig, seed: u64) -> Session<'a> {
        Session { run, config, seed, generation: &|| None, tables: None, shard_written: None }
    }

    #[test]
    fn session_writes_every_game_into_readable_shards_and_pdn() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::create(dir.path()).unwrap();
        let mut config =
            SelfPlayConfig { workers: 2, games_in_flight: 3, ..SelfPlayConfig::default() };
        config.mcts.playout_cap.full_visits = 8;
        config.mcts.playout_cap.cheap_visits = 2;
        config.draw.max_plies = 40;
        let session = Session { generation: &|| Some(0), ..session(&run, &config, 3) };
        let mut calls = 0;
        let report = session
            .play(5, |_| Ok::<_, String>(UniformEvaluator), &|| false, |_| calls += 1)
            .unwrap();
        assert_eq!(report.totals.games, 5);
        assert_eq!(report.totals.written, 5);
        assert_eq!(calls, 5);
        let shards = list_shards(&run.shards_dir()).unwrap();
        assert_eq!(shards.len(), 5, "one shard per game by default");
        let samples: usize = shards.iter().map(|p| read_shard(p).unwrap().records.len()).sum();
        assert_eq!(samples as u64, report.totals.samples);
        let mut replies = 0;
        for records in shards.iter().map(|p| read_shard(p).unwrap().records) {
            for i in 0..records.len() {
                let Some(reply) = records.reply(i) else { continue };
                let (sample, reply) = (records.get(i).observation(), reply.observation());
                let side = |o: draughts::Observation| o.position.side_to_move();
                assert_ne!(side(sample), side(reply), "the reply is the opponent's");
                let plies =
                    (records.get(i).plies_to_end(), records.reply(i).unwrap().plies_to_end());
                assert_eq!(plies.0, plies.1 + 1, "the reply is at the next ply");
                replies += 1;
            }
        }
        assert!(replies > samples / 2, "{replies} of {samples} samples know their reply");
        let pdn_games: usize = std::fs::read_dir(run.games_dir())
            .unwrap()
            .map(|e| {
                draughts::read_pdn(&std::fs::read_to_string(e.unwrap().path()).unwrap())
                    .unwrap()
                    .len()
            })
            .sum();
        assert_eq!(pdn_games, 5);
    }

    #[test]
    fn each_decision_is_linked_to_the_searched_decision_at_the_next_ply() {
        let decision = |ply| DecisionRecord {
            observation: draughts::Game::new(draughts::Position::start(), Default::default())
                .observation(),
            policy: vec![(0, 1.0)],
            search_value: 0.0,
            full_search: true,
            ply,
            result: 0,
            plies_to_end: 9 - ply,
        };
        // Ply 1 is a two-step capture; the reply at ply 3 was forced, so not searched.
        let record = GameRecord {
            start: draughts::Position::start(),
            moves: Vec::new(),
            end: GameEnd::Resigned { loser: draughts::Color::White },
            decisions: [0, 1, 1, 2, 4].map(decision).to_vec(),
            resignation: search::ResignationRecord { enabled: false, would_have_resigned: None },
        };
        let links: Vec<_> = game_samples(&record).map(|s| s.reply_after).collect();
        assert_eq!(links, [Some(1), Some(2), Some(1), None, None]);
    }

    #[test]
    fn a_killed_run_forgot_the_games_of_its_unfinished_phase() {
        // The run counted a phase's games only when the phase ended; now each shard's games are
        // reported as written as soon as the shard is on disk.
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::create(dir.path()).unwrap();
        let mut config = SelfPlayConfig {
            workers: 1,
            games_in_flight: 2,
            games_per_shard: 2,
            ..SelfPlayConfig::default()
        };
        config.mcts.playout_cap.full_visits = 4;
        config.mcts.playout_cap.cheap_visits = 2;
        config.draw.max_plies = 20;
        let shards = std::cell::RefCell::new(Vec::new());
        let announce = |path: &Path, games| shards.borrow_mut().push((path.to_path_buf(), games));
        let session = Session { shard_written: Some(&announce), ..session(&run, &config, 5) };
        let mut seen = Vec::new();
        let report = session
            .play(
                5,
                |_| Ok::<_, String>(UniformEvaluator),
                &|| false,
                |t| {
                    assert_eq!(
                        list_shards(&run.shards_dir()).unwrap().len() as u64,
                        t.written.div_ceil(2)
                    );
                    seen.push(t.written);
                },
            )
            .unwrap();
        assert_eq!(seen, [0, 2, 2, 4, 4]);
        assert_eq!(report.totals.written, 5);
        let announced: Vec<u64> = shards.borrow().iter().map(|(_, games)| *games).collect();
        assert_eq!(announced, [2, 2, 1], "each shard is announced once, with its games");
        assert!(shards.borrow().iter().all(|(path, _)| path.is_file()));
    }

    #[test]
    fn a_shard_is_never_on_disk_without_its_games() {
        // The shard used to be written before its PDN, so a crash between the two left (and an
        // S3 run uploaded) a shard whose games were nowhere. Now the games go first: when they
        // cannot be written, no shard is.
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::create(dir.path()).unwrap();
        std::fs::remove_dir(run.games_dir()).unwrap();
        std::fs::write(run.games_dir(), "not a directory").unwrap();
        let mut config = SelfPlayConfig { workers: 1, games_in_flight: 1, ..Default::default() };
        config.mcts.playout_cap.full_visits = 4;
        config.mcts.playout_cap.cheap_visits = 2;
        config.draw.max_plies = 20;
        let session = session(&run, &config, 9);
        let played = session.play(1, |_| Ok::<_, String>(UniformEvaluator), &|| false, |_| {});
        assert!(played.is_err(), "the games could not be written");
        assert!(list_shards(&run.shards_dir()).unwrap().is_empty(), "a shard without its games");
    }

    #[test]
    fn an_evaluator_that_cannot_be_built_is_an_error_naming_the_worker() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::create(dir.path()).unwrap();
        let config = SelfPlayConfig::default();
        let session = session(&run, &config, 0);
        let err = session
            .play(1, |_| Err::<UniformEvaluator, _>("no net".to_string()), &|| false, |_| {})
            .unwrap_err();
        let cause = std::error::Error::source(&err).map(ToString::to_string);
        assert!(
            err.to_string().contains("worker 0") && cause.as_deref() == Some("no net"),
            "{err}"
        );
    }
}
