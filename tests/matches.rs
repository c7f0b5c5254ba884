//! `match` from the command line: a match interrupted part-way goes on from its record file, and
//! one under `--sprt` stops when the test decides.

use crate::helpers::{arg, succeed};
use arena::ResultRecord;

#[test]
fn a_resumed_match_plays_only_the_games_its_record_lacks_and_counts_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let (record, pdn) = (dir.path().join("record.jsonl"), dir.path().join("games.pdn"));
    let base =
        ["match", "alphabeta:2", "alphabeta:1", "--record", arg(&record), "--pdn", arg(&pdn)];
    let first = succeed(&[&base[..], &["--games", "4"]].concat());
    let games = |text: &str| text.lines().filter(|l| l.starts_with('[')).count();
    assert_eq!(games(&first), 4, "{first}");

    // The same match over 8 games, resumed: the 4 played count, 4 more are played.
    let resumed = succeed(&[&base[..], &["--games", "8", "--resume"]].concat());
    assert!(resumed.contains("resuming: 4 of the 8 games are in"), "{resumed}");
    assert_eq!(games(&resumed), 4, "{resumed}");
    // Its progress counts the games finished, the 4 of the record included.
    let last = resumed.lines().rfind(|l| l.starts_with('[')).unwrap_or_default();
    assert!(last.starts_with("[8/8] game "), "{resumed}");
    let records: Vec<ResultRecord> = rundata::read_json_lines(&record).unwrap().records;
    assert_eq!(records.len(), 8);
    let mut fixtures: Vec<_> = records.iter().map(|r| (&r.ballot, &r.black)).collect();
    fixtures.sort();
    fixtures.dedup();
    assert_eq!(fixtures.len(), 8, "each ballot and colour once: {fixtures:?}");
    // A's row of the final table, the line after its header.
    let table = |text: &str| {
        let mut lines = text.lines().skip_while(|l| !l.starts_with("player "));
        lines.nth(1).map(str::to_string).unwrap_or_default()
    };
    assert!(table(&resumed).split_whitespace().nth(1) == Some("8"), "{resumed}");
    let pdn_games = draughts::read_pdn(&std::fs::read_to_string(&pdn).unwrap()).unwrap();
    assert_eq!(pdn_games.len(), 8, "the resumed match's PDN keeps the first games");

    // Nothing is left: nothing is played, and the table is the record's.
    let again = succeed(&[&base[..], &["--games", "8", "--resume"]].concat());
    assert!(again.contains("resuming: 8 of the 8 games are in"), "{again}");
    assert_eq!(games(&again), 0, "{again}");
    assert_eq!(table(&again), table(&resumed), "{again}");
}

#[test]
fn a_resumed_match_that_goes_round_its_deck_again_counts_every_round_it_played() {
    let dir = tempfile::tempdir().unwrap();
    let (record, deck) = (dir.path().join("record.jsonl"), dir.path().join("deck.txt"));
    std::fs::write(&deck, "001 9-13 21-17 5-9\n").unwrap();
    let base = ["match", "alphabeta:2", "alphabeta:1", "--openings", arg(&deck)];
    let base = [&base[..], &["--record", arg(&record)]].concat();
    // Two rounds of the one-ballot deck: each ballot and colour twice.
    succeed(&[&base[..], &["--games", "4"]].concat());
    let resumed = succeed(&[&base[..], &["--games", "6", "--resume"]].concat());
    assert!(resumed.contains("resuming: 4 of the 6 games are in"), "{resumed}");
    assert_eq!(resumed.lines().filter(|l| l.starts_with('[')).count(), 2, "{resumed}");
    assert_eq!(rundata::read_json_lines::<ResultRecord>(&record).unwrap().records.len(), 6);
}

#[test]
fn a_match_stopped_by_sigterm_saves_its_games_says_so_and_resumes() {
    use std::io::{BufRead, BufReader, Read};
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.jsonl");
    // One game at a time, each of about a second: the signal comes while most are unplayed.
    let args = [
        "match",
        "alphabeta:0.01s",
        "alphabeta:1",
        "--games",
        "20",
        "--threads",
        "1",
        "--record",
        arg(&record),
    ];
    let mut child = crate::helpers::checkers_zero()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut text = String::new();
    while !text.lines().any(|l| l.starts_with('[')) {
        assert!(stdout.read_line(&mut text).unwrap() > 0, "no game finished: {text}");
    }
    let pid = child.id().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    stdout.read_to_string(&mut text).unwrap();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert!(status.success(), "{status}: {text}{stderr}");
    assert!(stderr.contains("interrupted: stopping at the next safe point"), "{stderr}");
    crate::helpers::assert_no_panic(&stderr);

    // The games played are in the record and the table, and the last line says how to go on.
    let played = text.lines().filter(|l| l.starts_with('[')).count();
    assert!((1..20).contains(&played), "{played} games: {text}");
    let records: Vec<ResultRecord> = rundata::read_json_lines(&record).unwrap().records;
    assert_eq!(records.len(), played, "{text}");
    assert!(text.contains(&format!("{played} games in ")), "{text}");
    let expected =
        format!("interrupted after {played} of 20 games: the same command with --resume");
    assert!(text.contains(&expected), "{text}");

    let resumed = succeed(&[&args[..], &["--resume"]].concat());
    assert!(resumed.contains(&format!("resuming: {played} of the 20 games")), "{resumed}");
    assert!(!resumed.contains("interrupted"), "{resumed}");
    assert_eq!(rundata::read_json_lines::<ResultRecord>(&record).unwrap().records.len(), 20);
}

#[test]
fn resume_needs_a_record_file() {
    let (ok, _, err) = crate::helpers::run_to_end(&["match", "random", "random", "--resume"]);
    assert!(!ok && err.contains("--record"), "{err}");
}

#[test]
fn an_sprt_match_stops_once_decided_and_says_so_or_plays_to_the_cap() {
    let games = |text: &str| text.lines().filter(|l| l.starts_with('[')).count();
    // A rout: the test accepts H1 long before the 40 games.
    let rout = succeed(&["match", "alphabeta:3", "random", "--games", "40", "--sprt", "0,100"]);
    let played = games(&rout);
    assert!((2..40).contains(&played), "{played} games: {rout}");
    let verdict = rout.lines().find(|l| l.starts_with("SPRT ")).unwrap_or_default();
    assert!(verdict.contains("H1 accepted: A is stronger by +100 Elo"), "{rout}");
    assert!(verdict.contains(&format!("A +{played} =0 -0")), "{rout}");
    // The same from the other side accepts H0; two games cannot decide an even match.
    let other = succeed(&["match", "random", "alphabeta:3", "--games", "40", "--sprt", "-10,10"]);
    assert!(other.contains("H0 accepted"), "{other}");
    let cap = succeed(&["match", "alphabeta:1", "alphabeta:1", "--games", "2", "--sprt", "0,35"]);
    assert_eq!(games(&cap), 2, "{cap}");
    assert!(cap.contains("no decision after 2 games"), "{cap}");
    let (ok, _, err) = crate::helpers::run_to_end(&["match", "random", "random", "--sprt", "5,0"]);
    assert!(!ok && err.contains("sprt.elo1"), "{err}");
}

#[test]
fn an_sprt_match_resumed_after_its_decision_plays_nothing_more() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.jsonl");
    let base = ["match", "alphabeta:3", "random", "--games", "40", "--record", arg(&record)];
    let first = succeed(&[&base[..], &["--sprt", "0,100"]].concat());
    let decided = first.lines().filter(|l| l.starts_with('[')).count();
    assert!(first.contains("H1 accepted"), "{first}");
    let again = succeed(&[&base[..], &["--sprt", "0,100", "--resume"]].concat());
    assert!(again.contains(&format!("resuming: {decided} of the 40 games")), "{again}");
    assert!(!again.lines().any(|l| l.starts_with('[')), "no game is played: {again}");
    assert!(again.contains("H1 accepted"), "{again}");
}

#[test]
fn a_match_between_two_runs_names_each_net_by_its_run_in_both_runs_records() {
    let dir = tempfile::tempdir().unwrap();
    let runs = [dir.path().join("wide"), dir.path().join("narrow")];
    for run in &runs {
        // Each run's best net is an untrained sparse net at step 7: alike names unqualified.
        std::fs::create_dir_all(run.join("nets")).unwrap();
        let net = crate::helpers::untrained_sparse_net(run, 7);
        std::fs::rename(net, run.join("nets/step-00000007.safetensors")).unwrap();
        let best = r#"{"checkpoint": "nets/step-00000007.safetensors", "step": 7, "generation": 0, "promoted_at": 0}"#;
        std::fs::write(run.join("best.json"), best).unwrap();
    }
    let spec = |run: &std::path::Path| format!("mcts:{}:4", run.display());
    let out = succeed(&["match", &spec(&runs[0]), &spec(&runs[1]), "--games", "2"]);
    let (a, b) = ("mcts:wide/step-00000007:4", "mcts:narrow/step-00000007:4");
    assert!(out.contains(&format!("{a} (A) vs {b} (B)")), "{out}");
    for run in &runs {
        let results = run.join(rundata::layout::RESULTS_LOG);
        let records: Vec<ResultRecord> = rundata::read_json_lines(&results).unwrap().records;
        assert_eq!(records.len(), 2, "{}", results.display());
        assert!(records
            .iter()
            .all(|r| [&r.black, &r.white] == [a, b] || [&r.black, &r.white] == [b, a]));
    }
}
