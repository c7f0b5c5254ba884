//! The self-play session's tests: games in readable shards and PDN, decisions linked, a killed run
//! and a failing evaluator.

use super::*;
use search::{DecisionRecord, UniformEvaluator};
use shard::{list_shards, read_shard};

/// A session of `run` with `config` and `seed`: from the start position, no generation, tables
/// or shard callback.
fn session<'a>(run: &'a RunDir, config: &'a SelfPlayConfig, seed: u64) -> Session<'a> {
    Session {
        run,
        config,
        seed,
        generation: &|| None,
        openings: Openings::none(),
        tables: None,
        shard_written: None,
    }
}

#[test]
fn session_writes_every_game_into_readable_shards_and_pdn() {
    let dir = tempfile::tempdir().unwrap();
    let run = RunDir::create(dir.path()).unwrap();
    let mut config = SelfPlayConfig { workers: 2, games_in_flight: 3, ..SelfPlayConfig::default() };
    config.mcts.playout_cap.full_visits = 8;
    config.mcts.playout_cap.cheap_visits = 2;
    config.draw.max_plies = 40;
    let session = Session { generation: &|| Some(0), ..session(&run, &config, 3) };
    let mut calls = 0;
    let report =
        session.play(5, |_| Ok::<_, String>(UniformEvaluator), &|| false, |_| calls += 1).unwrap();
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
            let plies = (records.get(i).plies_to_end(), records.reply(i).unwrap().plies_to_end());
            assert_eq!(plies.0, plies.1 + 1, "the reply is at the next ply");
            replies += 1;
        }
    }
    assert!(replies > samples / 2, "{replies} of {samples} samples know their reply");
    let pdn_games: usize = std::fs::read_dir(run.games_dir())
        .unwrap()
        .map(|e| {
            draughts::read_pdn(&std::fs::read_to_string(e.unwrap().path()).unwrap()).unwrap().len()
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
    assert!(err.to_string().contains("worker 0") && cause.as_deref() == Some("no net"), "{err}");
}

#[test]
fn the_log_line_counts_the_games_the_tables_rescored_when_there_are_any() {
    let mut totals = SessionTotals::default();
    assert!(!totals.describe().contains("rescored"), "{}", totals.describe());
    totals.rescored = 3;
    assert!(totals.describe().ends_with("  rescored by the tables 3"), "{}", totals.describe());
}
