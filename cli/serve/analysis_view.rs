//! The board's analysis view: a game of a PDN the page sends, every position searched by an
//! engine with [`crate::analysis`] (the machinery of `checkers-zero analyse`), and the result as
//! the page draws it: each position's board, FEN and value (the graph), each move's loss and mark
//! (the move list), the annotated PDN.
//!
//! What one request may cost is bounded before anything is searched: the PDN text
//! ([`MAX_PDN_BYTES`]), the game's length ([`MAX_PLIES`]), the engine (one a page may start, as for
//! a game), the time a position ([`MAX_POSITION_SECONDS`] when the page asks for a time) and the
//! whole analysis ([`MAX_SECONDS`]: each search's deadline is its share of the time left), the
//! analyses at once ([`MAX_AT_ONCE`]), and its worst-case memory, reserved of the server's
//! budget. The analysis runs on the request's own thread and streams its progress, so the server
//! goes on answering; a page that goes away stops it.

use super::games::{color_name, Games};
use super::memory::Share;
use crate::analysis::{Analyst, MoveReview, Review, View, Watch, DEFAULT_MARGIN};
use anyhow::{Context, Result};
use arena::{Contestant, Entrant};
use draughts::{read_pdn, write_pdn, Color, PdnGame, Position};
use search::{MoveBudget, Outlook, SearchControl};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest PDN text analysed (a file of a few hundred games).
pub const MAX_PDN_BYTES: usize = 256 * 1024;
/// The largest request body read: the PDN as a JSON string, escapes and all.
pub const MAX_BODY: usize = 2 * MAX_PDN_BYTES;
/// The most moves of the game analysed.
pub const MAX_PLIES: usize = 1000;
/// The most seconds a position the page may ask for.
pub const MAX_POSITION_SECONDS: f64 = 10.0;
/// The most seconds one analysis searches, all positions together.
pub const MAX_SECONDS: u64 = 300;
/// Analyses running at once; another is refused (503) until one ends.
pub const MAX_AT_ONCE: usize = 2;
/// Games of the file listed for the page to choose from.
const MAX_LISTED: usize = 1000;
/// The least time a position's search is given when the analysis's time runs short.
const MIN_POSITION_TIME: Duration = Duration::from_millis(10);

/// What the page asks to analyse.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalysisRequest {
    /// The PDN text (one game or a file of them).
    pub pdn: String,
    /// Which game of the text, from 1 (default 1).
    pub game: Option<usize>,
    /// The engine, as for a game (default: the server's own).
    pub player: Option<String>,
    /// Seconds a position (default: the engine's own budget).
    pub seconds: Option<f64>,
}

/// The analyses running now.
#[derive(Default)]
pub struct Running(AtomicUsize);

/// One of the [`MAX_AT_ONCE`] places, given back when dropped.
pub struct Place<'a>(&'a Running);

impl Running {
    /// A place for one more analysis, or an error when [`MAX_AT_ONCE`] run.
    pub fn take(&self) -> Result<Place<'_>> {
        if self.0.fetch_add(1, Ordering::SeqCst) >= MAX_AT_ONCE {
            self.0.fetch_sub(1, Ordering::SeqCst);
            anyhow::bail!("{MAX_AT_ONCE} analyses are running; try again when one has ended");
        }
        Ok(Place(self))
    }
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        self.0 .0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// An analysis checked and ready to run.
pub struct Analysis {
    pdn: PdnGame,
    /// The game's number in the text, from 1.
    number: usize,
    /// The games of the text, for the page to choose from.
    listed: Value,
    entrant: Arc<Entrant>,
    seed: u64,
    budget: MoveBudget,
    /// Each position after each move, the start first.
    positions: Vec<Position>,
    /// The analysis's reservation of the server's memory budget, given back when it ends.
    _memory: Share,
}

impl Analysis {
    /// Checks `request` against the limits and reads its game; the engine comes from `games`.
    /// An error (bad PDN naming the game and move, a game out of range, a limit) is for the page.
    pub fn new(request: AnalysisRequest, games: &Games) -> Result<Analysis> {
        anyhow::ensure!(
            request.pdn.len() <= MAX_PDN_BYTES,
            "the PDN is {} bytes; the board analyses at most {} KiB",
            request.pdn.len(),
            MAX_PDN_BYTES / 1024
        );
        let budget = match request.seconds {
            None => MoveBudget::Own,
            Some(s) if s > 0.0 && s <= MAX_POSITION_SECONDS => {
                MoveBudget::Time(Duration::from_secs_f64(s))
            }
            Some(s) => anyhow::bail!(
                "`seconds` {s}: a position may have more than 0 and at most {MAX_POSITION_SECONDS} s"
            ),
        };
        let mut all = read_pdn(&request.pdn).context("the PDN")?;
        anyhow::ensure!(!all.is_empty(), "the PDN holds no game");
        let number = request.game.unwrap_or(1);
        anyhow::ensure!(
            (1..=all.len()).contains(&number),
            "the PDN holds {} game{}; there is no game {number}",
            all.len(),
            if all.len() == 1 { "" } else { "s" }
        );
        let listed = json!(all
            .iter()
            .take(MAX_LISTED)
            .enumerate()
            .map(|(i, game)| json!({
                "number": i + 1,
                "black": game.tag("Black"),
                "white": game.tag("White"),
                "event": game.tag("Event"),
                "result": game.result.pdn(),
                "moves": game.moves.len(),
            }))
            .collect::<Vec<_>>());
        let pdn = all.swap_remove(number - 1);
        anyhow::ensure!(
            pdn.moves.len() <= MAX_PLIES,
            "game {number} has {} moves; the board analyses games of at most {MAX_PLIES}",
            pdn.moves.len()
        );
        let spec = request.player.as_deref().unwrap_or(games.default_player());
        let entrant = games.page_engine(Some(spec))?;
        let timed = matches!(budget, MoveBudget::Time(_));
        let memory = games.reserve_player(spec, true, timed)?;
        let mut positions = vec![pdn.start];
        for &mv in &pdn.moves {
            positions.push(positions[positions.len() - 1].play(mv));
        }
        let seed = games.next_seed();
        Ok(Analysis { pdn, number, listed, entrant, seed, budget, positions, _memory: memory })
    }

    /// Runs the analysis, telling `send` (an event name and its data; `false` when the page is
    /// gone) `progress` after each position (`done`, `total`, the position's `index` and its
    /// value for Black); the result as the page draws it.
    pub fn run(&self, send: &mut dyn FnMut(&str, &Value) -> bool) -> Result<Value> {
        let control = SearchControl::new();
        let analyst = Analyst {
            margin: DEFAULT_MARGIN,
            number: self.number,
            budget: self.budget,
            control: &control,
        };
        let mut player = self.entrant.player(self.seed)?;
        let mut pace = Pace {
            send,
            control: &control,
            positions: &self.positions,
            until: Instant::now() + Duration::from_secs(MAX_SECONDS),
            done: 0,
        };
        let review = analyst.review(&self.pdn, player.as_mut(), &mut pace)?;
        Ok(self.json(&review))
    }

    /// The review as the page draws it.
    fn json(&self, review: &Review) -> Value {
        let engine = self.entrant.name();
        let positions: Vec<Value> = (self.positions.iter().zip(&review.positions))
            .enumerate()
            .map(|(ply, (position, view))| {
                let to_move = position.side_to_move();
                json!({
                    "ply": ply,
                    "fen": position.to_fen(),
                    "board": super::run_view::board(position),
                    "to_move": color_name(to_move),
                    "value": view.value,
                    "black": for_black(view, to_move),
                    "outlook": view.outlook.map(outlook_json),
                    "line": view.line.iter().map(|mv| mv.to_string()).collect::<Vec<_>>(),
                })
            })
            .collect();
        let moves: Vec<Value> = review.moves.iter().map(move_json).collect();
        let annotated = review.annotated(&self.pdn, engine, DEFAULT_MARGIN);
        json!({
            "engine": engine,
            "margin": DEFAULT_MARGIN,
            "game": self.number,
            "games": self.listed,
            "black": self.pdn.tag("Black"),
            "white": self.pdn.tag("White"),
            "result": self.pdn.result.pdn(),
            "positions": positions,
            "moves": moves,
            "tally": {
                "text": review.tally.text(),
                "mistakes": { "black": review.tally.mistakes[0], "white": review.tally.mistakes[1] },
                "blunders": { "black": review.tally.blunders[0], "white": review.tally.blunders[1] },
            },
            "pdn": write_pdn(&[annotated]),
        })
    }
}

/// A view's value for Black.
fn for_black(view: &View, to_move: Color) -> f32 {
    match to_move {
        Color::Black => view.value,
        Color::White => -view.value,
    }
}

fn outlook_json(outlook: Outlook) -> Value {
    json!({ "win": outlook.win, "draw": outlook.draw, "loss": outlook.loss })
}

fn move_json(review: &MoveReview) -> Value {
    json!({
        "move": review.mv.to_string(),
        "mover": color_name(review.mover),
        "before": review.before.value,
        "after": review.after.value,
        "lost": review.lost,
        "kind": review.kind.map(|kind| kind.word()),
        "best": review.best().map(|mv| mv.to_string()),
        "comment": review.comment(),
    })
}

/// Sets each search's deadline (its share of the analysis's time left) and streams the
/// progress; a page gone stops the analysis.
struct Pace<'a> {
    send: &'a mut dyn FnMut(&str, &Value) -> bool,
    control: &'a SearchControl,
    positions: &'a [Position],
    until: Instant,
    done: usize,
}

impl Watch for Pace<'_> {
    fn searching(&mut self, index: usize, total: usize) -> Result<()> {
        let left = self.until.saturating_duration_since(Instant::now());
        let share = left / u32::try_from(total - index).unwrap_or(u32::MAX);
        self.control.set_time_left(Some(share.max(MIN_POSITION_TIME)));
        Ok(())
    }

    fn searched(&mut self, index: usize, view: &View) -> Result<()> {
        self.done = self.done.max(index + 1);
        let to_move = self.positions[index].side_to_move();
        let progress = json!({
            "done": self.done,
            "total": self.positions.len(),
            "index": index,
            "black": for_black(view, to_move),
        });
        if !(self.send)("progress", &progress) {
            self.control.stop();
            anyhow::bail!("the page went away");
        }
        Ok(())
    }
}
