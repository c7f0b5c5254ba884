//! The run's record logs (gates, results, evaluations) as typed records: appended as JSON lines
//! (on S3 one object per batch, see `rundata::Log`), read back oldest first with a damaged line
//! reported and skipped.

use anyhow::{Context, Result};
use rundata::{CachedRun, Log};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Appends `records` to the run's `log` as JSON lines.
pub fn append_records<T: Serialize>(run: &CachedRun, log: Log, records: &[T]) -> Result<()> {
    let mut text = String::new();
    for record in records {
        text.push_str(&serde_json::to_string(record)?);
        text.push('\n');
    }
    Ok(run.append(log, &text)?)
}

/// Every record of the run's `log`, oldest first (the store's copy brought into the cache first);
/// a line that is not `what` (e.g. "a gate record") is reported and skipped.
pub fn read_records<T: DeserializeOwned>(run: &CachedRun, log: Log, what: &str) -> Result<Vec<T>> {
    let path = run.sync(log)?;
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        match serde_json::from_str(line) {
            Ok(record) => records.push(record),
            Err(e) => {
                eprintln!("warning: {} line {}: not {what} ({e}); skipped", path.display(), i + 1)
            }
        }
    }
    Ok(records)
}
