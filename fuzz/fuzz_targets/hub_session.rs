//! A Hub session fed the input as the GUI's lines, in any order (`pos` before `init`, `go` with no
//! legal move, `stop` with nothing to stop, moves played on past a draw...), twice: with an engine
//! that answers at once, and with the MCTS player that keeps its tree between moves (a small
//! playout budget, whatever `level` says). The lines come as a GUI sends them: after a `go`, the
//! next waits for the engine's `done` (or the `error` refusing the `go`). Each session ends (no
//! hang), without an error, and every line it writes is a well-formed Hub line.
#![no_main]

use arena::{MctsPlayer, Player, Thinking};
use draughts::Game;
use hub::{Engine, Line, Thought};
use libfuzzer_sys::fuzz_target;
use search::{MoveBudget, Progress, Score, ThinkRequest, UniformEvaluator};
use std::collections::VecDeque;
use std::io::{BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

type EngineError = Box<dyn std::error::Error + Send + Sync>;

/// Plays the first legal move, with one progress report.
struct FirstMove;

impl Engine for FirstMove {
    fn name(&self) -> String {
        "first move".to_string()
    }

    fn think(&mut self, game: &Game, request: ThinkRequest<'_>) -> Result<Thought, EngineError> {
        let mv = game.position().legal_moves()[0];
        let progress = Progress {
            depth: 1,
            playouts: None,
            nodes: 1,
            score: Score::Men(0.0),
            pv: vec![mv],
            elapsed: Duration::ZERO,
            outlook: None,
            root_moves: Vec::new(),
        };
        (request.report)(&progress);
        Ok(Thought { mv, pv: vec![mv] })
    }

    fn new_game(&mut self) -> Result<(), EngineError> {
        Ok(())
    }
}

/// Playouts of the MCTS engine's every move: enough for a tree to be kept and reused.
const PLAYOUTS: u64 = 24;

/// The match's MCTS player (uniform priors, no net), its budget fixed to [`PLAYOUTS`].
struct KeptTree(MctsPlayer<UniformEvaluator>);

impl KeptTree {
    fn new() -> KeptTree {
        let playouts = Thinking::Playouts(PLAYOUTS as u32);
        KeptTree(MctsPlayer::new("mcts".to_string(), UniformEvaluator, playouts, 0))
    }
}

impl Engine for KeptTree {
    fn name(&self) -> String {
        "mcts".to_string()
    }

    fn think(&mut self, game: &Game, request: ThinkRequest<'_>) -> Result<Thought, EngineError> {
        let request = ThinkRequest { budget: MoveBudget::Nodes(PLAYOUTS), ..request };
        let choice = self.0.think(game, request)?;
        Ok(Thought { mv: choice.mv, pv: choice.pv })
    }

    fn new_game(&mut self) -> Result<(), EngineError> {
        *self = KeptTree::new();
        Ok(())
    }
}

/// What the session writes, kept for the checks, with a count of the answers to `go` so far
/// (`done`, or an `error` refusing the `go`: its message starts with `go`, quoted or not),
/// counted as each line is completed, and a signal for whoever waits on that count.
#[derive(Clone, Default)]
struct Captured(Arc<(Mutex<Written>, Condvar)>);

#[derive(Default)]
struct Written {
    bytes: Vec<u8>,
    /// Where the line being written starts.
    line_start: usize,
    answers: usize,
}

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let (written, signal) = &*self.0;
        let mut written = written.lock().expect("not poisoned");
        let mut from = written.bytes.len();
        written.bytes.extend_from_slice(bytes);
        let mut answered = false;
        while let Some(at) = written.bytes[from..].iter().position(|&byte| byte == b'\n') {
            let end = from + at;
            let line = &written.bytes[written.line_start..end];
            if line.starts_with(b"done")
                || line.starts_with(b"error message=\"go")
                || line.starts_with(b"error message=\"`go`")
            {
                written.answers += 1;
                answered = true;
            }
            written.line_start = end + 1;
            from = end + 1;
        }
        if answered {
            signal.notify_all();
        }
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn answers(&self) -> usize {
        self.0 .0.lock().expect("not poisoned").answers
    }

    /// Waits until more than `before` answers are written, `ended` is set, or [`ANSWER_WAIT`]
    /// passes.
    fn wait_for_answer(&self, before: usize, ended: &AtomicBool) {
        let (written, signal) = &*self.0;
        let started = Instant::now();
        let mut written = written.lock().expect("not poisoned");
        while written.answers <= before && !ended.load(Ordering::SeqCst) {
            let Some(left) = ANSWER_WAIT.checked_sub(started.elapsed()) else { return };
            // Short waits: the session's end is a flag, not a signal on this condition.
            let wait = left.min(Duration::from_millis(1));
            written = signal.wait_timeout(written, wait).expect("not poisoned").0;
        }
    }

    fn text(&self) -> Vec<u8> {
        self.0 .0.lock().expect("not poisoned").bytes.clone()
    }
}

/// Longest wait for the answer to a `go` before the next line is sent anyway (the session ends
/// with its input, so a lost answer shows as the session failing or libFuzzer's hang timeout).
const ANSWER_WAIT: Duration = Duration::from_secs(2);

/// The session's input, one line at a time: a line after a well-formed `go` is held back until
/// the output has one more answer than when the `go` was sent.
struct Paced {
    lines: VecDeque<Vec<u8>>,
    out: Captured,
    /// Answers written before the last `go` was sent, while it waits for its own.
    awaiting: Option<usize>,
    /// Set once the session has ended: the rest of the input is not sent.
    ended: Arc<AtomicBool>,
    /// Signalled when the session's reader drops its input, as its thread ends.
    dropped: Arc<(Mutex<bool>, Condvar)>,
}

impl Paced {
    fn ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }
}

impl Drop for Paced {
    fn drop(&mut self) {
        let (dropped, signal) = &*self.dropped;
        *dropped.lock().expect("not poisoned") = true;
        signal.notify_all();
    }
}

impl Read for Paced {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if let Some(before) = self.awaiting.take() {
            self.out.wait_for_answer(before, &self.ended);
        }
        if self.ended() {
            return Ok(0);
        }
        let Some(line) = self.lines.front_mut() else { return Ok(0) };
        let n = line.len().min(buffer.len());
        buffer[..n].copy_from_slice(&line[..n]);
        line.drain(..n);
        if line.is_empty() {
            let sent = self.lines.pop_front().expect("a line was there");
            let sent = std::str::from_utf8(&sent).unwrap_or_default();
            if Line::parse(sent).is_ok_and(|line| line.command == "go") {
                self.awaiting = Some(self.out.answers());
            }
        }
        Ok(n)
    }
}

/// The threads of this process now (Linux).
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, Iterator::count)
}

/// Serves `data`'s lines (any bytes: a line that is not UTF-8 is answered with an error) to
/// `engine` and checks the session and what it wrote.
fn check_session<E: Engine + 'static>(engine: E, data: &[u8]) {
    let out = Captured::default();
    let lines = data.split(|&b| b == b'\n').map(|line| [line, b"\n"].concat()).collect();
    let ended = Arc::new(AtomicBool::new(false));
    let dropped = Arc::new((Mutex::new(false), Condvar::new()));
    let input = Paced {
        lines,
        out: out.clone(),
        awaiting: None,
        ended: ended.clone(),
        dropped: dropped.clone(),
    };
    let threads_before = threads();
    let result = hub::serve(engine, BufReader::new(input), out.clone());
    // The session's reader thread outlives the session (it is left to block on a GUI's input):
    // stop it and wait for it to exit, or LeakSanitizer counts what the live thread holds.
    ended.store(true, Ordering::SeqCst);
    let (input_dropped, signal) = &*dropped;
    let started = Instant::now();
    let mut input_dropped = input_dropped.lock().expect("not poisoned");
    while !*input_dropped && started.elapsed() < ANSWER_WAIT {
        input_dropped = signal.wait_timeout(input_dropped, ANSWER_WAIT).expect("not poisoned").0;
    }
    drop(input_dropped);
    // Dropping its input is the thread's last act; what is left is its exit.
    while threads() > threads_before && started.elapsed() < ANSWER_WAIT {
        thread::yield_now();
    }
    assert!(result.is_ok(), "the session failed: {result:?}");
    let written = String::from_utf8(out.text()).expect("the session writes UTF-8");
    for line in written.lines() {
        assert!(Line::parse(line).is_ok(), "malformed line written: {line:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    check_session(FirstMove, data);
    check_session(KeptTree::new(), data);
});
