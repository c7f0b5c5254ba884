//! The browser board in a real browser: headless Chromium driven over WebDriver (chromedriver)
//! plays a whole game against `alphabeta:2` by clicking squares, checking every position the page
//! shows against the rules engine and that the thinking panel fills; plays an MCTS net, whose
//! panel shows its win/draw/loss chances and root moves, and saves a screenshot; replays a run's
//! game ply by ply with the net's view of each position; and analyses a game of a PDN file
//! picked on the page (the graph's points, the marked moves, a click on the graph showing that
//! position, bad PDN's error), saving a screenshot of the analysis view.

use crate::helpers::checkers_zero;
use draughts::{Color, Position, Square};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// chromedriver, from `CHECKERS_ZERO_CHROMEDRIVER` (the README's test command installs Debian's
/// `chromium` and `chromium-driver` and sets it).
fn chromedriver() -> String {
    std::env::var("CHECKERS_ZERO_CHROMEDRIVER").unwrap_or_else(|_| {
        panic!(
            "CHECKERS_ZERO_CHROMEDRIVER is not set: run the tests with scripts/test (it installs \
             chromium and chromium-driver), or point it at a chromedriver"
        )
    })
}

/// A child process killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// One HTTP exchange with JSON bodies (WebDriver's wire protocol).
fn http(address: &str, method: &str, path: &str, body: Option<&Value>) -> Value {
    let body = body.map(Value::to_string);
    let (_, reply) = crate::helpers::http(address, method, path, body.as_deref());
    serde_json::from_str(&reply).unwrap_or_else(|e| panic!("{e}: {reply}"))
}

/// A WebDriver session of a headless Chromium.
struct Browser {
    driver: String,
    session: String,
    _process: Running,
}

impl Browser {
    fn start() -> Browser {
        Browser::start_sized(1150, 760)
    }

    /// A browser whose window is `width` by `height` pixels.
    fn start_sized(width: u32, height: u32) -> Browser {
        let port = free_port();
        let process = Command::new(chromedriver())
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let driver = format!("127.0.0.1:{port}");
        let start = Instant::now();
        while TcpStream::connect(&driver).is_err() {
            assert!(start.elapsed() < Duration::from_secs(20), "chromedriver does not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        let size = format!("--window-size={width},{height}");
        let args = ["--headless=new", "--no-sandbox", "--disable-gpu", &size];
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "goog:chromeOptions": {"args": args}
        }}});
        let reply = http(&driver, "POST", "/session", Some(&capabilities));
        let session = reply["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {reply}"))
            .to_string();
        Browser { driver, session, _process: Running(process) }
    }

    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        let reply = http(&self.driver, method, &path, body.as_ref());
        assert!(reply["value"].get("error").is_none(), "{method} {path}: {reply}");
        reply["value"].clone()
    }

    fn script(&self, script: &str) -> Value {
        self.command("POST", "/execute/sync", Some(json!({"script": script, "args": []})))
    }

    fn click_square(&self, square: u8) {
        let selector = format!("[data-square=\"{square}\"]");
        let found = json!({"using": "css selector", "value": selector});
        let element = self.command("POST", "/element", Some(found));
        let id = element.as_object().unwrap().values().next().unwrap().as_str().unwrap();
        self.command("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    /// Polls `script` until it returns true.
    fn wait_for(&self, what: &str, script: &str) {
        let start = Instant::now();
        while self.script(script) != json!(true) {
            assert!(start.elapsed() < Duration::from_secs(60), "waited a minute for {what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http(&self.driver, "DELETE", &format!("/session/{}", self.session), None);
    }
}

/// The pieces the page draws, read from its `data-square` and `data-piece` attributes.
const DRAWN: &str = "return [...document.querySelectorAll('[data-square]')].map(e => \
    [Number(e.dataset.square), (e.querySelector('[data-piece]') || {dataset: {}}).dataset.piece || null])";

fn drawn_board(browser: &Browser) -> Vec<(u8, Option<String>)> {
    let cells = browser.script(DRAWN);
    let mut board: Vec<(u8, Option<String>)> = cells
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c[0].as_u64().unwrap() as u8, c[1].as_str().map(str::to_string)))
        .collect();
    board.sort();
    board
}

fn rules_board(position: &Position) -> Vec<(u8, Option<String>)> {
    Square::all()
        .map(|sq| {
            let piece = position.piece_at(sq).map(|(color, king)| {
                format!(
                    "{}{}",
                    if color == Color::Black { 'b' } else { 'w' },
                    if king { 'k' } else { 'm' }
                )
            });
            (sq.pdn(), piece)
        })
        .collect()
}

/// `serve` on a free port with `args`, and its port, once it listens.
fn serve(args: &[&str]) -> (Running, String) {
    let port = free_port().to_string();
    let mut server = checkers_zero()
        .args(["serve", "--port", &port])
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap()).read_line(&mut line).unwrap();
    (Running(server), port)
}

#[test]
fn a_whole_game_is_clicked_through_in_chromium_against_alphabeta() {
    let (_server, port) = serve(&["--player", "alphabeta:2"]);
    let browser = Browser::start();
    browser.command("POST", "/url", Some(json!({"url": format!("http://127.0.0.1:{port}/")})));
    browser.wait_for("the first game", "return typeof state !== 'undefined' && state !== null");

    for turn in 0.. {
        browser.wait_for("the engine", "return !thinking");
        let state = browser.script("return state");
        // The page shows the position the game's moves lead to, piece by piece.
        let moves = state["moves"].as_array().unwrap();
        let mut position = Position::start();
        for text in moves {
            position = position.play(position.parse_move(text.as_str().unwrap()).unwrap());
        }
        assert_eq!(drawn_board(&browser), rules_board(&position), "after {moves:?}");
        if !state["result"].is_null() {
            let status = browser.script("return document.getElementById('status').textContent");
            assert!(status.as_str().unwrap().contains("game over"), "{status}");
            break;
        }
        assert!(turn < 250, "the game does not end");
        if turn > 0 {
            let depth = browser.script("return document.getElementById('depth').textContent");
            assert_ne!(depth, json!("-"), "the thinking panel never filled");
            let pv = browser.script("return document.getElementById('pv').textContent");
            assert!(!pv.as_str().unwrap().is_empty(), "no line in the thinking panel");
        }
        // The person (Black) plays a legal move of the rules engine's, clicking its squares.
        let legal = position.legal_moves();
        let mv = legal[turn % legal.len()];
        let before = moves.len();
        for square in mv.squares() {
            browser.click_square(square.pdn());
        }
        browser.wait_for(
            "the move to be played",
            &format!("return state.moves.length > {before} && !thinking"),
        );
        let state = browser.script("return state");
        assert_eq!(state["moves"][before], json!(mv.to_string()), "the page played another move");
    }
}

#[test]
fn an_mcts_net_shows_its_chances_and_root_moves_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = crate::helpers::untrained_sparse_net(dir.path(), 3);
    let player = format!("mcts:{}:64", crate::helpers::arg(&ckpt));
    let (_server, port) = serve(&["--player", &player]);
    let browser = Browser::start();
    browser.command("POST", "/url", Some(json!({"url": format!("http://127.0.0.1:{port}/")})));
    browser.wait_for("the first game", "return typeof state !== 'undefined' && state !== null");
    // A new game as White: the net opens.
    browser.script(
        "document.getElementById('human').value = 'white'; \
         document.getElementById('new-game').requestSubmit(); return true",
    );
    for ply in [1, 3, 5, 7] {
        browser.wait_for(
            "the net's move",
            &format!("return state.moves.length === {ply} && !thinking"),
        );
        let outlook = browser.script(
            "return document.getElementById('outlook').hidden ? null : \
             ['wdl-win', 'wdl-draw', 'wdl-loss'] \
               .map(id => parseFloat(document.getElementById(id).style.width))",
        );
        let shares: Vec<f64> = serde_json::from_value(outlook).expect("the outlook is shown");
        assert!((shares.iter().sum::<f64>() - 100.0).abs() <= 2.0, "{shares:?}");
        let rows = browser.script(
            "return [...document.querySelectorAll('#root-moves tbody tr')] \
               .map(row => [...row.cells].map(cell => cell.textContent))",
        );
        let rows: Vec<Vec<String>> = serde_json::from_value(rows).unwrap();
        assert!(!rows.is_empty() && rows.len() <= 8, "{rows:?}");
        let played = browser.script("return state.moves[state.moves.length - 1]");
        assert_eq!(json!(rows[0][0]), played, "the most visited move is played: {rows:?}");
        let visits: Vec<u32> = rows.iter().map(|row| row[1].parse().unwrap()).collect();
        assert!(visits.windows(2).all(|w| w[0] >= w[1]), "most visited first: {rows:?}");
        if ply == 7 {
            break;
        }
        // The person (White) plays their first legal move.
        let state = browser.script("return state");
        let mut position = Position::start();
        for text in state["moves"].as_array().unwrap() {
            position = position.play(position.parse_move(text.as_str().unwrap()).unwrap());
        }
        for square in position.legal_moves()[0].squares() {
            browser.click_square(square.pdn());
        }
    }
    let png = browser.command("GET", "/screenshot", None);
    let png =
        base64::Engine::decode(&base64::engine::general_purpose::STANDARD, png.as_str().unwrap())
            .unwrap();
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-board.png");
    std::fs::write(&file, &png).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
}

#[test]
fn a_game_of_a_run_is_replayed_ply_by_ply_with_the_nets_view_in_chromium() {
    // A run folder with one game of alphabeta against itself, as a run's games/ holds them.
    let dir = tempfile::tempdir().unwrap();
    let run = rundata::RunDir::create(dir.path().join("run")).unwrap();
    let root = crate::helpers::arg(run.root()).to_string();
    let pdn = run.games_dir().join("match-1.pdn");
    crate::helpers::succeed(&[
        "match",
        "alphabeta:2",
        "alphabeta:1",
        "--games",
        "2",
        "--pdn",
        crate::helpers::arg(&pdn),
    ]);
    let game = draughts::read_pdn(&std::fs::read_to_string(&pdn).unwrap()).unwrap().remove(0);
    let ckpt = crate::helpers::untrained_sparse_net(dir.path(), 3);
    let (_server, port) = serve(&["--run-dir", &root, "--net", crate::helpers::arg(&ckpt)]);
    let browser = Browser::start();
    browser.command("POST", "/url", Some(json!({"url": format!("http://127.0.0.1:{port}/")})));
    browser.wait_for("the run", "return !document.getElementById('run').hidden");
    // A run without a progress file yet has spent nothing, in wall hours or core-hours.
    let summary = browser.script("return document.getElementById('run-summary').textContent");
    assert!(
        summary.as_str().unwrap().contains("0 games in 0.00 h and 0.00 core-hours"),
        "{summary}"
    );
    browser.wait_for(
        "the game file",
        "const s = document.getElementById('game-files'); \
         return [...s.options].some(o => o.value === 'match-1.pdn')",
    );
    browser.script(
        "const s = document.getElementById('game-files'); s.value = 'match-1.pdn'; \
         s.dispatchEvent(new Event('change')); return true",
    );
    browser.wait_for("the replay", "return replay !== null");
    let mut position = game.start;
    let next = json!({"using": "css selector", "value": "#next"});
    let next = browser.command("POST", "/element", Some(next));
    let next = next.as_object().unwrap().values().next().unwrap().as_str().unwrap().to_string();
    for (ply, &mv) in game.moves.iter().enumerate() {
        assert_eq!(drawn_board(&browser), rules_board(&position), "ply {ply}");
        // The net's view of the position: the chances of the side to move and its priors.
        let side = format!("{:?}", position.side_to_move()).to_lowercase();
        browser.wait_for(
            &format!("the net's view at ply {ply}"),
            &format!(
                "return document.getElementById('wdl-text').textContent.startsWith('{side}:') \
                 && !document.getElementById('outlook').hidden \
                 && document.querySelectorAll('#root-moves tbody tr').length === {}",
                draughts::Turn::new(position).legal_steps().len().min(8)
            ),
        );
        browser.command("POST", &format!("/element/{next}/click"), Some(json!({})));
        position = position.play(mv);
    }
    assert_eq!(drawn_board(&browser), rules_board(&position), "the last position");
    let shown = browser.script("return document.getElementById('replay-ply').textContent");
    let total = game.moves.len();
    assert!(shown.as_str().unwrap().starts_with(&format!("ply {total} of {total}")), "{shown}");
}

/// Clicks the page at the centre of the element `selector` finds, as a mouse would (whatever is
/// drawn there gets the click).
fn click_at(browser: &Browser, selector: &str) {
    let found = json!({"using": "css selector", "value": selector});
    let element = browser.command("POST", "/element", Some(found));
    let reference = element.as_object().unwrap().clone();
    let actions = json!({"actions": [{
        "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
        "actions": [
            {"type": "pointerMove", "origin": reference, "x": 0, "y": 0},
            {"type": "pointerDown", "button": 0},
            {"type": "pointerUp", "button": 0},
        ],
    }]});
    browser.command("POST", "/actions", Some(actions));
}

/// The analysis the page holds is of game `game` and finished.
fn analysed(game: usize) -> String {
    format!("return analysis !== null && analysis.data.game === {game} && analysing === null")
}

#[test]
fn a_game_is_analysed_on_the_board_and_its_graph_clicked_in_chromium() {
    // Two games of alphabeta against random moves, to have mistakes and blunders to mark.
    let dir = tempfile::tempdir().unwrap();
    let games = draughts::read_pdn(&crate::serve::two_games(dir.path())).unwrap();
    let file = dir.path().join("games.pdn");
    // The server's default engine analyses: the shipped net.
    let (_server, port) = serve(&[]);
    let browser = Browser::start_sized(1150, 900);
    browser.command("POST", "/url", Some(json!({"url": format!("http://127.0.0.1:{port}/")})));
    browser.wait_for("the first game", "return typeof state !== 'undefined' && state !== null");

    // The file picked: its first game is analysed.
    let input = json!({"using": "css selector", "value": "#analyse-file"});
    let input = browser.command("POST", "/element", Some(input));
    let input = input.as_object().unwrap().values().next().unwrap().as_str().unwrap().to_string();
    let path = crate::helpers::arg(&file);
    browser.command("POST", &format!("/element/{input}/value"), Some(json!({"text": path})));
    browser.wait_for("the analysis of game 1", &analysed(1));
    // Game 2 chosen from the file's games.
    browser.script(
        "const s = document.getElementById('analyse-game'); s.value = '2'; \
         s.dispatchEvent(new Event('change')); return true",
    );
    browser.wait_for("the analysis of game 2", &analysed(2));
    let game = &games[1];
    let positions = game.moves.len() + 1;

    // The graph: a point a position.
    let points =
        browser.script("return document.querySelectorAll('#eval-graph circle.point').length");
    assert_eq!(points, json!(positions));
    // The move list: every move, the mistakes and blunders marked as the analysis says.
    let listed = browser.script(
        "return [...document.querySelectorAll('#analysis-moves .move')] \
           .map(e => [e.textContent, e.classList.contains('mistake') ? 'mistake' : \
                      e.classList.contains('blunder') ? 'blunder' : null])",
    );
    let listed: Vec<(String, Option<String>)> = serde_json::from_value(listed).unwrap();
    let kinds: Vec<Option<String>> =
        serde_json::from_value(browser.script("return analysis.data.moves.map(m => m.kind)"))
            .unwrap();
    assert_eq!(listed.len(), game.moves.len());
    let mut marked = 0;
    for ((text, kind), (&mv, analysed)) in listed.iter().zip(game.moves.iter().zip(&kinds)) {
        let glyph = match kind.as_deref() {
            Some("blunder") => "??",
            Some(_) => "?",
            None => "",
        };
        assert_eq!(text, &format!("{mv}{glyph}"));
        assert_eq!(kind, analysed);
        marked += usize::from(kind.is_some());
    }
    assert!(marked > 0, "random moves and no mistake marked?");
    let marked_points =
        browser.script("return document.querySelectorAll('#eval-graph circle.point.mistake, #eval-graph circle.point.blunder').length");
    assert_eq!(marked_points, json!(marked));

    // A click on a point of the graph shows that position on the board, with its FEN.
    let first_marked = kinds.iter().position(Option::is_some).unwrap() + 1;
    let mut replayed = vec![game.start];
    for &mv in &game.moves {
        replayed.push(replayed[replayed.len() - 1].play(mv));
    }
    for ply in [positions / 2, first_marked, positions - 1, 0, 1] {
        click_at(&browser, &format!("#eval-graph circle.point[data-ply=\"{ply}\"]"));
        browser.wait_for(&format!("ply {ply}"), &format!("return analysis.ply === {ply}"));
        assert_eq!(drawn_board(&browser), rules_board(&replayed[ply]), "ply {ply}");
        let fen = browser.script("return document.getElementById('analysis-fen').textContent");
        assert_eq!(Position::from_fen(fen.as_str().unwrap()).unwrap(), replayed[ply], "ply {ply}");
        let shown = browser.script("return document.getElementById('analysis-ply').textContent");
        let shown = shown.as_str().unwrap();
        assert!(shown.starts_with(&format!("ply {ply} of {}", game.moves.len())), "{shown}");
        let current = browser.script(
            "return [...document.querySelectorAll('#eval-graph circle.point.current')].map(e => Number(e.dataset.ply))",
        );
        assert_eq!(current, json!([ply]));
    }
    // A move of the list: the position after it.
    click_at(&browser, &format!("#analysis-moves .move[data-ply=\"{first_marked}\"]"));
    browser.wait_for("the marked move", &format!("return analysis.ply === {first_marked}"));
    assert_eq!(drawn_board(&browser), rules_board(&replayed[first_marked]));
    let score = browser.script("return document.getElementById('score').textContent");
    assert!(score.as_str().unwrap().contains("best"), "the mark says the better move: {score}");
    // The screenshot of docs/serve-analysis.png: the whole view, from the top.
    browser.script("window.scrollTo(0, 0); return true");
    let png = browser.command("GET", "/screenshot", None);
    let png =
        base64::Engine::decode(&base64::engine::general_purpose::STANDARD, png.as_str().unwrap())
            .unwrap();
    let shot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-analysis.png");
    std::fs::write(&shot, &png).unwrap();

    // Bad PDN pasted: the error names the game and the move, and the last analysis stays.
    browser.script(
        "document.getElementById('analyse-pdn').value = \
           '1. 11-15 23-19 *\\n\\n1. 11-15 23-19 2. 8-11 23-18 *'; \
         document.getElementById('analyse-form').requestSubmit(); return true",
    );
    browser.wait_for("the error", "return !document.getElementById('analysis-error').hidden");
    let error = browser.script("return document.getElementById('analysis-error').textContent");
    let error = error.as_str().unwrap();
    assert!(
        error.contains("game 2") && error.contains("move 2") && error.contains("23-18"),
        "{error}"
    );
    // Back to the person's game.
    browser.wait_for("the analysis to end", "return analysing === null");
    browser.script("document.getElementById('leave-analysis').click(); return true");
    browser.wait_for("the person's game", "return !analysis.shown");
    assert_eq!(drawn_board(&browser), rules_board(&Position::start()));
}
