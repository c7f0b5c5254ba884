//! `serve`'s memory budget from the outside: the real server with a small budget is asked for
//! game after game; those it cannot hold are refused with 503 and a message naming the limit and
//! its settings, it answers on, and its peak resident memory stays under what it held at start
//! plus the budget plus [`SLACK_KIB`].

use crate::helpers::http;
use crate::serve::{json_of, open_stream, start, Server};
use std::io::Read;

/// What the server may hold beyond its start and its budget: request threads, the answers being
/// built, and what the allocator keeps of freed tables for reuse (glibc's arenas, one for each of
/// the threads that use it at once, keep some of what was freed in them).
const SLACK_KIB: u64 = 64 * 1024;

/// Reads `stream` until what came holds `text` (an event of an engine's thinking).
fn read_until(stream: &mut std::net::TcpStream, text: &str) -> String {
    stream.set_read_timeout(Some(std::time::Duration::from_secs(120))).unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0; 4096];
    while !String::from_utf8_lossy(&seen).contains(text) {
        let read = stream.read(&mut buffer).unwrap();
        assert!(read > 0, "the stream ended without {text:?}: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buffer[..read]);
    }
    String::from_utf8_lossy(&seen).into_owned()
}

/// A new game of `player` in which the engine moves first; its id.
fn new_game(server: &Server, player: &str) -> Result<String, (u16, String)> {
    let body = format!(r#"{{"player":"{player}","human":"white"}}"#);
    let (status, body) = http(&server.address, "POST", "/api/games", Some(&body));
    if status != 201 {
        return Err((status, body));
    }
    Ok(json_of(status, &body, 201)["id"].as_str().unwrap().to_string())
}

#[test]
fn a_server_past_its_memory_budget_refuses_a_game_naming_the_limit_and_answers_on() {
    // Alpha-beta games: a 4 MiB table each (and a short record), so 13 MiB holds three.
    let server = start(&["--player", "alphabeta:3s", "--max-memory-mb", "13"]);
    let at_start = server.peak_memory_kib();
    // Games created and set thinking (3 s a move), each held by its request, until one is refused.
    let mut thinking = Vec::new();
    let (status, refusal) = loop {
        match new_game(&server, "alphabeta:3s") {
            Ok(id) => {
                assert!(thinking.len() < 3, "a fourth 4 MiB game in a 13 MiB budget");
                let path = format!("/api/games/{id}/think");
                thinking.push((id, open_stream(&server, "GET", &path, "")));
            }
            Err(refused) => break refused,
        }
    };
    assert_eq!((status, thinking.len()), (503, 3), "{refusal}");
    let error = serde_json::from_str::<serde_json::Value>(&refusal).unwrap()["error"].to_string();
    for part in ["a game of alphabeta:3s may hold up to 4.0 MiB", "13 MiB memory budget"] {
        assert!(error.contains(part), "{part}: {error}");
    }
    assert!(error.contains("--max-memory-mb") && error.contains("CHECKERS_ZERO_MAX_SERVE_MB"));
    // It answers on: the games thinking move, and then a new game takes an idle one's place.
    let (status, _) = http(&server.address, "GET", &format!("/api/games/{}", thinking[0].0), None);
    assert_eq!(status, 200);
    for (_, stream) in &mut thinking {
        read_until(stream, "event: state");
    }
    let newest = new_game(&server, "alphabeta:3s").expect("a game once the others are idle");
    let (status, _) = http(&server.address, "GET", &format!("/api/games/{}", thinking[0].0), None);
    assert_eq!(status, 404, "the oldest idle game was given up for the new one");

    // Game after game, each searched once: the count cap alone would hold 64 tables (256 MiB).
    let mut ids = vec![newest];
    for _ in 0..64 {
        let id = new_game(&server, "alphabeta:0.02s").expect("idle games make room");
        let mut stream = open_stream(&server, "GET", &format!("/api/games/{id}/think"), "");
        read_until(&mut stream, "event: state");
        ids.push(id);
    }
    let held = ids
        .iter()
        .filter(|id| http(&server.address, "GET", &format!("/api/games/{id}"), None).0 == 200);
    assert_eq!(held.count(), 3, "the budget holds three games");
    let peak = server.peak_memory_kib();
    let ceiling = at_start + (13 << 10) + SLACK_KIB;
    assert!(peak < ceiling, "peak {peak} KiB, over {ceiling} KiB (start {at_start} KiB)");
    eprintln!("serve with a 13 MiB budget: {at_start} KiB at start, {peak} KiB at the peak");
}

/// `serve ARGS` (with `variable` set to its value) ends at start with one error line: that line.
fn refused_at_start(args: &[&str], variable: Option<(&str, &str)>) -> String {
    let mut server = crate::helpers::checkers_zero();
    server.args(["serve", "--port", "0"]).args(args);
    if let Some((name, value)) = variable {
        server.env(name, value);
    }
    let stdio = std::process::Stdio::null;
    let mut server = server.stdout(stdio()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let since = std::time::Instant::now();
    while server.try_wait().unwrap().is_none() {
        if since.elapsed().as_secs() > 60 {
            let _ = server.kill();
            panic!("serve {args:?} ({variable:?}) started");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let out = server.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    super::bad_net::one_error_line(&err).to_string()
}

/// The budget's variable sets it when the flag does not, and a value that is not a number of MiB
/// is refused by name.
#[test]
fn the_budgets_variable_sets_it_and_a_bad_value_is_refused_by_name() {
    let variable = Some(("CHECKERS_ZERO_MAX_SERVE_MB", "1"));
    let line = refused_at_start(&["--player", "alphabeta:1"], variable);
    assert!(line.contains("a game of alphabeta:1 may hold up to 4.0 MiB"), "{line}");
    assert!(line.contains("the server's 1 MiB memory budget"), "{line}");
    let variable = Some(("CHECKERS_ZERO_MAX_SERVE_MB", "lots"));
    let line = refused_at_start(&["--player", "alphabeta:1"], variable);
    assert_eq!(line, "error: CHECKERS_ZERO_MAX_SERVE_MB=`lots`: not a whole number of MiB from 1");
    let line = refused_at_start(&["--player", "alphabeta:1", "--max-memory-mb", "0"], None);
    assert!(line.contains("--max-memory-mb") && line.contains("0"), "{line}");
}

/// A search under a clock grows its MCTS tree up to the node ceiling, which `serve` lowers
/// (unless `CHECKERS_ZERO_MAX_TREE_NODES` sets it) so that one such tree, twice over while it
/// keeps a subtree, takes a quarter of the budget: the server started to play the shipped net
/// under a clock starts, a game of it and a page's analysis with `seconds` fit; a ceiling set above
/// that stops the server at start with one line naming the budget, its settings and the ceiling's.
#[test]
fn a_search_under_a_clock_fits_in_a_quarter_of_the_budget() {
    let server = start(&["--time", "0.2"]);
    let game = new_game(&server, "level:8").expect("a game of 400 playouts fits");
    let (status, _) = http(&server.address, "GET", &format!("/api/games/{game}"), None);
    assert_eq!(status, 200);
    let body = r#"{"pdn":"1. 11-15 23-19 *","seconds":0.2}"#;
    let (status, reply) = http(&server.address, "POST", "/api/analyse", Some(body));
    assert_eq!(status, 200, "an analysis under a clock fits: {reply}");

    let variable = Some(("CHECKERS_ZERO_MAX_TREE_NODES", "3000000"));
    let line = refused_at_start(&["--time", "1"], variable);
    let parts = ["512 MiB memory budget", "--max-memory-mb", "CHECKERS_ZERO_MAX_SERVE_MB"];
    for part in parts.into_iter().chain(["CHECKERS_ZERO_MAX_TREE_NODES"]) {
        assert!(line.contains(part), "{part}: {line}");
    }
}

#[test]
fn a_game_file_whose_replay_would_pass_the_budget_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let run = rundata::RunDir::create(dir.path().join("run")).unwrap();
    let game = draughts::PdnGame::new(draughts::Position::start());
    let small = draughts::write_pdn(std::slice::from_ref(&game));
    std::fs::write(run.games_dir().join("small.pdn"), &small).unwrap();
    // One game in a megabyte of comment: its size allows 20,000 plies, 2 KiB each at most.
    let padded = format!("{{{}}}\n{small}", "a".repeat(1 << 20));
    std::fs::write(run.games_dir().join("big.pdn"), padded).unwrap();
    let root = crate::helpers::arg(run.root());
    let server = start(&["--run-dir", root, "--player", "alphabeta:1", "--max-memory-mb", "13"]);

    let (status, body) = http(&server.address, "GET", "/api/run/games/big.pdn", None);
    assert_eq!(status, 503, "{body}");
    let error = serde_json::from_str::<serde_json::Value>(&body).unwrap()["error"].to_string();
    for part in ["replaying big.pdn may hold up to 41.", "13 MiB memory budget", "--max-memory-mb"]
    {
        assert!(error.contains(part), "{part}: {error}");
    }
    let (status, body) = http(&server.address, "GET", "/api/run/games/small.pdn", None);
    assert_eq!(status, 200, "{body}");
    // The small file's reservation ended with its answer: a game still fits beside it.
    new_game(&server, "alphabeta:1").expect("the budget is free again");
}
