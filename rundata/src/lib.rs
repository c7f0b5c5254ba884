//! A run's data, with no heavy dependency (no tch): the run directory, where every stage of a run
//! reads and writes, the best-net pointer, atomic writes and append-only logs.
//!
//! ```text
//! RUN/config.toml     the resolved config, version and git hash
//! RUN/best/           the best-net pointers, one per generation (gen-000003.json), each
//!                     created once and never replaced; the newest is the best net
//! RUN/best.json       the single pointer of the old layout: still read, no longer written
//! RUN/nets/           candidate nets written by the trainer
//! RUN/train/          the trainer's own state (net, optimizer, step) for resuming
//! RUN/train/egdb_accuracy.jsonl  with endgame tables: the value head measured on them, per checkpoint
//! RUN/shards/         trajectory shards from self-play
//! RUN/games/          self-play and match games as PDN, game results as JSON lines
//!                     (results.jsonl; on S3 one object per batch under games/results/)
//! RUN/gates.jsonl     one record per gate decision (on S3: one object each under gates/)
//! RUN/eval.jsonl      one record per evaluation against a fixed opponent (on S3: under eval/)
//! RUN/tb/             TensorBoard event files
//! ```
//!
//! [`Store`] holds the same run in a local folder or in S3-compatible object storage, with the
//! best-net pointer as one immutable object per generation (`RUN/best/gen-000003.json`) on both.
//! [`CachedRun`] is a run as one process sees it: its store and the local folder it works in;
//! [`Uploader`] sends finished files from that folder to the store, keeping them while it cannot.
//!
//! ```
//! use rundata::{BestNet, Promotion, RunDir};
//! use std::path::PathBuf;
//!
//! let dir = tempfile::tempdir()?;
//! let run = RunDir::create(dir.path().join("run"))?;
//! assert_eq!(run.best()?, None, "a new run has no best net yet");
//!
//! // One pointer per generation, each created only if absent: of two evaluators that promote a
//! // net for the same generation, exactly one wins.
//! let net = |step| BestNet {
//!     checkpoint: PathBuf::from(format!("nets/step-{step:010}.safetensors")),
//!     step,
//!     generation: 1,
//!     promoted_at: 0,
//!     promoted_by: None,
//! };
//! assert!(matches!(run.promote(&net(200))?, Promotion::Promoted(_)));
//! assert!(matches!(run.promote(&net(300))?, Promotion::AlreadyTaken { .. }));
//! assert_eq!(run.best()?.map(|b| b.step), Some(200));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod cached;
mod json_lines;
pub mod layout;
mod log;
mod outbox;
mod store;

pub use cached::{read_for_upload, CachedRun, MAX_UPLOAD_BYTES};
pub use json_lines::{
    append_json_lines, read_json_lines, to_json_lines, warn_skipped, BadLine, Damage, JsonLines,
    MAX_LOG_BYTES,
};
pub use log::Log;
pub use outbox::Uploader;
pub use store::{Created, Problem, Promotion, Store, StoreError, MAX_OBJECT_BYTES};

use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use support::WriteError;

/// The largest `progress.json` read (`run` writes one under 100 bytes); a bigger one, or one that
/// is not a regular file, is refused by name.
pub const MAX_PROGRESS_BYTES: u64 = 1 << 20;

/// Errors reading or writing the run directory, naming the path.
#[derive(Debug, thiserror::Error)]
pub enum RunDirError {
    /// Reading or writing a file or folder of the run failed.
    #[error("{path}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// A file of the run that was not read: not a regular file, too big, or unreadable.
    #[error("{path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why (see `support::read_capped`).
        source: support::ReadError,
    },
    /// The run's store (where the best-net pointers live, and an S3 run's files) failed (boxed:
    /// it is much larger than the other variants).
    #[error(transparent)]
    Store(Box<StoreError>),
    /// A file the run should hold is not in its store.
    #[error("{location}: {key} does not exist")]
    Missing {
        /// The store's location.
        location: String,
        /// The missing key.
        key: String,
    },
}

/// The best net of a run, as recorded in its pointer (`RUN/best/gen-NNNNNN.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BestNet {
    /// The checkpoint file, relative to the run directory.
    pub checkpoint: PathBuf,
    /// Training step of that checkpoint.
    pub step: u64,
    /// How many promotions led here (0 for the first net of the run).
    pub generation: u32,
    /// Seconds since the Unix epoch when it was promoted.
    pub promoted_at: u64,
    /// The process that promoted it ([`support::process_token`]), which tells a retried promotion
    /// from a rival's for the same net in the same second; absent in older pointers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promoted_by: Option<String>,
}

/// A run directory on disk.
#[derive(Clone, Debug)]
pub struct RunDir {
    root: PathBuf,
}

impl RunDir {
    /// Opens (and creates, with its sub-folders) the run directory at `root`.
    pub fn create(root: impl Into<PathBuf>) -> Result<RunDir, RunDirError> {
        let run = RunDir { root: root.into() };
        if run.root.exists() && !run.root.is_dir() {
            return Err(RunDirError::Io {
                path: run.root,
                source: io::Error::other("not a directory"),
            });
        }
        for dir in [
            run.root.clone(),
            run.nets_dir(),
            run.train_dir(),
            run.shards_dir(),
            run.games_dir(),
            run.tb_dir(),
        ] {
            fs::create_dir_all(&dir)
                .map_err(|source| RunDirError::Io { path: dir.clone(), source })?;
        }
        Ok(run)
    }

    /// A run directory that must already exist (for readers such as players and the ladder).
    pub fn existing(root: impl Into<PathBuf>) -> Result<RunDir, RunDirError> {
        let root = root.into();
        match fs::metadata(&root) {
            Ok(m) if m.is_dir() => Ok(RunDir { root }),
            Ok(_) => {
                Err(RunDirError::Io { path: root, source: io::Error::other("not a directory") })
            }
            Err(source) => Err(RunDirError::Io { path: root, source }),
        }
    }

    /// The run directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The first thing a run writes that the folder holds (a net, a shard, a training state, a
    /// best-net pointer, a log), if any: a folder holding one but no config is a damaged run, not a
    /// new one.
    pub fn run_content(&self) -> Option<PathBuf> {
        let in_folder =
            |dir: PathBuf| fs::read_dir(&dir).ok()?.filter_map(Result::ok).map(|e| e.path()).next();
        [
            self.nets_dir(),
            self.shards_dir(),
            self.train_dir(),
            self.root.join(layout::BEST_POINTERS),
        ]
        .into_iter()
        .find_map(in_folder)
        .or_else(|| {
            [self.best_file(), self.gates_file(), self.results_file()]
                .into_iter()
                .find(|file| file.exists())
        })
    }

    /// `RUN/config.toml`: the resolved config, version and git hash.
    pub fn config_file(&self) -> PathBuf {
        self.root.join(layout::CONFIG)
    }

    /// `RUN/best.json`: the best-net pointer of the old layout, still read (see [`RunDir::best`]).
    pub fn best_file(&self) -> PathBuf {
        self.root.join(layout::LEGACY_BEST)
    }

    /// `RUN/nets/`: candidate nets written by the trainer.
    pub fn nets_dir(&self) -> PathBuf {
        self.root.join(layout::NETS)
    }

    /// `RUN/train/`: the trainer's state for resuming.
    pub fn train_dir(&self) -> PathBuf {
        self.root.join(layout::TRAIN)
    }

    /// `RUN/shards/`: trajectory shards from self-play.
    pub fn shards_dir(&self) -> PathBuf {
        self.root.join(layout::SHARDS)
    }

    /// `RUN/games/`: games as PDN and game results as JSON lines.
    pub fn games_dir(&self) -> PathBuf {
        self.root.join(layout::GAMES)
    }

    /// `RUN/gates.jsonl`: one record per gate decision.
    pub fn gates_file(&self) -> PathBuf {
        self.root.join(layout::GATES_LOG)
    }

    /// `RUN/tb/`: TensorBoard event files.
    pub fn tb_dir(&self) -> PathBuf {
        self.root.join(layout::TB)
    }

    /// `RUN/games/results.jsonl`: one record per game of a gate, an evaluation or a match.
    pub fn results_file(&self) -> PathBuf {
        self.root.join(layout::RESULTS_LOG)
    }

    /// `RUN/progress.json`: the budget spent so far.
    pub fn progress_file(&self) -> PathBuf {
        self.root.join(layout::PROGRESS)
    }

    /// The bytes of `RUN/progress.json`, refused when it is not a regular file or is bigger than
    /// [`MAX_PROGRESS_BYTES`] (or the limit `CHECKERS_ZERO_MAX_FILE_MB` sets).
    pub fn read_progress(&self) -> Result<Vec<u8>, support::ReadError> {
        support::read_capped(&self.progress_file(), MAX_PROGRESS_BYTES, "a progress file")
    }

    /// The best net, or `None` when the run has none yet: the newest per-generation pointer, else
    /// the old layout's `best.json` (see [`Store::best`]).
    pub fn best(&self) -> Result<Option<BestNet>, RunDirError> {
        Ok(self.store()?.best()?)
    }

    /// The absolute path of the best net's checkpoint, or `None` when the run has none yet.
    pub fn best_checkpoint(&self) -> Result<Option<PathBuf>, RunDirError> {
        Ok(self.best()?.map(|best| self.root.join(best.checkpoint)))
    }

    /// Makes `best` the best net for its generation unless another net was promoted for it
    /// first (see [`Store::promote`]): the same scheme as an S3 run's.
    pub fn promote(&self, best: &BestNet) -> Result<Promotion, RunDirError> {
        Ok(self.store()?.promote(best)?)
    }

    /// The run directory as a store.
    fn store(&self) -> Result<Store, RunDirError> {
        let location = self.root.to_str().ok_or_else(|| RunDirError::Io {
            path: self.root.clone(),
            source: io::Error::other("not a UTF-8 path"),
        })?;
        Ok(Store::open(location)?)
    }
}

impl From<StoreError> for RunDirError {
    fn from(error: StoreError) -> RunDirError {
        RunDirError::Store(Box::new(error))
    }
}

impl From<WriteError> for RunDirError {
    fn from(error: WriteError) -> RunDirError {
        RunDirError::Io { path: error.path, source: error.source }
    }
}

/// Appends `text` (whole lines, each ending in a newline) to `path` in one write, and makes it
/// durable. A last line cut short by a crash is closed first, so that it cannot swallow the first
/// new line: readers skip the damaged line alone.
pub fn append_lines(path: &Path, text: &str) -> Result<(), RunDirError> {
    let io_err = |source| RunDirError::Io { path: path.to_path_buf(), source };
    let mut file =
        fs::OpenOptions::new().create(true).read(true).append(true).open(path).map_err(io_err)?;
    let mut bytes = Vec::with_capacity(text.len() + 1);
    if file.metadata().map_err(io_err)?.len() > 0 {
        let mut last = [0u8];
        file.seek(SeekFrom::End(-1)).and_then(|_| file.read_exact(&mut last)).map_err(io_err)?;
        if last[0] != b'\n' {
            bytes.push(b'\n');
        }
    }
    bytes.extend_from_slice(text.as_bytes());
    file.write_all(&bytes).and_then(|()| file.sync_all()).map_err(io_err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_pointer_round_trips_and_starts_empty() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::create(dir.path().join("run")).unwrap();
        assert_eq!(run.best().unwrap(), None);
        let best = BestNet {
            checkpoint: "nets/step-000100.safetensors".into(),
            step: 100,
            generation: 1,
            promoted_at: 5,
            promoted_by: Some(support::process_token()),
        };
        assert_eq!(run.promote(&best).unwrap(), Promotion::Promoted(best.clone()));
        assert_eq!(run.best().unwrap(), Some(best.clone()));
        // The same process promoting the same net again later (a retry): still its promotion;
        // another process's: taken.
        let later = BestNet { promoted_at: 6, ..best.clone() };
        assert_eq!(run.promote(&later).unwrap(), Promotion::Promoted(best.clone()));
        let rival = BestNet { promoted_by: Some("another".into()), ..later };
        assert_eq!(run.promote(&rival).unwrap(), Promotion::AlreadyTaken { by: best.clone() });
        assert!(run.root().join("best/gen-000001.json").is_file());
        assert!(!run.best_file().exists(), "best.json is no longer written");
        assert!(run.best_checkpoint().unwrap().unwrap().ends_with("nets/step-000100.safetensors"));
    }

    #[test]
    fn damaged_pointer_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::create(dir.path()).unwrap();
        fs::write(run.best_file(), "{not json").unwrap();
        let err = run.best().unwrap_err().to_string();
        assert!(err.contains("best.json"), "{err}");
    }

    /// A pointer naming `../../etc/passwd` was loaded as the run's best net.
    #[test]
    fn a_pointer_whose_checkpoint_leaves_the_run_was_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::create(dir.path()).unwrap();
        let good = BestNet {
            checkpoint: "nets/step-000100.safetensors".into(),
            step: 100,
            generation: 0,
            promoted_at: 5,
            promoted_by: None,
        };
        run.promote(&good).unwrap();
        for planted in ["../../etc/passwd", "/etc/passwd", "nets/../../x", ""] {
            let bad = BestNet { checkpoint: planted.into(), generation: 1, ..good.clone() };
            fs::write(dir.path().join("best/gen-000001.json"), serde_json::to_vec(&bad).unwrap())
                .unwrap();
            assert_eq!(run.best().unwrap(), Some(good.clone()), "{planted}: passed over");
            fs::write(run.best_file(), serde_json::to_vec(&bad).unwrap()).unwrap();
            fs::remove_dir_all(dir.path().join("best")).unwrap();
            let err = run.best().unwrap_err().to_string();
            assert!(err.contains("not a path inside the run folder"), "{planted}: {err}");
            fs::create_dir(dir.path().join("best")).unwrap();
            run.promote(&good).unwrap();
            fs::remove_file(run.best_file()).unwrap();
        }
    }

    #[test]
    fn a_line_cut_by_a_crash_does_not_swallow_the_next_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gates.jsonl");
        append_lines(&path, "{\"a\":1}\n").unwrap();
        fs::write(&path, format!("{}{{\"cut", fs::read_to_string(&path).unwrap())).unwrap();
        append_lines(&path, "{\"b\":2}\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"a\":1}\n{\"cut\n{\"b\":2}\n");
    }
}
