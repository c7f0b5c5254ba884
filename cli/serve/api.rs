//! The HTTP side of `serve`: the routes, request bodies (bounded), JSON answers and errors, the
//! page's built-in assets, and the stream of the engine's thinking (server-sent events).

use super::analysis_view::{self, Analysis, AnalysisRequest};
use super::games::{Games, NewGame, Table};
use super::guard::Guard;
use super::memory::OverBudget;
use super::net_view::{self, ViewRequest};
use super::run_view::RunView;
use search::{Progress, Score, SearchControl};
use serde::Deserialize;
use serde_json::{json, Value};
use std::io::{Cursor, Read, Write};
use std::sync::{Arc, Mutex};
use tiny_http::{Header, Method, Request, Response, StatusCode};

/// The largest request body read; larger ones are refused unread.
const MAX_BODY: usize = 16 * 1024;
const INDEX: &str = include_str!("assets/index.html");
const SCRIPT: &str = include_str!("assets/board.js");
const STYLE: &str = include_str!("assets/board.css");

type Reply = Response<Cursor<Vec<u8>>>;

/// A refused request: its status and what to tell the page.
struct Refusal(u16, String);

impl From<anyhow::Error> for Refusal {
    /// 503 for a request that would pass the memory budget (it may fit once games or analyses
    /// end), 400 for anything else wrong with it.
    fn from(error: anyhow::Error) -> Refusal {
        let status = if error.is::<OverBudget>() { 503 } else { 400 };
        Refusal(status, support::one_line(error.as_ref()))
    }
}

/// What the server serves: the games, and the run shown beside them, if any.
pub struct Site {
    /// Every tab's game.
    pub games: Games,
    /// The analyses running now.
    pub analyses: analysis_view::Running,
    /// The run of `--run-dir`.
    pub run: Option<RunView>,
    /// Who may send requests.
    pub guard: Guard,
}

/// Answers `request` (on its own thread; the engine's thinking streams until it has moved).
pub fn answer(mut request: Request, site: &Site) {
    let games = &site.games;
    let url = request.url().to_string();
    let path = url.split('?').next().unwrap_or_default();
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let method = request.method().clone();
    let page_file = matches!(segments.as_slice(), [""] | ["board.js" | "board.css"]);
    if let Err((status, error)) = site.guard.check(&request, !page_file) {
        let _ = request.respond(json_reply(status, &json!({ "error": error })));
        return;
    }
    let reply = match (&method, segments.as_slice()) {
        (Method::Get, [""]) => Ok(asset(INDEX, "text/html; charset=utf-8")),
        (Method::Get, ["board.js"]) => Ok(asset(SCRIPT, "text/javascript; charset=utf-8")),
        (Method::Get, ["board.css"]) => Ok(asset(STYLE, "text/css; charset=utf-8")),
        (Method::Post, ["api", "games"]) => new_game(&mut request, games),
        (Method::Get, ["api", "games", id]) => {
            table(games, id).map(|(id, table)| json_reply(200, &lock(&table).state(&id)))
        }
        (Method::Post, ["api", "games", id, "move"]) => play(&mut request, games, id),
        (Method::Post, ["api", "games", id, "undo"]) => table(games, id).map(|(id, table)| {
            let mut table = lock(&table);
            table.undo();
            json_reply(200, &table.state(&id))
        }),
        (Method::Get, ["api", "games", id, "think"]) => match table(games, id) {
            Ok((id, table)) => return think(request, id, table),
            Err(refusal) => Err(refusal),
        },
        (Method::Post, ["api", "evaluate"]) => evaluate(&mut request, games),
        (Method::Post, ["api", "analyse"]) => {
            match body_capped::<AnalysisRequest>(&mut request, analysis_view::MAX_BODY) {
                Ok(asked) => return analyse(request, asked, site),
                Err(refusal) => Err(refusal),
            }
        }
        (Method::Get, ["api", "run"]) => {
            run(site).and_then(|run| Ok(json_reply(200, &run.summary()?)))
        }
        (Method::Get, ["api", "run", "games", name]) => run(site).and_then(|run| {
            let what = format!("replaying {}", support::shown(name));
            let _memory = games.reserve_request(run.games_bytes(name)?, &what)?;
            let reply = json_reply(200, &run.games(name)?);
            // The answer's text is sent after the reservation ends; it was counted in it.
            Ok(reply)
        }),
        (Method::Get, ["run", name]) => run(site).and_then(|run| {
            let what = format!("the plot {}", support::shown(name));
            let _memory = games.reserve_request(run.plot_bytes(name), &what)?;
            let svg = run
                .plot(name)?
                .ok_or_else(|| Refusal(404, format!("no plot {}", support::shown(name))))?;
            Ok(Response::from_data(svg).with_header(header("Content-Type", "image/svg+xml")))
        }),
        (_, ["", ..] | ["board.js" | "board.css"] | ["api", ..] | ["run", ..]) => {
            Err(Refusal(405, format!("{method} is not allowed on {path}")))
        }
        _ => Err(Refusal(404, format!("nothing at {path}"))),
    };
    let reply = reply
        .unwrap_or_else(|Refusal(status, error)| json_reply(status, &json!({ "error": error })));
    let _ = request.respond(reply);
}

/// Refuses `request` while the server answers as many requests as it will at once.
pub fn refuse_busy(request: Request) {
    let reply = json_reply(503, &json!({ "error": "the server is busy; try again" }));
    let _ = request.respond(reply);
}

fn lock(table: &Mutex<Table>) -> std::sync::MutexGuard<'_, Table> {
    table.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The run of `--run-dir`.
fn run(site: &Site) -> Result<&RunView, Refusal> {
    site.run.as_ref().ok_or_else(|| Refusal(404, "serve was started without --run-dir".into()))
}

/// The game the path names.
fn table(games: &Games, id: &str) -> Result<(String, Arc<Mutex<Table>>), Refusal> {
    let table =
        games.get(id).ok_or_else(|| Refusal(404, format!("no game `{}`", support::shown(id))))?;
    Ok((id.to_string(), table))
}

/// The request's JSON body as `T`, refused when over [`MAX_BODY`] or not `T`.
fn body<T: for<'de> Deserialize<'de>>(request: &mut Request) -> Result<T, Refusal> {
    body_capped(request, MAX_BODY)
}

/// The request's JSON body as `T`, refused when over `cap` bytes or not `T`.
fn body_capped<T: for<'de> Deserialize<'de>>(
    request: &mut Request,
    cap: usize,
) -> Result<T, Refusal> {
    if request.body_length().is_some_and(|n| n > cap) {
        return Err(Refusal(413, format!("the body is over {cap} bytes")));
    }
    let mut bytes = Vec::new();
    request
        .as_reader()
        .take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Refusal(400, format!("reading the body: {e}")))?;
    if bytes.len() > cap {
        return Err(Refusal(413, format!("the body is over {cap} bytes")));
    }
    let bytes = if bytes.iter().all(u8::is_ascii_whitespace) { b"{}".to_vec() } else { bytes };
    serde_json::from_slice(&bytes).map_err(|e| Refusal(400, format!("the body: {e}")))
}

fn new_game(request: &mut Request, games: &Games) -> Result<Reply, Refusal> {
    let (id, table) = games.create(body::<NewGame>(request)?)?;
    let state = lock(&table).state(&id);
    Ok(json_reply(201, &state))
}

/// The default engine's net's view of the position the body names.
fn evaluate(request: &mut Request, games: &Games) -> Result<Reply, Refusal> {
    let position = body::<ViewRequest>(request)?;
    let mut net = games.default_net()?.ok_or_else(|| {
        Refusal(404, format!("the engine ({}) plays without a net", games.default_player()))
    })?;
    let view = net_view::view(net.as_mut(), &position)?;
    let view = view.ok_or_else(|| Refusal(409, "the game is over in this position".into()))?;
    Ok(json_reply(200, &view))
}

/// The person's move.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    /// PDN move text: `11-15`, `15x24x31`, or `15x31` when that names one capture.
    #[serde(rename = "move")]
    text: String,
}

fn play(request: &mut Request, games: &Games, id: &str) -> Result<Reply, Refusal> {
    let (id, table) = table(games, id)?;
    let MoveRequest { text } = body(request)?;
    let mut table = lock(&table);
    table.play(&text).map_err(|e| Refusal(409, support::one_line(e.as_ref())))?;
    Ok(json_reply(200, &table.state(&id)))
}

/// Streams the engine's thinking on game `id` as server-sent events: `progress` (depth, nodes,
/// score, principal variation; for MCTS also the win/draw/loss chances and the root moves with
/// their visits, priors and values) as the search goes, then `state` after its move, or `error`. Each
/// event is one chunk of a chunked body, sent as it comes; a page that goes away stops the search.
fn think(request: Request, id: String, table: Arc<Mutex<Table>>) {
    let Some(mut stream) = EventStream::open(request) else { return };
    let mut table = lock(&table);
    let control = SearchControl::new();
    let mut report = |progress: &Progress| {
        if !stream.send("progress", &progress_json(progress)) {
            control.stop();
        }
    };
    let moved = table.engine_move(&control, &mut report);
    let sent = match moved {
        Ok(()) => stream.send("state", &table.state(&id)),
        Err(e) => stream.send("error", &json!({ "error": support::one_line(e.as_ref()) })),
    };
    if sent {
        stream.end();
    }
}

/// Analyses the game `asked` names, streaming server-sent events: `progress` after each position
/// (`done`, `total`, `index`, `black`: its value for Black), then `analysis` (the result, see
/// [`Analysis`]) or `error`. A request over a limit, bad PDN (the error names the game and the
/// move) or too many analyses at once are refused before the stream starts (4xx, 503).
fn analyse(request: Request, asked: AnalysisRequest, site: &Site) {
    let checked = site
        .analyses
        .take()
        .map_err(|e| Refusal(503, support::one_line(e.as_ref())))
        .and_then(|place| Ok((place, Analysis::new(asked, &site.games)?)));
    let (_place, analysis) = match checked {
        Ok(checked) => checked,
        Err(Refusal(status, error)) => {
            let _ = request.respond(json_reply(status, &json!({ "error": error })));
            return;
        }
    };
    let Some(mut stream) = EventStream::open(request) else { return };
    let sent = match analysis.run(&mut |name, data| stream.send(name, data)) {
        Ok(result) => stream.send("analysis", &result),
        Err(e) => stream.send("error", &json!({ "error": support::one_line(e.as_ref()) })),
    };
    if sent {
        stream.end();
    }
}

/// A response of server-sent events, each one chunk of a chunked body, sent as it comes.
struct EventStream(Box<dyn Write + Send>);

impl EventStream {
    /// Starts the response; `None` when the page has gone already.
    fn open(request: Request) -> Option<EventStream> {
        let mut out = request.into_writer();
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                    Transfer-Encoding: chunked\r\n\r\n";
        out.write_all(head.as_bytes()).and_then(|()| out.flush()).ok()?;
        Some(EventStream(out))
    }

    /// Sends event `name` with `data`; `false` when the page has gone.
    fn send(&mut self, name: &str, data: &Value) -> bool {
        let text = format!("event: {name}\ndata: {data}\n\n");
        let chunk = format!("{:x}\r\n{text}\r\n", text.len());
        self.0.write_all(chunk.as_bytes()).and_then(|()| self.0.flush()).is_ok()
    }

    /// Ends the response.
    fn end(mut self) {
        let _ = self.0.write_all(b"0\r\n\r\n").and_then(|()| self.0.flush());
    }
}

/// A search report as the page reads it.
fn progress_json(progress: &Progress) -> Value {
    let score = match progress.score {
        Score::Men(men) => json!({ "men": men }),
        Score::WinIn(plies) => json!({ "win_in": plies }),
        Score::LossIn(plies) => json!({ "loss_in": plies }),
    };
    json!({
        "depth": progress.depth,
        "nodes": progress.nodes,
        "playouts": progress.playouts,
        "score": score,
        "pv": progress.pv.iter().map(|mv| mv.to_string()).collect::<Vec<_>>(),
        "seconds": progress.elapsed.as_secs_f64(),
        "outlook": progress.outlook.map(|o| json!({ "win": o.win, "draw": o.draw, "loss": o.loss })),
        "root_moves": progress.root_moves.iter().map(|m| json!({
            "move": m.text(),
            "visits": m.visits,
            "prior": m.prior,
            "value": m.value,
        })).collect::<Vec<_>>(),
    })
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a valid header")
}

fn asset(text: &'static str, content_type: &str) -> Reply {
    Response::from_data(text.as_bytes().to_vec()).with_header(header("Content-Type", content_type))
}

fn json_reply(status: u16, value: &impl serde::Serialize) -> Reply {
    let text = serde_json::to_vec(value).expect("answers serialise: their maps have string keys");
    Response::from_data(text)
        .with_status_code(StatusCode(status))
        .with_header(header("Content-Type", "application/json"))
}
