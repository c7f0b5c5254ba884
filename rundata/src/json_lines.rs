//! JSON-lines record files (the run's logs, a match's `--record` file): typed records appended a
//! batch per write, read back in file order with each line that is not a record set aside,
//! naming its file and line, so that one damaged line never hides the others.

use crate::{append_lines, RunDirError};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The records of a JSON-lines file, and the lines that were not records.
#[derive(Debug)]
pub struct JsonLines<T> {
    /// The records, in file order.
    pub records: Vec<T>,
    /// One entry per line that was not a record (blank lines are not counted).
    pub skipped: Vec<BadLine>,
}

/// A line of a JSON-lines file that is not a record of the expected kind.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}: not a record of this file", path.display())]
pub struct BadLine {
    /// The file.
    pub path: PathBuf,
    /// The line, from 1.
    pub line: usize,
    /// What the JSON reader said.
    pub source: serde_json::Error,
}

/// `records` as JSON lines, each ending in a newline.
pub fn to_json_lines<T: Serialize>(records: &[T]) -> String {
    let mut text = String::new();
    for record in records {
        text.push_str(&serde_json::to_string(record).expect("a record serialises"));
        text.push('\n');
    }
    text
}

/// Appends `records` to the file at `path` in one write (see [`append_lines`]), creating the file
/// and its folder when missing.
pub fn append_json_lines<T: Serialize>(path: &Path, records: &[T]) -> Result<(), RunDirError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|source| RunDirError::Io { path: dir.to_path_buf(), source })?;
    }
    append_lines(path, &to_json_lines(records))
}

/// Reads the records of the file at `path`; a missing file has none. An error only when the file
/// cannot be read as text.
pub fn read_json_lines<T: DeserializeOwned>(path: &Path) -> Result<JsonLines<T>, RunDirError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(RunDirError::Io { path: path.to_path_buf(), source }),
    };
    let mut read = JsonLines { records: Vec::new(), skipped: Vec::new() };
    for (i, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        match serde_json::from_str(line) {
            Ok(record) => read.records.push(record),
            Err(source) => {
                read.skipped.push(BadLine { path: path.to_path_buf(), line: i + 1, source })
            }
        }
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_a_damaged_line_is_skipped_by_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs/numbers.jsonl");
        append_json_lines(&path, &[1u32, 2]).unwrap();
        std::fs::write(&path, std::fs::read_to_string(&path).unwrap() + "{\"cut sh").unwrap();
        append_json_lines(&path, &[3u32]).unwrap();
        let read: JsonLines<u32> = read_json_lines(&path).unwrap();
        assert_eq!(read.records, [1, 2, 3]);
        assert_eq!(read.skipped.len(), 1);
        assert_eq!(read.skipped[0].line, 3);
        assert!(read.skipped[0].to_string().contains("numbers.jsonl:3:"), "{}", read.skipped[0]);
        let missing: JsonLines<u32> = read_json_lines(&dir.path().join("none.jsonl")).unwrap();
        assert!(missing.records.is_empty() && missing.skipped.is_empty());
    }
}
