//! TensorBoard event files (readable by TensorBoard's own reader): a small writer that returns I/O
//! errors instead of panicking, and the figures of each stage under fixed tags.
//!
//! Each stage logs into its own folder under `RUN/tb/` (`train`, `selfplay`, `eval`), which
//! TensorBoard shows as runs. Tags:
//! - train: `loss/{policy,value,moves_left,total}`, `policy/entropy`, `value/accuracy`,
//!   `train/{learning_rate,samples_per_s,grad_norm,skipped_steps}`, `replay/{window,seen}`, and at
//!   each checkpoint of a run with endgame tables `egdb/{value_accuracy,value_mae}`;
//! - selfplay: `selfplay/{games_per_s,positions_per_s,game_length,win_rate,draw_rate,loss_rate,resign_false_positives}`;
//! - eval: `eval/{score,elo,wins,draws,losses,promoted}`.

use crate::error::TrainError;
use protobuf::Message;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use tensorboard_proto::event::Event;
use tensorboard_rs::record_writer::RecordWriter;
use tensorboard_rs::summary::scalar;

/// One event file, appended to and flushed by the caller.
pub struct TbLogger {
    path: PathBuf,
    writer: RecordWriter<BufWriter<File>>,
}

impl TbLogger {
    /// A new event file in `dir` (created if needed). Never reuses another writer's file.
    pub fn create(dir: &Path) -> Result<TbLogger, TrainError> {
        std::fs::create_dir_all(dir).map_err(|e| TrainError::io(dir, e))?;
        let now = support::since_epoch();
        let (file, path) = (0..)
            .find_map(|seq| {
                let path = dir.join(format!(
                    "events.out.tfevents.{:010}.checkers-zero.{}.{seq}",
                    now.as_secs(),
                    std::process::id()
                ));
                match OpenOptions::new().write(true).create_new(true).open(&path) {
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => None,
                    result => Some(
                        result.map(|f| (f, path.clone())).map_err(|e| TrainError::io(&path, e)),
                    ),
                }
            })
            .expect("an unused sequence number exists")?;
        let mut logger = TbLogger { path, writer: RecordWriter::new(BufWriter::new(file)) };
        let mut version = Event::new();
        version.set_wall_time(now.as_secs_f64());
        version.set_file_version("brain.Event:2".to_string());
        logger.write(&version)?;
        logger.flush()?;
        Ok(logger)
    }

    /// The event file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one scalar point (buffered until [`TbLogger::flush`]).
    pub fn scalar(&mut self, tag: &str, value: f32, step: u64) -> Result<(), TrainError> {
        let mut event = Event::new();
        event.set_wall_time(support::since_epoch().as_secs_f64());
        event.set_step(step as i64);
        event.set_summary(scalar(tag, value));
        self.write(&event)
    }

    /// Appends several scalars at one step and flushes them to the file.
    pub fn scalars(&mut self, step: u64, points: &[(&str, f32)]) -> Result<(), TrainError> {
        for &(tag, value) in points {
            self.scalar(tag, value, step)?;
        }
        self.flush()
    }

    /// Writes buffered points to the file.
    pub fn flush(&mut self) -> Result<(), TrainError> {
        self.writer.flush().map_err(|e| TrainError::io(&self.path, e))
    }

    fn write(&mut self, event: &Event) -> Result<(), TrainError> {
        let bytes =
            event.write_to_bytes().map_err(|e| TrainError::io(&self.path, io::Error::other(e)))?;
        self.writer.write(&bytes).map_err(|e| TrainError::io(&self.path, e))
    }

    /// Self-play figures at `step` (e.g. games played so far).
    pub fn selfplay(&mut self, step: u64, f: &SelfPlayFigures) -> Result<(), TrainError> {
        let games = (f.wins + f.draws + f.losses).max(1) as f32;
        let mut points = vec![
            ("selfplay/games_per_s", f.games_per_s),
            ("selfplay/positions_per_s", f.positions_per_s),
            ("selfplay/game_length", f.mean_game_length),
            ("selfplay/win_rate", f.wins as f32 / games),
            ("selfplay/draw_rate", f.draws as f32 / games),
            ("selfplay/loss_rate", f.losses as f32 / games),
        ];
        if let Some(rate) = f.resign_false_positive_rate {
            points.push(("selfplay/resign_false_positives", rate));
        }
        if f.rescored > 0 {
            points.push(("selfplay/rescored_share", f.rescored as f32 / games));
        }
        self.scalars(step, &points)
    }

    /// An evaluation (candidate against the best net) at `step` (the candidate's training step).
    pub fn evaluation(&mut self, step: u64, f: &EvalFigures) -> Result<(), TrainError> {
        let games = (f.wins + f.draws + f.losses).max(1) as f32;
        self.scalars(
            step,
            &[
                ("eval/score", (f.wins as f32 + 0.5 * f.draws as f32) / games),
                ("eval/elo", f.elo),
                ("eval/wins", f.wins as f32),
                ("eval/draws", f.draws as f32),
                ("eval/losses", f.losses as f32),
                ("eval/promoted", f32::from(u8::from(f.promoted))),
            ],
        )
    }
}

/// Self-play figures over a reporting interval. W/D/L from the first player's (Black's) view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfPlayFigures {
    /// Games finished per second.
    pub games_per_s: f32,
    /// Positions played per second.
    pub positions_per_s: f32,
    /// Mean game length in plies.
    pub mean_game_length: f32,
    /// Games Black won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games White won.
    pub losses: u64,
    /// Among games played out after a resignation would have happened: the share the resigning
    /// side did not lose. `None` when none were played out.
    pub resign_false_positive_rate: Option<f32>,
    /// Games a result of which the endgame tables changed (`selfplay.rescore_egdb`).
    pub rescored: u64,
}

/// An evaluation match, from the candidate's view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EvalFigures {
    /// Games the candidate won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games the candidate lost.
    pub losses: u64,
    /// The candidate's Elo (of the run's ladder, or relative to the best net).
    pub elo: f32,
    /// Whether the candidate became the best net.
    pub promoted: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_loggers_in_one_folder_get_their_own_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = TbLogger::create(dir.path()).unwrap();
        let mut b = TbLogger::create(dir.path()).unwrap();
        assert_ne!(a.path(), b.path());
        a.scalars(1, &[("x", 1.0)]).unwrap();
        b.scalars(1, &[("x", 2.0)]).unwrap();
        let len = |p: &Path| std::fs::metadata(p).unwrap().len();
        assert_eq!(len(a.path()), len(b.path()));
        assert!(len(a.path()) > 0);
    }
}
