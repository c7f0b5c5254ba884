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
        if let (Some("ponder"), MoveBudget::Time(time)) = (mode, budget) {
            // The clock is not running yet: search until the expected move is played.
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
mod tests {
    use super::*;
    use draughts::Position;
    use std::io::Cursor;

    /// How the test engine fails.
    #[derive(Clone, Copy, PartialEq)]
    enum Failure {
        Error,
        Panic,
        IllegalMove,
    }

    /// Plays the first legal move at once; fails as `failure` says when asked to think after
    /// `fail_after` searches.
    struct FirstMove {
        searches: usize,
        fail_after: usize,
        failure: Failure,
    }

    impl Engine for FirstMove {
        fn name(&self) -> String {
            "first move".to_string()
        }

        fn think(
            &mut self,
            game: &Game,
            request: ThinkRequest<'_>,
        ) -> Result<crate::Thought, Box<dyn std::error::Error + Send + Sync>> {
            self.searches += 1;
            let failing = self.searches > self.fail_after;
            if failing {
                assert!(self.failure != Failure::Panic, "an invariant broke");
                if self.failure == Failure::Error {
                    return Err("the net failed".into());
                }
            }
            // Failing with an illegal move: the start position's first (the test plays another).
            let position = if failing { Position::start() } else { *game.position() };
            let mv = position.legal_moves()[0];
            let progress = Progress {
                depth: 1,
                playouts: None,
                nodes: 1,
                score: Score::WinIn(3),
                pv: vec![mv],
                elapsed: Duration::from_millis(1),
                outlook: None,
                root_moves: Vec::new(),
            };
            (request.report)(&progress);
            Ok(crate::Thought { mv, pv: vec![mv] })
        }

        fn new_game(&mut self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
            Ok(())
        }
    }

    /// Output shared with the test.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(bytes)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn session(input: &str, fail_after: usize) -> (bool, Vec<String>) {
        let out = Captured::default();
        let engine = FirstMove { searches: 0, fail_after, failure: Failure::Error };
        let ok = serve(engine, Cursor::new(input.as_bytes().to_vec()), out.clone()).is_ok();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        (ok, text.lines().map(str::to_string).collect())
    }

    #[test]
    fn a_session_greets_searches_and_answers_bad_lines_with_errors() {
        let input = "hub\nset-param name=variant value=english\ninit\ngo think\nfly\n\
                     pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves=\"11-15\"\nlevel depth=3\n\
                     go think\nquit\nping\n";
        let (ok, lines) = session(input, usize::MAX);
        assert!(ok);
        assert_eq!(
            lines[0],
            "id name=\"first move\" version=0.1.0 author=\"checkers-zero developers\" country=none"
        );
        assert_eq!(lines[1], "param name=variant value=english type=enum values=english");
        assert_eq!(&lines[2..4], ["wait", "ready"]);
        assert!(lines[4].starts_with("error message=\"go: no position yet"), "{lines:?}");
        assert_eq!(lines[5], "error message=\"unknown command `fly`\"");
        assert_eq!(lines[6], "info depth=1 nodes=1 score=99.97 time=0.001 nps=1000 pv=22-17");
        assert_eq!(lines[7], "done move=22-17");
        assert_eq!(lines.len(), 8, "nothing after quit: {lines:?}");
    }

    /// An invalid UTF-8 line ended the session silently; docs/hub.md promises an error line.
    /// A huge line is answered the same way, and its text never comes back whole.
    #[test]
    fn a_line_that_is_not_text_or_too_long_gets_an_error_and_the_session_goes_on() {
        let mut input = b"ping\nr\xc3\xa9seau \xff\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 1));
        input.extend_from_slice(b"\nfly\x1b[2J\nping\nquit\n");
        let out = Captured::default();
        let engine = FirstMove { searches: 0, fail_after: usize::MAX, failure: Failure::Error };
        assert!(serve(engine, Cursor::new(input), out.clone()).is_ok());
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "pong");
        assert_eq!(
            lines[1],
            "error message=\"a line that is not UTF-8 text (byte 8); line ignored\""
        );
        assert_eq!(
            lines[2],
            format!("error message=\"a line of {} bytes, more than the {MAX_LINE_BYTES}-byte limit; line ignored\"", MAX_LINE_BYTES + 1)
        );
        assert_eq!(lines[3], "error message=\"unknown command `fly\\u{1b}[2J`\"");
        assert_eq!(lines[4], "pong");
        assert_eq!(lines.len(), 5, "{lines:?}");
    }

    /// [`FirstMove`] with a `level` setting it reports as the depth of its search; it refuses 7.
    struct Tuned {
        inner: FirstMove,
        level: i64,
    }

    impl Engine for Tuned {
        fn name(&self) -> String {
            "tuned".to_string()
        }

        fn think(
            &mut self,
            game: &Game,
            request: ThinkRequest<'_>,
        ) -> Result<crate::Thought, Box<dyn std::error::Error + Send + Sync>> {
            let level = self.level as u32;
            let report = request.report;
            let mut relabel =
                |progress: &Progress| report(&Progress { depth: level, ..progress.clone() });
            self.inner.think(game, ThinkRequest { report: &mut relabel, ..request })
        }

        fn new_game(&mut self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
            Ok(())
        }

        fn params(&self) -> Vec<Param> {
            vec![Param { name: "level", default: 0, min: 0, max: 8 }]
        }

        fn set_param(
            &mut self,
            name: &str,
            value: i64,
        ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
            assert_eq!(name, "level");
            if value == 7 {
                return Err("level 7 is not here today".into());
            }
            self.level = value;
            Ok(())
        }
    }

    /// The lines a [`Tuned`] engine answers to `input`.
    fn tuned_session(input: &str) -> Vec<String> {
        let out = Captured::default();
        let inner = FirstMove { searches: 0, fail_after: usize::MAX, failure: Failure::Error };
        let engine = Tuned { inner, level: 0 };
        assert!(serve(engine, Cursor::new(input.as_bytes().to_vec()), out.clone()).is_ok());
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn an_engine_setting_is_announced_checked_and_set_for_the_next_searches() {
        let input = "hub\nset-param name=level value=9\nset-param name=level value=two\n\
                     set-param name=level\nset-param name=colour value=1\n\
                     set-param name=level value=7\npos pos=B:W21-32:B1-12\ngo think\nquit\n";
        let lines = tuned_session(input);
        assert_eq!(lines[1], "param name=variant value=english type=enum values=english");
        assert_eq!(lines[2], "param name=level value=0 type=int min=0 max=8");
        assert_eq!(lines[3], "wait");
        let errors = [
            "set-param: level=9 is not a whole number from 0 to 8",
            "set-param: level=two is not a whole number from 0 to 8",
            "set-param: level= is not a whole number from 0 to 8",
            "unknown parameter `colour`",
            "set-param level=7: level 7 is not here today",
        ];
        for (line, error) in lines[4..9].iter().zip(errors) {
            assert_eq!(*line, format!("error message=\"{error}\""), "{lines:?}");
        }
        // Refused, the setting stays as it was.
        assert!(lines[9].starts_with("info depth=0 "), "{lines:?}");
        assert!(lines[10].starts_with("done move="), "{lines:?}");
        assert_eq!(lines.len(), 11, "{lines:?}");
        let lines =
            tuned_session("set-param name=level value=3\npos pos=B:W21-32:B1-12\ngo think\nquit\n");
        assert!(lines[0].starts_with("info depth=3 "), "the setting reached the engine: {lines:?}");
        assert!(lines[1].starts_with("done move="), "{lines:?}");
    }

    #[test]
    fn the_ponder_move_is_the_reply_in_the_engines_line_to_the_move_it_plays() {
        let game = Game::new(Position::start(), DrawRules::default());
        let start = Position::start();
        let [a, b] = [start.parse_move("11-15").unwrap(), start.parse_move("9-13").unwrap()];
        let reply = start.play(a).parse_move("23-19").unwrap();
        let thought = |mv, pv: Vec<Move>| crate::Thought { mv, pv };
        assert_eq!(ponder_move(&game, &thought(a, vec![a, reply])), Some(reply));
        assert_eq!(ponder_move(&game, &thought(b, vec![a, reply])), None, "another move played");
        assert_eq!(ponder_move(&game, &thought(a, vec![a])), None);
        assert_eq!(ponder_move(&game, &thought(a, vec![a, a])), None, "not legal after it");
    }

    #[test]
    fn a_draw_by_rule_with_moves_left_is_played_on_with_a_note() {
        // The start position a third time: a draw by repetition, though both kings can move.
        let shuffle = "1-5 32-28 5-1 28-32";
        let input = format!("pos pos=B:WK32:BK1 moves=\"{shuffle} {shuffle}\"\ngo think\nquit\n");
        let (ok, lines) = session(&input, usize::MAX);
        assert!(ok);
        assert_eq!(
            lines[0],
            "info message=\"the position is a draw by repetition; playing on, as moves remain\"",
            "{lines:?}"
        );
        assert!(lines[1].starts_with("info depth=1"), "{lines:?}");
        assert!(lines[2].starts_with("done move="), "{lines:?}");
    }

    #[test]
    fn an_engine_failure_ends_the_session_with_its_error() {
        let input = "pos pos=B:W21-32:B1-12\ngo think\nping\n";
        let out = Captured::default();
        let engine = FirstMove { searches: 0, fail_after: 0, failure: Failure::Error };
        let err = serve(engine, Cursor::new(input.as_bytes().to_vec()), out).unwrap_err();
        assert_eq!(err.to_string(), "the net failed");
    }

    #[test]
    fn an_illegal_move_from_the_engine_ends_the_session_instead_of_reaching_the_gui() {
        let input = "pos pos=B:WK32:BK1\ngo think\nping\n";
        let out = Captured::default();
        let engine = FirstMove { searches: 0, fail_after: 0, failure: Failure::IllegalMove };
        let err = serve(engine, Cursor::new(input.as_bytes().to_vec()), out.clone()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the engine failed: it answered 9-13, not a legal move in B:WK32:BK1"
        );
        let written = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert!(!written.contains("done"), "{written}");
    }

    #[test]
    fn an_engine_panic_ends_the_session_with_an_error_while_the_input_stays_open() {
        // A GUI keeps its end open and waits for `done`: the session must end on its own.
        let (input, mut gui) = std::io::pipe().unwrap();
        writeln!(gui, "pos pos=B:W21-32:B1-12\ngo think").unwrap();
        let engine = FirstMove { searches: 0, fail_after: 0, failure: Failure::Panic };
        let (ended, outcome) = channel();
        thread::spawn(move || {
            let result = serve(engine, std::io::BufReader::new(input), Captured::default());
            let _ = ended.send(result.map_err(|err| err.to_string()));
        });
        let outcome = outcome.recv_timeout(Duration::from_secs(20)).expect("the session ended");
        assert_eq!(outcome.unwrap_err(), "the engine failed: an invariant broke");
        drop(gui);
    }
}
