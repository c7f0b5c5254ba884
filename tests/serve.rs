//! `serve`, the board in the browser, through its HTTP API: a whole game against `alphabeta:1`
//! with every position checked against the rules engine, the engine's thinking streamed, undo,
//! bad requests answered with a 4xx and a message while the server stays up, and a game of a PDN
//! analysed (every position, the marks, the limits, analyses at once).

use crate::helpers::checkers_zero;
use draughts::{Color, Position, Square};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};

/// A running `serve` and its address; killed when dropped.
pub struct Server {
    child: Child,
    pub address: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// The most memory the server has held resident so far, in KiB (Linux's `VmHWM`).
    pub fn peak_memory_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|kib| kib.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("no VmHWM in\n{status}"))
    }
}

pub fn start(args: &[&str]) -> Server {
    let mut child = checkers_zero()
        .args(["serve", "--port", "0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    Server { child, address }
}

/// A request to `server` whose answer streams (an engine's thinking, an analysis), left open once
/// the answer has started with status 200: the server works on it until the stream is dropped
/// or read to its end.
pub fn open_stream(server: &Server, method: &str, path: &str, body: &str) -> std::net::TcpStream {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(&server.address).unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        server.address,
        body.len()
    );
    stream.write_all(format!("{head}{body}").as_bytes()).unwrap();
    let mut start = [0; 12];
    stream.read_exact(&mut start).unwrap();
    assert_eq!(&start, b"HTTP/1.1 200", "{method} {path} starts streaming");
    stream
}

/// One request to `server`: the status and the body.
fn request(server: &Server, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    crate::helpers::http(&server.address, method, path, body)
}

pub fn json_of(status: u16, body: &str, expected: u16) -> Value {
    assert_eq!(status, expected, "{body}");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// The position the page would draw from `state`, rebuilt square by square.
fn board_of(state: &Value) -> Vec<(u8, String)> {
    let mut board: Vec<(u8, String)> = state["board"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["square"].as_u64().unwrap() as u8, p["piece"].as_str().unwrap().to_string()))
        .collect();
    board.sort();
    board
}

fn board_of_position(position: &Position) -> Vec<(u8, String)> {
    Square::all()
        .filter_map(|sq| {
            let (color, king) = position.piece_at(sq)?;
            let piece = format!(
                "{}{}",
                if color == Color::Black { 'b' } else { 'w' },
                if king { 'k' } else { 'm' }
            );
            Some((sq.pdn(), piece))
        })
        .collect()
}

/// Checks that `state` describes `position` (board, side to move, legal moves) exactly.
fn check_state(state: &Value, position: &Position) {
    assert_eq!(Position::from_fen(state["fen"].as_str().unwrap()).unwrap(), *position);
    assert_eq!(board_of(state), board_of_position(position), "{state}");
    let human = state["human"].as_str().unwrap();
    let to_move = if position.side_to_move() == Color::Black { "black" } else { "white" };
    assert_eq!(state["to_move"], to_move);
    let legal = state["legal"].as_array().unwrap();
    if to_move == human && state["result"].is_null() {
        let mut offered: Vec<&str> = legal.iter().map(|m| m["move"].as_str().unwrap()).collect();
        let mut rules: Vec<String> = position.legal_moves().iter().map(|m| m.to_string()).collect();
        offered.sort();
        rules.sort();
        assert_eq!(offered, rules);
        for m in legal {
            let mv = position.parse_move(m["move"].as_str().unwrap()).unwrap();
            let squares: Vec<u64> = mv.squares().map(|sq| u64::from(sq.pdn())).collect();
            assert_eq!(m["squares"], json!(squares));
        }
    } else {
        assert!(legal.is_empty(), "moves offered out of turn: {state}");
    }
}

#[test]
fn a_whole_game_against_alphabeta_with_its_thinking_streamed() {
    let server = start(&["--player", "alphabeta:1"]);
    let (status, page) = request(&server, "GET", "/", None);
    assert_eq!(status, 200);
    assert!(page.contains("/board.js"), "{page}");
    let (status, script) = request(&server, "GET", "/board.js", None);
    assert_eq!(status, 200);
    assert!(script.contains("dataset.square") && script.contains("dataset.piece"), "{script}");

    let (status, body) = request(&server, "POST", "/api/games", Some(r#"{"human": "black"}"#));
    let mut state = json_of(status, &body, 201);
    let id = state["id"].as_str().unwrap().to_string();
    let mut position = Position::start();
    check_state(&state, &position);
    let mut progress_seen = false;
    let mut plies = 0;
    while state["result"].is_null() {
        assert!(plies <= 400, "the game does not end");
        if state["to_move"] == "black" {
            // The person plays the last legal move the page offers.
            let legal = state["legal"].as_array().unwrap();
            let text = legal.last().unwrap()["move"].as_str().unwrap().to_string();
            let body = json!({ "move": text }).to_string();
            let (status, reply) =
                request(&server, "POST", &format!("/api/games/{id}/move"), Some(&body));
            state = json_of(status, &reply, 200);
            position = position.play(position.parse_move(&text).unwrap());
        } else {
            let (status, stream) = request(&server, "GET", &format!("/api/games/{id}/think"), None);
            assert_eq!(status, 200, "{stream}");
            progress_seen |= stream.contains("event: progress\ndata: {");
            let last = stream.split("event: state\ndata: ").nth(1).expect("a state event");
            state = serde_json::from_str(last.lines().next().unwrap()).unwrap();
            let reply = state["moves"].as_array().unwrap().last().unwrap().as_str().unwrap();
            position = position.play(position.parse_move(reply).unwrap());
        }
        check_state(&state, &position);
        plies += 1;
    }
    assert!(progress_seen, "the engine's thinking was never streamed");
    assert_eq!(state["moves"].as_array().unwrap().len(), plies);
    assert!(state["pdn"].as_str().unwrap().contains("[Black \"you\"]"), "{state}");
    let games = draughts::read_pdn(state["pdn"].as_str().unwrap()).unwrap();
    assert_eq!(games[0].moves.len(), plies);

    // Undo takes back the person's last move and the reply to it.
    let (status, body) = request(&server, "POST", &format!("/api/games/{id}/undo"), None);
    let undone = json_of(status, &body, 200);
    assert_eq!(undone["to_move"], "black");
    assert!(undone["moves"].as_array().unwrap().len() < plies);
    assert!(!undone["legal"].as_array().unwrap().is_empty());
}

#[test]
fn bad_requests_get_a_4xx_with_a_message_and_the_server_stays_up() {
    let server = start(&["--player", "alphabeta:1"]);
    let (status, body) = request(&server, "POST", "/api/games", Some("{}"));
    let id = json_of(status, &body, 201)["id"].as_str().unwrap().to_string();
    let big = format!(r#"{{"fen": "{}"}}"#, "x".repeat(20_000));
    let cases: Vec<(&str, String, Option<String>, u16, &str)> = vec![
        ("POST", "/api/games".into(), Some(r#"{"human": "red"}"#.into()), 400, "human"),
        ("POST", "/api/games".into(), Some(r#"{"fen": "B:W99:B1"}"#.into()), 400, "99"),
        ("POST", "/api/games".into(), Some(r#"{"ballot": "999"}"#.into()), 400, "999"),
        ("POST", "/api/games".into(), Some(r#"{"player": "chess:9"}"#.into()), 400, "chess"),
        ("POST", "/api/games".into(), Some(r#"{"colour": "black"}"#.into()), 400, "colour"),
        ("POST", "/api/games".into(), Some("{not json".into()), 400, "body"),
        ("POST", "/api/games".into(), Some(big), 413, "bytes"),
        (
            "POST",
            format!("/api/games/{id}/move"),
            Some(r#"{"move": "11-18"}"#.into()),
            409,
            "11-18",
        ),
        ("POST", format!("/api/games/{id}/move"), Some(r#"{"move": 7}"#.into()), 400, "body"),
        ("GET", format!("/api/games/{id}/think"), None, 200, "not the engine's move"),
        ("GET", "/api/games/12345".into(), None, 404, "12345"),
        ("GET", "/api/games/abc".into(), None, 404, "abc"),
        ("DELETE", format!("/api/games/{id}"), None, 405, "DELETE"),
        ("GET", "/etc/passwd".into(), None, 404, "/etc/passwd"),
        ("GET", "/../Cargo.toml".into(), None, 404, "nothing"),
    ];
    for (method, path, body, expected, said) in cases {
        let (status, reply) = request(&server, method, &path, body.as_deref());
        assert_eq!(status, expected, "{method} {path}: {reply}");
        assert!(reply.contains(said), "{method} {path}: {reply}");
    }
    // Still serving, and the game is as it was.
    let (status, body) = request(&server, "GET", &format!("/api/games/{id}"), None);
    let state = json_of(status, &body, 200);
    assert!(state["moves"].as_array().unwrap().is_empty());
}

#[test]
fn an_mcts_net_streams_its_chances_and_root_moves_and_shows_its_view_of_a_position() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = crate::helpers::untrained_sparse_net(dir.path(), 3);
    let player = format!("mcts:{}:100", crate::helpers::arg(&ckpt));
    let server = start(&["--player", &player]);
    let (status, body) = request(&server, "POST", "/api/games", Some(r#"{"human": "white"}"#));
    let id = json_of(status, &body, 201)["id"].as_str().unwrap().to_string();
    let (status, stream) = request(&server, "GET", &format!("/api/games/{id}/think"), None);
    assert_eq!(status, 200, "{stream}");
    let last = |event: &str| -> Value {
        let data = stream.rsplit(&format!("event: {event}\ndata: ")).next().unwrap();
        serde_json::from_str(data.lines().next().unwrap())
            .unwrap_or_else(|e| panic!("{e}: {stream}"))
    };
    let progress = last("progress");
    let outlook = &progress["outlook"];
    let chances: Vec<f64> =
        ["win", "draw", "loss"].iter().map(|k| outlook[k].as_f64().unwrap()).collect();
    assert!(chances.iter().all(|&c| (0.0..=1.0).contains(&c)), "{outlook}");
    assert!((chances.iter().sum::<f64>() - 1.0).abs() < 1e-4, "{outlook}");
    // The seven opening moves, most visited first, their visits the root's less its own.
    let moves = progress["root_moves"].as_array().unwrap();
    let legal: Vec<String> =
        Position::start().legal_moves().iter().map(|mv| mv.to_string()).collect();
    assert_eq!(moves.len(), legal.len(), "{progress}");
    let visits: Vec<u64> = moves.iter().map(|m| m["visits"].as_u64().unwrap()).collect();
    assert!(visits.windows(2).all(|w| w[0] >= w[1]), "{progress}");
    assert_eq!(visits.iter().sum::<u64>() + 1, progress["playouts"].as_u64().unwrap());
    let priors: f64 = moves.iter().map(|m| m["prior"].as_f64().unwrap()).sum();
    assert!((priors - 1.0).abs() < 1e-4, "the priors of every root move sum to 1: {progress}");
    for m in moves {
        assert!(legal.contains(&m["move"].as_str().unwrap().to_string()), "{m}");
    }
    assert_eq!(last("state")["moves"][0], moves[0]["move"], "the most visited is played");

    // The net's own view of a position after some moves, without a search.
    let (status, body) = request(&server, "POST", "/api/evaluate", Some("{}"));
    let view = json_of(status, &body, 200);
    assert_eq!(view["to_move"], "black");
    let moves = view["moves"].as_array().unwrap();
    assert_eq!(moves.len(), legal.len(), "{view}");
    let priors: Vec<f64> = moves.iter().map(|m| m["prior"].as_f64().unwrap()).collect();
    assert!(priors.windows(2).all(|w| w[0] >= w[1]), "highest prior first: {view}");
    assert!((priors.iter().sum::<f64>() - 1.0).abs() < 1e-4, "{view}");
    let chances: f64 =
        ["win", "draw", "loss"].iter().map(|k| view["outlook"][k].as_f64().unwrap()).sum();
    assert!((chances - 1.0).abs() < 1e-4, "{view}");
    let after = r#"{"moves": ["9-13", "22-18"]}"#;
    let (status, body) = request(&server, "POST", "/api/evaluate", Some(after));
    assert_eq!(json_of(status, &body, 200)["to_move"], "black");
    let refused = [
        (r#"{"moves": ["9-13", "9-14"]}"#, 400, "move 2"),
        (r#"{"fen": "B:W1:Bx"}"#, 400, "B:W1:Bx"),
        (r#"{"fen": "B:W18:B14", "moves": ["14x23"]}"#, 409, "over"),
        (r#"{"moves": [], "depth": 3}"#, 400, "depth"),
    ];
    for (body, expected, says) in refused {
        let (status, reply) = request(&server, "POST", "/api/evaluate", Some(body));
        assert_eq!(status, expected, "{body}: {reply}");
        assert!(reply.contains(says), "{body}: {reply}");
    }

    // alpha-beta reports neither, and has no net to view positions with.
    let server = start(&["--player", "alphabeta:1"]);
    let (status, body) = request(&server, "POST", "/api/games", Some(r#"{"human": "white"}"#));
    let id = json_of(status, &body, 201)["id"].as_str().unwrap().to_string();
    let (_, stream) = request(&server, "GET", &format!("/api/games/{id}/think"), None);
    let data = stream.split("event: progress\ndata: ").nth(1).expect("a progress event");
    let progress: Value = serde_json::from_str(data.lines().next().unwrap()).unwrap();
    assert!(progress["outlook"].is_null(), "{progress}");
    assert_eq!(progress["root_moves"], json!([]), "{progress}");
    let (status, reply) = request(&server, "POST", "/api/evaluate", Some("{}"));
    assert_eq!(status, 404, "{reply}");
    assert!(reply.contains("without a net"), "{reply}");
}

#[test]
fn each_tab_has_its_own_game_and_the_engine_can_open() {
    let server = start(&["--player", "alphabeta:1"]);
    let (status, body) = request(&server, "POST", "/api/games", Some(r#"{"human": "white"}"#));
    let white = json_of(status, &body, 201);
    let (status, body) = request(&server, "POST", "/api/games", Some(r#"{"ballot": "001"}"#));
    let ballot = json_of(status, &body, 201);
    assert_ne!(white["id"], ballot["id"]);
    assert_eq!(ballot["moves"], json!(["9-13", "21-17", "5-9"]));
    assert_eq!(ballot["to_move"], "white", "after three ballot moves White is to move");
    assert!(ballot["legal"].as_array().unwrap().is_empty(), "the engine plays White here");
    // The person plays White: the engine, Black, opens.
    let id = white["id"].as_str().unwrap().to_string();
    let (status, stream) = request(&server, "GET", &format!("/api/games/{id}/think"), None);
    assert_eq!(status, 200);
    let last = stream.split("event: state\ndata: ").nth(1).expect("a state event");
    let state: Value = serde_json::from_str(last.lines().next().unwrap()).unwrap();
    assert_eq!(state["moves"].as_array().unwrap().len(), 1);
    assert_eq!(state["to_move"], "white");
}

#[test]
fn a_run_is_shown_beside_the_board_its_games_replayed_and_nothing_else_served() {
    let dir = tempfile::tempdir().unwrap();
    let run = rundata::RunDir::create(dir.path().join("run")).unwrap();
    let moves = ["11-15", "23-19", "8-11", "22-17"];
    let mut game = draughts::PdnGame::new(Position::start());
    let mut position = Position::start();
    for text in moves {
        let mv = position.parse_move(text).unwrap();
        game.moves.push(mv);
        position = position.play(mv);
    }
    game.set_tag("Black", "mcts:step-0000000100:400");
    std::fs::write(run.games_dir().join("a.pdn"), draughts::write_pdn(&[game])).unwrap();
    let progress = r#"{"games": 120, "wall_seconds": 1800.0, "cpu_seconds": 2700.0}"#;
    std::fs::write(run.progress_file(), progress).unwrap();
    std::fs::write(run.root().join("curve.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>")
        .unwrap();
    let root = crate::helpers::arg(run.root());
    let server = start(&["--run-dir", root, "--player", "alphabeta:1"]);

    let (status, body) = request(&server, "GET", "/api/run", None);
    let summary = json_of(status, &body, 200);
    assert_eq!(summary["games"], json!(120));
    assert_eq!(summary["games_per_hour"], json!(240.0));
    assert_eq!(summary["cpu_hours"], json!(0.75));
    assert_eq!(summary["plots"], json!(["curve.svg"]));
    assert_eq!(summary["game_files"], json!(["a.pdn"]));
    let (status, svg) = request(&server, "GET", "/run/curve.svg", None);
    assert!(status == 200 && svg.starts_with("<svg"), "{status} {svg}");

    let (status, body) = request(&server, "GET", "/api/run/games/a.pdn", None);
    let games = json_of(status, &body, 200);
    let replayed = &games["games"][0];
    assert_eq!(replayed["moves"], json!(moves));
    assert_eq!(replayed["boards"].as_array().unwrap().len(), moves.len() + 1);
    let last = json!({ "board": replayed["boards"][moves.len()].clone() });
    assert_eq!(board_of(&last), board_of_position(&position));
    let fen = replayed["fens"][moves.len()].as_str().unwrap();
    assert_eq!(Position::from_fen(fen).unwrap(), position);

    for path in [
        "/run/config.toml",
        "/run/../config.toml",
        "/api/run/games/..%2Fconfig.toml",
        "/api/run/games/config.toml",
        "/api/run/games/missing.pdn",
    ] {
        let (status, body) = request(&server, "GET", path, None);
        assert!((400..500).contains(&status), "{path}: {status} {body}");
        assert!(!body.contains("[net]"), "{path} served a run file: {body}");
    }
    // Without --run-dir there is no run.
    let plain = start(&["--player", "alphabeta:1"]);
    let (status, body) = request(&plain, "GET", "/api/run", None);
    assert!(status == 404 && body.contains("--run-dir"), "{body}");
}

/// The data of every event `name` of a server-sent event stream.
fn events(stream: &str, name: &str) -> Vec<Value> {
    stream
        .split(&format!("event: {name}\ndata: "))
        .skip(1)
        .map(|data| {
            serde_json::from_str(data.lines().next().unwrap())
                .unwrap_or_else(|e| panic!("{e}: {data}"))
        })
        .collect()
}

/// Two games of `alphabeta:1` against `random` (mistakes to find), written to `DIR/games.pdn`;
/// the file's text.
pub(crate) fn two_games(dir: &std::path::Path) -> String {
    let pdn = dir.join("games.pdn");
    crate::helpers::succeed(&[
        "match",
        "alphabeta:1",
        "random",
        "--games",
        "2",
        "--threads",
        "1",
        "--pdn",
        crate::helpers::arg(&pdn),
    ]);
    std::fs::read_to_string(pdn).unwrap()
}

#[test]
fn a_game_of_a_pdn_is_analysed_position_by_position_within_the_limits() {
    let dir = tempfile::tempdir().unwrap();
    let text = two_games(dir.path());
    let games = draughts::read_pdn(&text).unwrap();
    // The shipped net (the server's default engine), a few playouts a position.
    let server = start(&["--playouts", "32"]);
    let body = json!({ "pdn": text, "game": 2 }).to_string();
    let (status, stream) = request(&server, "POST", "/api/analyse", Some(&body));
    assert_eq!(status, 200, "{stream}");
    let game = &games[1];
    let total = game.moves.len() + 1;
    let progress = events(&stream, "progress");
    assert_eq!(progress.len(), total, "a progress event a position");
    for (i, p) in progress.iter().enumerate() {
        assert_eq!(
            (p["done"].as_u64(), p["total"].as_u64()),
            (Some(i as u64 + 1), Some(total as u64))
        );
    }
    let analysis = events(&stream, "analysis").remove(0);
    assert_eq!(analysis["game"], 2);
    assert_eq!(analysis["engine"], "mcts:default:32");
    assert_eq!(analysis["games"].as_array().unwrap().len(), 2);
    assert_eq!(analysis["games"][1]["moves"], json!(game.moves.len()));
    // Every position of the game, as the rules engine reaches it, with its value for Black.
    let positions = analysis["positions"].as_array().unwrap();
    assert_eq!(positions.len(), total);
    let mut position = game.start;
    for (ply, shown) in positions.iter().enumerate() {
        assert_eq!(shown["ply"], json!(ply));
        assert_eq!(Position::from_fen(shown["fen"].as_str().unwrap()).unwrap(), position);
        assert_eq!(board_of(shown), board_of_position(&position), "ply {ply}");
        let value = shown["value"].as_f64().unwrap();
        let black = if position.side_to_move() == Color::Black { value } else { -value };
        assert_eq!(shown["black"].as_f64().unwrap(), black);
        assert_eq!(progress[ply]["black"], shown["black"], "the streamed value is the final one");
        assert!((-1.0..=1.0).contains(&value), "{shown}");
        if let Some(&mv) = game.moves.get(ply) {
            position = position.play(mv);
        }
    }
    // Every move, the marked ones with a better move of the engine's.
    let moves = analysis["moves"].as_array().unwrap();
    assert_eq!(moves.len(), game.moves.len());
    let mut position = game.start;
    let mut marked = [0, 0];
    for (m, &mv) in moves.iter().zip(&game.moves) {
        assert_eq!(m["move"], json!(mv.to_string()));
        let lost = m["before"].as_f64().unwrap() - m["after"].as_f64().unwrap();
        assert!((m["lost"].as_f64().unwrap() - lost).abs() < 1e-5, "{m}");
        match m["kind"].as_str() {
            None => assert!(m["best"].is_null(), "{m}"),
            Some(kind) => {
                let best = position.parse_move(m["best"].as_str().unwrap()).unwrap();
                assert_ne!(best, mv, "{m}");
                assert!(m["comment"].as_str().unwrap().contains(&format!("{kind} (")), "{m}");
                marked[usize::from(kind == "blunder")] += 1;
            }
        }
        position = position.play(mv);
    }
    let tally = &analysis["tally"];
    let counted = |kind: &str| {
        tally[kind]["black"].as_u64().unwrap() + tally[kind]["white"].as_u64().unwrap()
    };
    assert_eq!([counted("mistakes"), counted("blunders")], marked.map(|n| n as u64), "{tally}");
    assert!(marked[0] + marked[1] > 0, "random never erred?");
    // The annotated game reads back with its moves.
    let annotated = draughts::read_pdn(analysis["pdn"].as_str().unwrap()).unwrap();
    assert_eq!(annotated[0].moves, game.moves);
    assert_eq!(annotated[0].tag("Annotator"), Some("checkers-zero analyse mcts:default:32"));

    // The limits, and bad PDN named by game and move, each before any search.
    let bad = "1. 11-15 23-19 *\n\n1. 11-15 23-19 2. 8-11 23-18 *";
    let shuffles = "1-6 32-27 6-1 27-32 ".repeat(251);
    let long = format!("[FEN \"B:WK32:BK1\"]\n{shuffles}*");
    let cases = [
        (json!({ "pdn": bad }), 400, vec!["PDN game 2", "move 2", "23-18"]),
        (json!({ "pdn": text, "game": 3 }), 400, vec!["2 games", "no game 3"]),
        (json!({ "pdn": text, "game": 0 }), 400, vec!["no game 0"]),
        (json!({ "pdn": "" }), 400, vec!["no game"]),
        (json!({ "pdn": text, "seconds": 0 }), 400, vec!["seconds", "at most 10"]),
        (json!({ "pdn": text, "seconds": 11 }), 400, vec!["seconds", "at most 10"]),
        (json!({ "pdn": text, "player": "mcts:/etc/passwd" }), 400, vec!["may start"]),
        (json!({ "pdn": text, "player": "alphabeta:60s" }), 400, vec!["may start"]),
        (json!({ "pdn": text, "depth": 3 }), 400, vec!["depth"]),
        (json!({ "pdn": long }), 400, vec!["1004 moves", "at most 1000"]),
        (json!({ "pdn": "x".repeat(300_000) }), 400, vec!["300000 bytes", "256 KiB"]),
        (json!({ "pdn": "x".repeat(600_000) }), 413, vec!["bytes"]),
    ];
    for (body, expected, says) in cases {
        let body = body.to_string();
        let (status, reply) = request(&server, "POST", "/api/analyse", Some(&body));
        let shown = &body[..body.len().min(80)];
        assert_eq!(status, expected, "{shown}: {reply}");
        for said in says {
            assert!(reply.contains(said), "{shown}: {reply}");
        }
    }
    // The guard: another site's page, or a body not declared JSON.
    let evil = [("Origin", "http://evil.example"), ("Content-Type", "application/json")];
    assert_eq!(raw_post(&server, "/api/analyse", &evil, &body).0, 403);
    assert_eq!(raw_post(&server, "/api/analyse", &[("Content-Type", "text/plain")], &body).0, 415);
}

/// A POST with only `headers` (and Host): its status and the start of its answer.
fn raw_post(server: &Server, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(&server.address).unwrap();
    let mut text = format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
        server.address,
        body.len()
    );
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    stream.write_all(format!("{text}\r\n{body}").as_bytes()).unwrap();
    let mut reply = vec![0; 4096];
    let read = stream.read(&mut reply).unwrap();
    let reply = String::from_utf8_lossy(&reply[..read]).to_string();
    let status = reply.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap();
    (status, reply)
}

#[test]
fn analyses_at_once_are_capped_and_one_whose_page_goes_away_stops() {
    let dir = tempfile::tempdir().unwrap();
    let text = two_games(dir.path());
    let server = start(&["--player", "alphabeta:1"]);
    // A second a position: each of these would search for a minute or more.
    let slow = json!({ "pdn": text, "seconds": 1 }).to_string();
    let first = open_stream(&server, "POST", "/api/analyse", &slow);
    let second = open_stream(&server, "POST", "/api/analyse", &slow);
    let quick = json!({ "pdn": "1. 11-15 *", "seconds": 0.05 }).to_string();
    let (status, reply) = request(&server, "POST", "/api/analyse", Some(&quick));
    assert_eq!(status, 503, "{reply}");
    assert!(reply.contains("2 analyses are running"), "{reply}");
    // The pages go away: their analyses stop at their next position, and others may start.
    drop((first, second));
    let since = std::time::Instant::now();
    loop {
        let (status, reply) = request(&server, "POST", "/api/analyse", Some(&quick));
        if status == 200 {
            assert_eq!(events(&reply, "analysis").len(), 1, "{reply}");
            break;
        }
        assert_eq!(status, 503, "{reply}");
        assert!(since.elapsed().as_secs() < 30, "the analyses went on without their pages");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}
