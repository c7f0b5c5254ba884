//! One Hub session: reads the GUI's lines, answers them, and runs searches on a thread of their
//! own so that `stop`, `ping` and `ponder-hit` are answered while the engine thinks.

use crate::engine::{Engine, Param};
use crate::level::Level;
use crate::line::{id_value, quoted, Line};
use crate::notation::{move_text, parse_move, parse_position};
use draughts::{DrawReason, DrawRules, Game, Move, Outcome};
use search::{MoveBudget, Progress, Score, SearchControl, ThinkRequest};
use std::io::{BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;
use support::{one_line, panic_message};

/// The variants this engine plays (the `variant` parameter's only value).
const VARIANT: &str = "english";

/// Serves the Hub protocol on `input` and `output` with `engine` until `quit` or the end of the
/// input. Malformed or unknown lines are answered with `error` and the session goes on; an error
/// of the engine itself (a failed net) ends it with that error.
pub fn serve<E: Engine + 'static>(
    engine: E,
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let out = Output(Arc::new(Mutex::new(Box::new(output))));
    let (events, inbox) = channel();
    spawn_reader(input, events.clone());
    let mut session = Session::new(engine, out, events);
    let result = session.handle_events(&inbox);
    session.shut_down();
    result?;
    // An engine that failed while the session was ending still reports its error.
    match inbox.try_iter().find_map(|event| match event {
        Event::EngineFailed(message) => Some(message),
        _ => None,
    }) {
        Some(message) => Err(message.into()),
        None => Ok(()),
    }
}

/// The longest line taken from the GUI (a `pos` with a few hundred moves is a few KiB); a longer
/// one is answered with an error, and never held whole.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Characters of an error message sent to the GUI.
const ERROR_CHARS: usize = 300;

/// What the session loop waits for.
enum Event {
    Line(String),
    /// A line that is not text, or too long: answered with an error, and the session goes on.
    BadLine(support::BadLine),
    EndOfInput,
    EngineFailed(String),
}

/// Work for the search thread.
enum Job {
    Think { game: Game, budget: MoveBudget },
    NewGame,
    SetParam { name: &'static str, value: i64 },
}

/// Lines to the GUI, whole and flushed, from either thread.
#[derive(Clone)]
struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    fn line(&self, text: &str) {
        let mut out = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // A GUI that closed its end is gone; the reader sees the end of input and the session ends.
        let _ = writeln!(out, "{text}").and_then(|()| out.flush());
    }

    /// An `error` line; the message, which may quote what the GUI sent, escaped and cut.
    fn error(&self, message: &str) {
        let message = support::escape_and_cut(message, ERROR_CHARS);
        self.line(&format!("error message={}", quoted(&message)));
    }
}

struct Session {
    out: Output,
    name: String,
    /// The engine's settings beside `variant`.
    params: Vec<Param>,
    jobs: Option<Sender<Job>>,
    searcher: Option<thread::JoinHandle<()>>,
    control: Arc<SearchControl>,
    searching: Arc<AtomicBool>,
    game: Option<Game>,
    level: Level,
    /// The time a ponder search gets once the expected move is played (`ponder-hit`).
    ponder_time: Option<Duration>,
}

impl Session {
    fn new<E: Engine + 'static>(engine: E, out: Output, events: Sender<Event>) -> Session {
        let (jobs, queue) = channel();
        let control = Arc::new(SearchControl::new());
        let searching = Arc::new(AtomicBool::new(false));
        let name = engine.name();
        let params = engine.params();
        let searcher = {
            let (out, control, searching) = (out.clone(), control.clone(), searching.clone());
            thread::spawn(move || search_thread(engine, queue, out, control, searching, events))
        };
        Session {
            out,
            name,
            params,
            jobs: Some(jobs),
            searcher: Some(searcher),
            control,
            searching,
            game: None,
            level: Level::Own,
            ponder_time: None,
        }
    }

    /// Answers the events of `inbox` (the lines read, a bad line, the end of the input, an engine
    /// that failed) until the input ends or a line ends the session.
    fn handle_events(
        &mut self,
        inbox: &Receiver<Event>,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        while let Ok(event) = inbox.recv() {
            match event {
                Event::Line(text) => {
                    if !self.handle(&text) {
                        return Ok(());
                    }
                }
                Event::BadLine(bad) => self.out.error(&format!("{bad}; line ignored")),
                Event::EndOfInput => return Ok(()),
                Event::EngineFailed(message) => return Err(message.into()),
            }
        }
        Ok(())
    }

    /// Stops a search in progress and waits for the search thread to finish.
    fn shut_down(&mut self) {
        self.control.stop();
        drop(self.jobs.take());
        if let Some(searcher) = self.searcher.take() {
            let _ = searcher.join();
        }
    }

    /// Answers one line; `false` to end the session.
    fn handle(&mut self, text: &str) -> bool {
        let line = match Line::parse(text) {
            Ok(line) => line,
            Err(crate::line::LineError::Empty) => return true,
            Err(err) => {
                self.out.error(&err.to_string());
                return true;
            }
        };
        let searching = self.searching.load(Ordering::SeqCst);
        match line.command.as_str() {
            "quit" => return false,
            "ping" => self.out.line("pong"),
            "stop" => self.control.stop(),
            "ponder-hit" => {
                if let Some(time) = self.ponder_time.take() {
                    self.control.set_time_left(Some(time));
                }
            }
            command if searching => self.out.error(&format!(
                "`{command}` while searching: only ping, ponder-hit, stop and quit are taken now"
            )),
            "hub" => self.greet(),
            "set-param" => self.set_param(&line),
            "init" => self.out.line("ready"),
            "pos" => self.set_position(&line),
            "level" => match Level::parse(&line) {
                Ok(level) => self.level = level,
                Err(err) => self.out.error(&err.to_string()),
            },
            "go" => self.go(&line),
            "new-game" => self.send(Job::NewGame),
            other => self.out.error(&format!("unknown command `{other}`")),
        }
        true
    }

    fn greet(&self) {
        self.out.line(&format!(
            "id name={} version={} author={} country={}",
            quoted(&id_value(&self.name)),
            env!("CARGO_PKG_VERSION"),
            quoted("checkers-zero developers"),
            quoted("none"),
        ));
        self.out.line(&format!("param name=variant value={VARIANT} type=enum values={VARIANT}"));
        for param in &self.params {
            self.out.line(&format!(
                "param name={} value={} type=int min={} max={}",
                param.name, param.default, param.min, param.max
            ));
        }
        self.out.line("wait");
    }

    fn set_param(&self, line: &Line) {
        match (line.value("name"), line.value("value")) {
            (Some("variant"), Some(VARIANT)) => {}
            (Some("variant"), Some(other)) => self.out.error(&format!(
                "variant {other:?} is not played here; this engine plays {VARIANT} draughts only"
            )),
            (Some(name), value) => match self.params.iter().find(|p| p.name == name) {
                None => self.out.error(&format!("unknown parameter `{name}`")),
                Some(param) => {
                    let value = value.unwrap_or("");
                    match value.parse::<i64>() {
                        Ok(n) if (param.min..=param.max).contains(&n) => {
                            self.send(Job::SetParam { name: param.name, value: n });
                        }
                        _ => self.out.error(&format!(
                            "set-param: {name}={value} is not a whole number from {} to {}",
                            param.min, param.max
                        )),
                    }
                }
            },
            (None, _) => self.out.error("set-param needs name=... value=..."),
        }
    }

    fn set_position(&mut self, line: &Line) {
        let Some(text) = line.value("pos") else {
            return self.out.error("pos needs pos=POSITION [moves=\"...\"]");
        };
        let start = match parse_position(text) {
            Ok(position) => position,
            Err(err) => return self.out.error(&one_line(&err)),
        };
        let mut game = Game::new(start, DrawRules::default());
        let moves = line.value("moves").unwrap_or("");
        for (i, text) in moves.split_whitespace().enumerate() {
            let played = parse_move(game.position(), text)
                .map_err(|err| one_line(&err))
                .and_then(|mv| game.play(mv).map_err(|err| one_line(&err)));
            if let Err(err) = played {
                return self.out.error(&format!("pos: move {} of moves: {err}", i + 1));
            }
        }
        self.game = Some(game);
    }

    fn go(&mut self, line: &Line) {
        let mode = line.args.first().map(|(name, _)| name.as_str());
        if !matches!(mode, Some("think" | "ponder" | "analyze")) {
            return self.out.error("go needs think, ponder or analyze");
        }
        let Some(game) = self.game.clone() else {
            return self.out.error("go: no position yet (send pos first)");
        };
        let game = match game.outcome() {
            None => game,
            // A GUI or referee that does not apply a draw rule still wants a move: play on
            // under the rules without it, and say so.
            Some(Outcome::Draw(reason)) if !game.position().legal_moves().is_empty() => {
                let rule = match reason {
                    DrawReason::Repetition => "repetition",
                    DrawReason::NoProgress => "the 40-move rule",
                    DrawReason::PlyCap => "the length cap",
                };
                let note = format!("the position is a draw by {rule}; playing on, as moves remain");
                self.out.line(&format!("info message={}", quoted(&note)));
                game.under(game.rules().without(reason))
            }
            Some(outcome) => return self.out.error(&format!("go: the game is over ({outcome:?})")),
        };
        let mut budget = self.level.budget();
        self.ponder_time = None;
        if let (Some("ponder"), MoveBudget::Time(time) | MoveBudget::Clock { target: time, .. }) =
            (mode, budget)
        {
            // The clock is not running yet: search until the expected move is played, then for
            // the move's time (its target, under a clock).
            self.ponder_time = Some(time);
            budget = MoveBudget::Infinite;
        }
        self.control.reset();
        self.searching.store(true, Ordering::SeqCst);
        self.send(Job::Think { game, budget });
    }

    fn send(&self, job: Job) {
        if let Some(jobs) = &self.jobs {
            // The search thread only ends when the session does.
            let _ = jobs.send(job);
        }
    }
}

fn spawn_reader(mut input: impl BufRead + Send + 'static, events: Sender<Event>) {
    thread::spawn(move || {
        while let Ok(Some(line)) = support::read_line_capped(&mut input, MAX_LINE_BYTES) {
            let event = line.map_or_else(Event::BadLine, Event::Line);
            if events.send(event).is_err() {
                return;
            }
        }
        let _ = events.send(Event::EndOfInput);
    });
}

fn search_thread<E: Engine>(
    mut engine: E,
    jobs: Receiver<Job>,
    out: Output,
    control: Arc<SearchControl>,
    searching: Arc<AtomicBool>,
    events: Sender<Event>,
) {
    for job in jobs {
        // A panic in the engine ends the session like an error: the GUI sees the engine go,
        // rather than wait for a `done` that never comes.
        let result = panic::catch_unwind(AssertUnwindSafe(|| match job {
            Job::NewGame => engine.new_game().map_err(|err| one_line(err.as_ref())),
            // A setting the engine cannot take is the GUI's to hear about; the engine goes on.
            Job::SetParam { name, value } => {
                if let Err(err) = engine.set_param(name, value) {
                    out.error(&format!("set-param {name}={value}: {}", one_line(err.as_ref())));
                }
                Ok(())
            }
            Job::Think { game, budget } => {
                let mut report = |progress: &Progress| out.line(&info_line(progress));
                let request = ThinkRequest { budget, control: &control, report: &mut report };
                let thought = engine.think(&game, request).map_err(|err| one_line(err.as_ref()))?;
                // A GUI trusts the engine's move: an illegal one ends the session instead.
                if !game.position().legal_moves().contains(&thought.mv) {
                    return Err(format!(
                        "the engine failed: it answered {}, not a legal move in {}",
                        move_text(thought.mv),
                        game.position().to_fen()
                    ));
                }
                searching.store(false, Ordering::SeqCst);
                out.line(&done_line(thought.mv, ponder_move(&game, &thought)));
                Ok(())
            }
        }))
        .unwrap_or_else(|payload| {
            Err(format!("the engine failed: {}", panic_message(&*payload, "it panicked")))
        });
        if let Err(message) = result {
            searching.store(false, Ordering::SeqCst);
            let _ = events.send(Event::EngineFailed(message));
            return;
        }
    }
}

fn info_line(progress: &Progress) -> String {
    let seconds = progress.elapsed.as_secs_f64();
    let mut text = format!("info depth={}", progress.depth);
    if let Some(playouts) = progress.playouts {
        text.push_str(&format!(" playouts={playouts}"));
    }
    let nps = if seconds > 0.0 { progress.nodes as f64 / seconds } else { 0.0 };
    let pv: Vec<String> = progress.pv.iter().copied().map(move_text).collect();
    text.push_str(&format!(
        " nodes={} score={} time={seconds:.3} nps={nps:.0} pv={}",
        progress.nodes,
        score_text(progress.score),
        quoted(&pv.join(" ")),
    ));
    text
}

/// A score in men with two decimals; a found win in `n` plies as `100 - n/100` (and a loss
/// negated), the convention pydraughts reads as a win in `n` plies.
fn score_text(score: Score) -> String {
    let value = match score {
        Score::Men(men) => f64::from(men.clamp(-90.0, 90.0)),
        Score::WinIn(plies) => 100.0 - f64::from(plies.min(9000)) / 100.0,
        Score::LossIn(plies) => -(100.0 - f64::from(plies.min(9000)) / 100.0),
    };
    format!("{value:.2}")
}

/// The move to ponder on: the second of the engine's line when the line starts with its move and
/// that reply is legal. (A player that draws its move at a temperature, a level for people,
/// may play another move than its line's first; its line then says nothing of the reply.)
fn ponder_move(game: &Game, thought: &crate::Thought) -> Option<Move> {
    let (&first, &reply) = (thought.pv.first()?, thought.pv.get(1)?);
    let after = game.position().play(thought.mv);
    (first == thought.mv && after.legal_moves().contains(&reply)).then_some(reply)
}

fn done_line(mv: Move, ponder: Option<Move>) -> String {
    match ponder {
        Some(ponder) => format!("done move={} ponder={}", move_text(mv), move_text(ponder)),
        None => format!("done move={}", move_text(mv)),
    }
}

#[cfg(test)]
mod tests;
