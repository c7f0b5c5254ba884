//! `checkers-zero ladder` over hand-written result records: the anchor it picks and both plots.

use crate::helpers::{arg, succeed};
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
