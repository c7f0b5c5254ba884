//! The run's record logs (gates, game results, evaluations) with many writers. A local run
//! appends JSON lines to one file ([`crate::append_lines`]); an S3 object cannot be appended to,
//! so there each batch of records is an object of its own under the log's folder, created once
//! under a unique name, and no writer ever clobbers another. Readers read the cache's copy of the
//! log, which [`CachedRun::sync`] brings up to date from the store.

use crate::{append_lines, layout, CachedRun, RunDirError};
use std::path::PathBuf;
use support::unique_name;
use support::unix_millis;
use support::write_atomic;

/// One of the run's record logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Log {
    /// `gates.jsonl`, objects under `gates/`: one record per gate decision.
    Gates,
    /// `games/results.jsonl`, objects under `games/results/`: one record per game played by a
    /// gate, an evaluation or a match (the ladder's input).
    Results,
    /// `eval.jsonl`, objects under `eval/`: one record per net and fixed opponent.
    Evaluations,
}

impl Log {
    /// The log file of a local run, relative to the run folder.
    pub fn file(self) -> &'static str {
        match self {
            Log::Gates => layout::GATES_LOG,
            Log::Results => layout::RESULTS_LOG,
            Log::Evaluations => layout::EVALUATIONS_LOG,
        }
    }

    /// The folder of an S3 run's record objects.
    pub fn folder(self) -> &'static str {
        match self {
            Log::Gates => "gates",
            Log::Results => "games/results",
            Log::Evaluations => "eval",
        }
    }
}

impl CachedRun {
    /// Appends `text` (whole JSON lines) to `log`: to its file for a local run, as a new object
    /// for an S3 run (then also into the cache's copy).
    pub fn append(&self, log: Log, text: &str) -> Result<(), RunDirError> {
        if !self.is_remote() {
            return append_lines(&self.run().root().join(log.file()), text);
        }
        let key = format!("{}/{}", log.folder(), unique_name(unix_millis(), "jsonl"));
        self.store().create(&key, text.as_bytes())?;
        let path = self.run().root().join(&key);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|source| RunDirError::Io { path: dir.to_path_buf(), source })?;
        }
        write_atomic(&path, text.as_bytes())?;
        self.sync_view(log)
    }

    /// Brings the cache's copy of `log` up to date and returns it (the file itself for a local
    /// run): the store's log file of the old layout, if any, then every record object in name
    /// order, each downloaded once.
    pub fn sync(&self, log: Log) -> Result<PathBuf, RunDirError> {
        if self.is_remote() {
            self.download_new(log.folder())?;
            self.sync_view(log)?;
        }
        Ok(self.run().root().join(log.file()))
    }

    /// Rewrites the cache's copy of `log` from the store's log file and the cached objects.
    fn sync_view(&self, log: Log) -> Result<(), RunDirError> {
        // Bytes, not text: a line cut inside a character is the reader's to skip, and must not
        // stop the others from being copied.
        let mut text = self.store().get(log.file())?.unwrap_or_default();
        let dir = self.run().root().join(log.folder());
        let mut objects: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(source) => return Err(RunDirError::Io { path: dir, source }),
        };
        objects.retain(|p| p.extension().is_some_and(|e| e == "jsonl"));
        objects.sort();
        for path in objects {
            let part = support::read_capped(&path, crate::MAX_LOG_BYTES, "a record log")
                .map_err(|source| RunDirError::Read { path: path.clone(), source })?;
            if !text.is_empty() && !text.ends_with(b"\n") {
                text.push(b'\n');
            }
            text.extend_from_slice(&part);
        }
        write_atomic(&self.run().root().join(log.file()), &text)?;
        Ok(())
    }
}
