//! The run's record logs (gates, results, evaluations) as typed records: appended as JSON lines
//! (on S3 one object per batch, see `rundata::Log`), read back oldest first with a damaged line
//! reported and skipped (see `rundata::read_json_lines`).

use anyhow::Result;
use rundata::{read_json_lines, to_json_lines, CachedRun, Log};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Appends `records` to the run's `log` as JSON lines.
pub fn append_records<T: Serialize>(run: &CachedRun, log: Log, records: &[T]) -> Result<()> {
    Ok(run.append(log, &to_json_lines(records))?)
}

/// Every record of the run's `log`, oldest first (the store's copy brought into the cache first);
/// a line that is not `what` (e.g. "a gate record") is reported and skipped.
pub fn read_records<T: DeserializeOwned>(run: &CachedRun, log: Log, what: &str) -> Result<Vec<T>> {
    let read = read_json_lines(&run.sync(log)?)?;
    for bad in &read.skipped {
        eprintln!(
            "warning: {} line {}: not {what} ({}); skipped",
            bad.path.display(),
            bad.line,
            bad.source
        );
    }
    Ok(read.records)
}
