//! `checkers-zero ladder` over hand-written result records: the anchor it picks and both plots; a
//! damaged line of its logs skipped, a FIFO refused.

use crate::helpers::{arg, assert_no_panic, run_to_end, succeed};
use arena::ResultRecord;
use draughts::GameResult;

/// A game of the net of training step `step` (as Black) against `opponent`, at `unix_time`.
fn net_game(step: u64, opponent: &str, result: GameResult, unix_time: u64) -> ResultRecord {
    ResultRecord {
        black: format!("mcts:step-{step}:64"),
        white: opponent.into(),
        black_step: Some(step),
        white_step: None,
        result,
        ending: "no_moves".into(),
        ballot: "001".into(),
        plies: 60,
        unix_time,
    }
}

#[test]
fn a_run_whose_nets_played_alphabeta_only_is_anchored_there_and_plotted_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let steps = [100, 200, 300];
    let mut records = Vec::new();
    for (i, &step) in steps.iter().enumerate() {
        let time = 1_700_000_000 + 3600 * i as u64;
        records.push(net_game(step, "alphabeta:4", GameResult::WhiteWins, time));
        records.push(net_game(step, "alphabeta:4", GameResult::Draw, time + 60));
        records.push(net_game(step, "alphabeta:2", GameResult::BlackWins, time + 120));
    }
    let results = rundata::RunDir::create(&run_dir).unwrap().results_file();
    rundata::append_json_lines(&results, &records).unwrap();

    let out = succeed(&["ladder", arg(&run_dir)]);
    assert!(
        out.contains("alphabeta:4 = 0"),
        "the most-played built-in player is the anchor:\n{out}"
    );
    let plots = [run_dir.join("elo.svg"), run_dir.join("elo-time.svg")];
    for plot in &plots {
        assert!(out.contains(&format!("plot: {}", plot.display())), "{out}");
        let svg = std::fs::read_to_string(plot).unwrap();
        for step in steps {
            assert!(svg.contains(&format!("<title>mcts:step-{step}:64 ")), "{}", plot.display());
        }
    }
    assert!(std::fs::read_to_string(&plots[1]).unwrap().contains("hours since the first game"));

    let named = dir.path().join("ladder.svg");
    let out = succeed(&["ladder", arg(&run_dir), "--plot", arg(&named)]);
    assert!(named.exists() && dir.path().join("ladder-time.svg").exists(), "{out}");
}

/// A crash can cut a log line inside a character (a player such as `mcts:réseau:8`): the results
/// log and the trainer's endgame log are read past such a line with one warning naming the file
/// and the line, and an endgame log that is a FIFO (it hung the command) is refused by name.
#[test]
fn ladder_reads_past_log_lines_cut_inside_a_character_and_refuses_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let run = rundata::RunDir::create(&run_dir).unwrap();
    let records: Vec<ResultRecord> =
        (0..4).map(|i| net_game(100, "alphabeta:2", GameResult::Draw, 1_700_000_000 + i)).collect();
    let cut = "{\"black\":\"mcts:ré".as_bytes();
    let cut = [&cut[..cut.len() - 1], b"\n"].concat(); // inside the `é`
    let mut results = rundata::to_json_lines(&records[..2]).into_bytes();
    results.extend_from_slice(&cut);
    results.extend_from_slice(rundata::to_json_lines(&records[2..]).as_bytes());
    std::fs::write(run.results_file(), results).unwrap();
    let endgame = run.train_dir().join(train::ENDGAME_LOG_FILE);
    std::fs::create_dir_all(run.train_dir()).unwrap();
    let measured = r#"{"step":100,"positions":20,"accuracy":0.75,"mae":0.3}"#;
    std::fs::write(&endgame, [measured.as_bytes(), b"\n", &cut].concat()).unwrap();

    let (ok, out, err) = run_to_end(&["ladder", arg(&run_dir)]);
    assert!(ok, "{out}{err}");
    assert_no_panic(&err);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning")).collect();
    assert_eq!(warnings.len(), 2, "{err}");
    assert!(warnings[0].contains("results.jsonl:3") && warnings[0].contains("UTF-8"), "{err}");
    assert!(
        warnings[1].contains("egdb_accuracy.jsonl:2") && warnings[1].contains("UTF-8"),
        "{err}"
    );
    assert!(out.contains("4 games;") && out.contains("egdb acc"), "{out}");
    assert!(
        out.lines().any(|l| l.starts_with("mcts:step-100:64") && l.ends_with("75.0%")),
        "{out}"
    );

    std::fs::remove_file(&endgame).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&endgame).status().unwrap().success());
    let (ok, _, err) = run_to_end(&["ladder", arg(&run_dir)]);
    assert!(!ok, "{err}");
    let line = crate::faults::bad_net::one_error_line(&err);
    assert!(line.contains("egdb_accuracy.jsonl: not a regular file (a FIFO)"), "{err}");
}
