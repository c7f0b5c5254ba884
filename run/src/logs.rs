//! The run's record logs (gates, results, evaluations) as typed records: appended as JSON lines
//! (on S3 one object per batch, see `rundata::Log`), read back oldest first with a damaged line
//! skipped and warned of once per process (see `rundata::read_json_lines`).

use anyhow::Result;
use rundata::{read_json_lines, to_json_lines, CachedRun, Log};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Appends `records` to the run's `log` as JSON lines.
pub fn append_records<T: Serialize>(run: &CachedRun, log: Log, records: &[T]) -> Result<()> {
    Ok(run.append(log, &to_json_lines(records))?)
}

/// Every record of the run's `log`, oldest first (the store's copy brought into the cache first);
/// a line that is not a record is skipped, with a warning the first time this process reads it.
pub fn read_records<T: DeserializeOwned>(run: &CachedRun, log: Log) -> Result<Vec<T>> {
    Ok(read_json_lines(&run.sync(log)?)?.warned())
}
