//! The Hub session's tests: whole sessions fed as lines, the engine's answers read back.

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
    assert_eq!(lines[1], "error message=\"a line that is not UTF-8 text (byte 8); line ignored\"");
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
