//! Endgame tables from the command line: `match --egdb DIR` adjudicates a game at the first
//! position the tables cover; a folder without tables changes nothing; a damaged table is refused
//! by name; self-play with `[egdb]` and `selfplay.adjudicate_egdb` ends its games there, with
//! `selfplay.rescore_egdb` plays them on and writes the tables' results for the endings; a run
//! with `[egdb]` measures its value head on the tables at each checkpoint, and `ladder` shows it;
//! `egdb probe` answers each line of its input, a line too long or not UTF-8 with an error line;
//! `egdb verify` finds built tables consistent (its finding of wrong ones is `egdb`'s own test).

use crate::helpers::{arg, checkers_zero, output_with_input, run_to_end, succeed};
use draughts::{read_pdn, Position};
use runconfig::RunConfig;
use std::path::{Path, PathBuf};

/// Builds the tables for up to 4 pieces into `dir`.
fn build_tables(dir: &Path) {
    succeed(&["egdb", "build", "--pieces", "4", "--dir", arg(dir)]);
}

/// Plays 6 random games (seed 3) with `extra` arguments; returns the PDN and the result records.
fn random_match(dir: &Path, name: &str, extra: &[&str]) -> (String, String) {
    let (pdn, record) = (dir.join(format!("{name}.pdn")), dir.join(format!("{name}.jsonl")));
    let mut args =
        vec!["match", "random", "random", "--games", "6", "--seed", "3", "--threads", "1"];
    args.extend(["--pdn", arg(&pdn), "--record", arg(&record)]);
    args.extend(extra);
    succeed(&args);
    (std::fs::read_to_string(&pdn).unwrap(), std::fs::read_to_string(&record).unwrap())
}

#[test]
fn verify_finds_built_tables_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("egdb");
    succeed(&["egdb", "build", "--pieces", "3", "--dir", arg(&tables)]);
    let (ok, out, err) =
        run_to_end(&["egdb", "verify", "--dir", arg(&tables), "--samples", "5000"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("consistent") && err.contains("3 pieces: 5000 positions consistent"),
        "{err}"
    );
}

#[test]
fn match_with_tables_adjudicates_games_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("egdb");
    build_tables(&tables);
    let (pdn, records) = random_match(dir.path(), "tables", &["--egdb", arg(&tables)]);
    let adjudicated = records.lines().filter(|l| l.contains("\"ending\":\"endgame_tables\""));
    let count = adjudicated.count();
    assert!(count > 0, "no game reached the tables:\n{records}");
    assert_eq!(pdn.matches("[Termination \"endgame_tables\"]").count(), count, "{pdn}");
    // Without tables the same games go on to their end by the rules.
    let (plain, plain_records) = random_match(dir.path(), "plain", &[]);
    assert!(!plain.contains("endgame_tables") && !plain_records.contains("endgame_tables"));
}

#[test]
fn a_folder_without_tables_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (with_empty, _) = random_match(dir.path(), "empty", &["--egdb", arg(&empty)]);
    let (missing, _) =
        random_match(dir.path(), "missing", &["--egdb", arg(&dir.path().join("no"))]);
    let (plain, _) = random_match(dir.path(), "plain", &[]);
    // The event names the players only; the games are the same byte for byte.
    assert_eq!(with_empty, plain);
    assert_eq!(missing, plain);
}

#[test]
fn a_damaged_table_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("egdb");
    build_tables(&tables);
    let file = tables.join("1m0k-1m0k.wdl");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&file, bytes).unwrap();
    let pdn = dir.path().join("m.pdn");
    let (ok, out, err) = run_to_end(&[
        "match",
        "random",
        "random",
        "--games",
        "2",
        "--pdn",
        arg(&pdn),
        "--egdb",
        arg(&tables),
    ]);
    assert!(!ok, "{out}{err}");
    crate::helpers::assert_no_panic(&err);
    assert!(err.contains("--egdb") && err.contains("1m0k-1m0k.wdl"), "{err}");
}

/// The first position at the start of a move (the start included) with at most 4 pieces, as the
/// number of moves before it.
fn first_in_tables(start: Position, moves: &[draughts::Move]) -> Option<usize> {
    let mut position = start;
    for (i, &mv) in moves.iter().enumerate() {
        if position.occupied().count() <= 4 {
            return Some(i);
        }
        position = position.play(mv);
    }
    (position.occupied().count() <= 4).then_some(moves.len())
}

/// Plays 8 self-play games of `configs/tiny.toml` (at most 300 plies) with the 4-piece tables
/// built into `dir` and `setting` applied; returns the run folder.
fn self_play_with_tables(dir: &Path, setting: impl FnOnce(&mut RunConfig)) -> PathBuf {
    let tables = dir.join("egdb");
    build_tables(&tables);
    let mut config = crate::helpers::shipped_config("tiny.toml");
    config.selfplay.draw.max_plies = 300;
    config.egdb = runconfig::EgdbConfig { path: tables, pieces: 4 };
    setting(&mut config);
    let config_file = crate::helpers::write_config(dir, "config.toml", &config);
    let run = dir.join("run");
    let args = ["selfplay", "--config", arg(&config_file), "--run-dir", arg(&run), "--games", "8"];
    succeed(&args);
    run
}

#[test]
fn self_play_with_adjudication_ends_its_games_at_the_tables() {
    let dir = tempfile::tempdir().unwrap();
    let run = self_play_with_tables(dir.path(), |config| config.selfplay.adjudicate_egdb = true);
    let mut adjudicated = 0;
    for file in crate::helpers::sorted_files(&run.join("games")) {
        for game in read_pdn(&std::fs::read_to_string(&file).unwrap()).unwrap() {
            // A game ends at its first position in the tables: adjudicated there, or over by the
            // rules there (a side without pieces or moves; the rules come first).
            let first = first_in_tables(game.start, &game.moves);
            if game.tag("Termination") == Some("endgame_tables") {
                assert_eq!(first, Some(game.moves.len()), "{file:?}");
                adjudicated += 1;
            } else if let Some(first) = first {
                assert_eq!(first, game.moves.len(), "{file:?}");
                assert!(game.to_game(draughts::DrawRules::default()).outcome().is_some());
            }
        }
    }
    // About half the games of a tiny net reach 4 pieces within 300 plies.
    assert!(adjudicated > 0, "no game reached the tables");
}

#[test]
fn self_play_with_rescoring_plays_on_and_writes_the_tables_results() {
    let dir = tempfile::tempdir().unwrap();
    let run = self_play_with_tables(dir.path(), |config| {
        config.selfplay.mcts.resignation.enabled = false;
        config.selfplay.rescore_egdb = true;
        // The net alone searches; the tables only rescore.
        config.selfplay.search_egdb = false;
    });
    let tables = egdb::Tables::open(&dir.path().join("egdb")).unwrap();
    let mut in_tables = 0;
    for shard in shard::list_shards(&run.join("shards")).unwrap() {
        for sample in shard::read_shard(&shard).unwrap().records.iter().map(|r| r.to_sample()) {
            let position = sample.observation.position;
            let Some(winner) = search::table_winner(&tables, &position) else { continue };
            if sample.observation.moving_piece.is_some() {
                continue;
            }
            // Played on past the first table position, each with the tables' exact result.
            let exact = search::GameEnd::Tables { winner }.score_for(position.side_to_move());
            assert_eq!((sample.result, sample.search_value), (exact, f32::from(exact)));
            in_tables += 1;
        }
    }
    assert!(in_tables > 0, "no decision in the tables");
}

#[test]
fn a_run_with_tables_measures_its_value_head_at_each_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("egdb");
    ::egdb::build(&tables, 3, |_| {}).unwrap();
    let mut config = crate::helpers::shipped_config("tiny.toml");
    config.egdb = runconfig::EgdbConfig { path: tables.clone(), pieces: 3 };
    let config_file = crate::helpers::write_config(dir.path(), "config.toml", &config);
    let run_dir = dir.path().join("run");
    let out = succeed(&["run", "--config", arg(&config_file), "--run-dir", arg(&run_dir)]);
    assert!(out.contains("egdb value accuracy at step"), "{out}");

    let run = rundata::RunDir::existing(&run_dir).unwrap();
    // One line per candidate the trainer wrote (step 0 is the first best net, not a checkpoint).
    let candidates: Vec<u64> = crate::helpers::sorted_files(&run.nets_dir())
        .iter()
        .filter_map(|p| {
            p.file_name()?.to_str()?.strip_prefix("step-")?.split('.').next()?.parse().ok()
        })
        .filter(|&step| step > 0)
        .collect();
    assert!(!candidates.is_empty(), "no checkpoint");
    let text = std::fs::read_to_string(run.train_dir().join("egdb_accuracy.jsonl")).unwrap();
    let mut steps = Vec::new();
    for line in text.lines() {
        let m: serde_json::Value = serde_json::from_str(line).unwrap();
        let accuracy = m["accuracy"].as_f64().unwrap();
        let mae = m["mae"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&accuracy), "{line}");
        assert!((0.0..=2.0).contains(&mae), "{line}");
        assert_eq!(m["positions"], 20_000, "{line}");
        steps.push(m["step"].as_u64().unwrap());
    }
    assert_eq!(steps, candidates, "{text}");
    let events = crate::helpers::sorted_files(&run.tb_dir().join("train"));
    let tagged = events.iter().any(|p| {
        let bytes = std::fs::read(p).unwrap();
        bytes.windows(19).any(|w| w == b"egdb/value_accuracy")
    });
    assert!(tagged, "no egdb/value_accuracy in {events:?}");

    let ladder = succeed(&["ladder", arg(&run_dir)]);
    assert!(ladder.contains("egdb acc"), "{ladder}");
    // A gated candidate is rated at one of the measured steps.
    let measured = ladder.lines().filter(|l| l.trim_end().ends_with('%') && !l.contains("±95%"));
    assert!(measured.count() > 0, "{ladder}");

    // A resumed run goes on measuring: the old lines stay, and no step is measured twice.
    succeed(&["run", "--run-dir", arg(&run_dir), "--selfplay-games", "24"]);
    let more = std::fs::read_to_string(run.train_dir().join("egdb_accuracy.jsonl")).unwrap();
    assert!(more.starts_with(&text) && more.len() > text.len(), "{more}");
    let steps: Vec<u64> = more
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["step"].as_u64().unwrap())
        .collect();
    assert!(steps.windows(2).all(|w| w[0] < w[1]), "{more}");
}

#[test]
fn egdb_accuracy_measures_a_checkpoint_and_refuses_missing_tables() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    build_tables(&tables);
    let ckpt = dir.path().join("net.safetensors");
    let net = model::PolicyValueNet::new(&model::NetConfig::new(1, 8), tch::Device::Cpu).unwrap();
    model::checkpoint::save(&ckpt, &net, 5, None, &model::Extras::default()).unwrap();
    let args = ["egdb", "accuracy", arg(&ckpt), "--dir", arg(&tables), "--pieces", "3"];
    let out = succeed(&args);
    let accuracy: f64 = out
        .split_whitespace()
        .skip_while(|w| *w != "accuracy")
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(out.starts_with("step 5 positions 20000 "), "{out}");
    assert!((0.0..=1.0).contains(&accuracy), "{out}");
    // The same seed gives the same set, so the same figures (the time aside).
    let figures = |text: &str| text.split(" (").next().unwrap().to_string();
    assert_eq!(figures(&succeed(&args)), figures(&out));
    let five = ["egdb", "accuracy", arg(&ckpt), "--dir", arg(&tables), "--pieces", "5"];
    let (ok, _, err) = run_to_end(&five);
    assert!(!ok && err.contains("complete up to 4 pieces, not 5"), "{err}");
    assert!(err.contains("egdb build --pieces 5"), "{err}");
}

/// `egdb probe` read its standard input with no limit on a line and stopped at the first byte
/// that was not UTF-8; each line now gets its answer or one error line, and the command fails at
/// the end, saying how many.
#[test]
fn probe_answers_every_line_and_refuses_one_too_long_or_not_text() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("egdb");
    succeed(&["egdb", "build", "--pieces", "2", "--dir", arg(&tables)]);
    let mut input = b"B:WK19:BK1\n\n".to_vec();
    input.extend_from_slice(&[b'W'; 5000]);
    input.extend_from_slice(b"\nB:WK19:B\xc3\nB:W18:B14\n");
    let out =
        output_with_input(checkers_zero().args(["egdb", "probe", "--dir", arg(&tables)]), input);
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(
        lines[0].starts_with("win ")
            || lines[0].starts_with("loss ")
            || lines[0].starts_with("draw "),
        "{stdout}"
    );
    assert_eq!(lines[1], "error: a line of 5000 bytes, more than the 4096-byte limit");
    assert_eq!(lines[2], "error: a line that is not UTF-8 text (byte 8)");
    assert!(!lines[3].starts_with("error"), "{stdout}");
    assert!(stderr.contains("2 of 4 positions could not be answered"), "{stderr}");
}
