//! The run a `serve --run-dir` shows beside the board: its best net, the budget spent and its
//! rates (read again on every request, so a page that refreshes follows a run in progress), its
//! plots, and its games to replay position by position. What a plot or a replay holds at worst
//! is known from the file's size before it is read ([`RunView::plot_bytes`],
//! [`RunView::games_bytes`]), for the server's memory budget.

use anyhow::{Context, Result};
use draughts::{read_pdn, Color, Position, Square};
use rundata::RunDir;
use serde::Serialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The plots `run` and `ladder` write into the run folder: the only run files served whole.
pub const PLOTS: [&str; 4] = ["curve.svg", "curve-time.svg", "elo.svg", "elo-time.svg"];
/// A plot larger than this is not read (the plots `run` writes are far smaller).
const MAX_PLOT_BYTES: u64 = 16 << 20;
/// Game files listed, by name from the last (self-play's names start with their time, so the
/// newest first; a match's `match-<time>.pdn` before them).
const MAX_GAME_FILES: usize = 200;
/// A game file larger than this is not read.
const MAX_GAME_FILE_BYTES: u64 = 8 << 20;
/// The most plies of a game file sent with their boards (the answer holds a board and a FEN for
/// every ply, built in memory at once: a 7.2 MB file made the server hold gigabytes).
const MAX_SERVED_PLIES: usize = 20_000;
/// What one ply of a replayed game holds at most, in memory and in the answer's text together: a
/// board of up to 24 pieces, a FEN and the move's text (the test below measures a full board).
const PLY_BYTES: u64 = 2 << 10;
/// The fewest bytes of a game file that make one ply of the answer (a game with no move costs
/// its result and a blank line; a move at least its squares and a space).
const FILE_BYTES_PER_PLY: u64 = 2;

/// A piece as the page draws it: its square, and `bm`, `bk`, `wm` or `wk`.
#[derive(Debug, Serialize)]
pub struct Piece {
    square: u8,
    piece: &'static str,
}

/// A game of a file, replayed: its players, result and moves, and the board and FEN after each
/// ply (the start's first).
#[derive(Serialize)]
struct ReplayedGame {
    black: Option<String>,
    white: Option<String>,
    result: &'static str,
    moves: Vec<String>,
    boards: Vec<Vec<Piece>>,
    fens: Vec<String>,
}

/// A game file's games, replayed.
#[derive(Serialize)]
pub struct ReplayedFile<'a> {
    file: &'a str,
    games: Vec<ReplayedGame>,
}

/// A run folder, read on request.
pub struct RunView {
    run: RunDir,
}

impl RunView {
    /// The run at `dir`, which must exist.
    pub fn open(dir: PathBuf) -> Result<RunView> {
        let run = RunDir::existing(&dir).with_context(|| format!("--run-dir {}", dir.display()))?;
        Ok(RunView { run })
    }

    /// The run as the page shows it: folder, best net, budget spent and rates, plots, game files.
    pub fn summary(&self) -> Result<Value> {
        let best = self.run.best()?;
        let progress = self.progress()?;
        let hours = progress["wall_seconds"].as_f64().unwrap_or(0.0) / 3600.0;
        let cpu_hours = progress["cpu_seconds"].as_f64().unwrap_or(0.0) / 3600.0;
        let games = progress["games"].as_u64().unwrap_or(0);
        let steps = best.as_ref().map_or(0, |b| b.step);
        let mut files: Vec<String> = std::fs::read_dir(self.run.games_dir())
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .filter(|name| name.ends_with(".pdn"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort_by(|a, b| b.cmp(a));
        files.truncate(MAX_GAME_FILES);
        let plots: Vec<&str> =
            PLOTS.iter().copied().filter(|name| self.run.root().join(name).is_file()).collect();
        Ok(json!({
            "root": self.run.root().display().to_string(),
            "best": best.map(|b| json!({
                "checkpoint": b.checkpoint, "step": b.step, "generation": b.generation,
            })),
            "games": games,
            "hours": hours,
            "cpu_hours": cpu_hours,
            "games_per_hour": if hours > 0.0 { games as f64 / hours } else { 0.0 },
            "steps": steps,
            "plots": plots,
            "game_files": files,
        }))
    }

    /// The run's `progress.json`, `null` before the run has one; one that is not a regular file,
    /// too big or not JSON is an error naming it.
    fn progress(&self) -> Result<Value> {
        let path = self.run.progress_file();
        match self.run.read_progress() {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .with_context(|| format!("{}: not a valid progress file", path.display())),
            Err(e) if e.is_not_found() => Ok(Value::Null),
            Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
        }
    }

    /// The plot `name` (one of [`PLOTS`]), `None` when it is not one or the run has none yet; a
    /// plot that is not a regular file or is bigger than [`MAX_PLOT_BYTES`] is an error naming it.
    pub fn plot(&self, name: &str) -> Result<Option<Vec<u8>>> {
        if !PLOTS.contains(&name) {
            return Ok(None);
        }
        match support::read_capped(&self.run.root().join(name), MAX_PLOT_BYTES, "a plot") {
            Ok(svg) => Ok(Some(svg)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e).with_context(|| format!("plot {name}")),
        }
    }

    /// What serving the plot `name` holds at most: its file's size, up to [`MAX_PLOT_BYTES`].
    pub fn plot_bytes(&self, name: &str) -> u64 {
        file_size(&self.run.root().join(name)).min(MAX_PLOT_BYTES)
    }

    /// What replaying the game file `name` holds at most: its text, the games read from it, and
    /// [`PLY_BYTES`] for each ply its size allows, up to [`MAX_SERVED_PLIES`].
    pub fn games_bytes(&self, name: &str) -> Result<u64> {
        let size = file_size(&self.game_file(name)?).min(MAX_GAME_FILE_BYTES);
        let plies = (size / FILE_BYTES_PER_PLY).min(MAX_SERVED_PLIES as u64);
        Ok(2 * size + plies * PLY_BYTES)
    }

    /// The path of the game file `name` of the run's `games/`; an error for a name that is not
    /// one.
    fn game_file(&self, name: &str) -> Result<PathBuf> {
        anyhow::ensure!(
            name.ends_with(".pdn") && !name.contains(['/', '\\']) && !name.starts_with('.'),
            "`{name}` is not a game file of the run"
        );
        Ok(self.run.games_dir().join(name))
    }

    /// The games of the file `name` in `games/`, each with the board after every ply.
    pub fn games<'a>(&self, name: &'a str) -> Result<ReplayedFile<'a>> {
        let path = self.game_file(name)?;
        let text = support::read_text_capped(&path, MAX_GAME_FILE_BYTES, "a game file")
            .with_context(|| format!("game file {name}"))?;
        let games = read_pdn(&text).with_context(|| name.to_string())?;
        let plies: usize = games.iter().map(|game| game.moves.len() + 1).sum();
        anyhow::ensure!(
            plies <= MAX_SERVED_PLIES,
            "{name} holds {plies} plies; the board replays files of at most {MAX_SERVED_PLIES}"
        );
        let games = games.iter().map(replay).collect();
        Ok(ReplayedFile { file: name, games })
    }
}

/// The size of the file at `path` (0 when it cannot be read: reading it then fails anyway).
fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |meta| meta.len())
}

/// `game` with the board and FEN after every ply.
fn replay(game: &draughts::PdnGame) -> ReplayedGame {
    let mut position = game.start;
    let mut boards = vec![board(&position)];
    let mut fens = vec![position.to_fen()];
    for &mv in &game.moves {
        position = position.play(mv);
        boards.push(board(&position));
        fens.push(position.to_fen());
    }
    ReplayedGame {
        black: game.tag("Black").map(str::to_string),
        white: game.tag("White").map(str::to_string),
        result: game.result.pdn(),
        moves: game.moves.iter().map(|mv| mv.to_string()).collect(),
        boards,
        fens,
    }
}

/// The pieces of `position` as the page draws them.
pub fn board(position: &Position) -> Vec<Piece> {
    Square::all()
        .filter_map(|sq| {
            let (color, king) = position.piece_at(sq)?;
            let piece = match (color, king) {
                (Color::Black, false) => "bm",
                (Color::Black, true) => "bk",
                (Color::White, false) => "wm",
                (Color::White, true) => "wk",
            };
            Some(Piece { square: sq.pdn(), piece })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ply_of_a_full_board_fits_its_share_of_a_replay() {
        // 24 pieces, kings among them (a longer FEN), and a long move text.
        let position = Position::from_fen(
            "W:WK21,22,23,24,25,26,27,28,29,30,31,32:BK1,2,3,4,5,6,7,8,9,10,11,12",
        )
        .unwrap();
        let pieces = board(&position);
        assert_eq!(pieces.len(), 24);
        let fen = position.to_fen();
        let mv = "32x23x14x5x12x19x26x17x10x1".to_string();
        let text = serde_json::to_string(&(&pieces, &fen, &mv)).unwrap().len();
        let held = std::mem::size_of_val(pieces.as_slice()) + fen.len() + mv.len() + 3 * 24;
        assert!(
            (text + held) as u64 <= PLY_BYTES,
            "a ply holds {held} bytes and writes {text}, more than {PLY_BYTES}"
        );
    }
}
