//! A Hub session fed the input as the GUI's lines, in any order (`pos` before `init`, `go` with no
//! legal move, `stop` with nothing to stop...), with an engine that answers at once: the session
//! ends (no hang), without an error, and every line it writes is a well-formed Hub line.
#![no_main]

use draughts::Game;
use hub::{Engine, Line, Thought};
use libfuzzer_sys::fuzz_target;
use search::{Progress, Score, ThinkRequest};
use std::io::{Cursor, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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

/// What the session writes, kept for the checks.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("not poisoned").write(bytes)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fuzz_target!(|text: &str| {
    let out = Captured::default();
    let ended = hub::serve(FirstMove, Cursor::new(text.as_bytes().to_vec()), out.clone());
    assert!(ended.is_ok(), "the session failed: {ended:?}");
    let written = String::from_utf8(out.0.lock().expect("not poisoned").clone())
        .expect("the session writes UTF-8");
    for line in written.lines() {
        assert!(Line::parse(line).is_ok(), "malformed line written: {line:?}");
    }
});
