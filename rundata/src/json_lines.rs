//! JSON-lines record files (the run's logs, a match's `--record` file): typed records appended a
//! batch per write, read back in file order with each line that is not a record set aside,
//! naming its file and line, so that one damaged line (bytes that are not UTF-8, as a crash
//! cutting a line inside a character leaves, as well as JSON that is not a record) never hides
//! the others; each such line is warned of once per process.

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

impl<T> JsonLines<T> {
    /// The records, after a warning for each line set aside (see [`warn_skipped`]).
    pub fn warned(self) -> Vec<T> {
        warn_skipped(&self.skipped);
        self.records
    }
}

/// Warns on standard error of each of `skipped` (`warning: skipped PATH:LINE: not a record of
/// this file: WHY`), once per process and line: a log read again and again, as a run rereads its
/// logs, tells of a damaged line the first time only.
pub fn warn_skipped(skipped: &[BadLine]) {
    for bad in skipped {
        support::warn_once(&format!("skipped {}", support::one_line(bad)));
    }
}

/// A line of a JSON-lines file that is not a record of the expected kind.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}: not a record of this file", path.display())]
pub struct BadLine {
    /// The file.
    pub path: PathBuf,
    /// The line, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub source: Damage,
}

/// What is wrong with a line that is not a record.
#[derive(Debug, thiserror::Error)]
pub enum Damage {
    /// Bytes that are not UTF-8 text.
    #[error("not UTF-8 text (byte {at} of the line)")]
    NotText {
        /// The first bad byte, from 0.
        at: usize,
    },
    /// Text that is not a record.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// The largest record log read whole (about three million game results); a bigger one is refused
/// with the setting that raises the limit (`support::read_capped`).
pub const MAX_LOG_BYTES: u64 = 1 << 30;

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
/// cannot be read at all (not a regular file, bigger than [`MAX_LOG_BYTES`], unreadable); each
/// line that is not a record is set aside, whatever its bytes.
pub fn read_json_lines<T: DeserializeOwned>(path: &Path) -> Result<JsonLines<T>, RunDirError> {
    let bytes = match support::read_capped(path, MAX_LOG_BYTES, "a record log") {
        Ok(bytes) => bytes,
        Err(e) if e.is_not_found() => Vec::new(),
        Err(source) => return Err(RunDirError::Read { path: path.to_path_buf(), source }),
    };
    let mut read = JsonLines { records: Vec::new(), skipped: Vec::new() };
    let lines = bytes.split(|&b| b == b'\n').map(|line| line.strip_suffix(b"\r").unwrap_or(line));
    for (i, line) in lines.enumerate().filter(|(_, line)| !line.trim_ascii().is_empty()) {
        let record = std::str::from_utf8(line)
            .map_err(|e| Damage::NotText { at: e.valid_up_to() })
            .and_then(|text| Ok(serde_json::from_str(text)?));
        match record {
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

    /// A crash can cut a line inside a character (a player such as `mcts:réseau:8`): the reader
    /// refused the whole file, and `run`, `ladder` and `match --resume` stopped for good.
    #[test]
    fn a_line_cut_inside_a_character_was_refusing_the_whole_log() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        let cut = "\"mcts:réseau:8\"".as_bytes();
        let cut = &cut[..cut.iter().position(|&b| b >= 0x80).unwrap() + 1];
        let mut bytes = b"1\n".to_vec();
        bytes.extend_from_slice(cut);
        bytes.extend_from_slice(b"\n\xff\xfe\r\n2\r\n");
        std::fs::write(&path, bytes).unwrap();
        let read: JsonLines<u32> = read_json_lines(&path).unwrap();
        assert_eq!(read.records, [1, 2]);
        assert_eq!(read.skipped.iter().map(|b| b.line).collect::<Vec<_>>(), [2, 3]);
        assert!(
            read.skipped[0].source.to_string().contains("not UTF-8"),
            "{}",
            read.skipped[0].source
        );
    }

    #[test]
    fn a_log_that_is_not_a_regular_file_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let err = support::one_line(&read_json_lines::<u32>(dir.path()).unwrap_err());
        assert!(err.contains(&dir.path().display().to_string()) && err.contains("folder"), "{err}");
        let missing: JsonLines<u32> = read_json_lines(&dir.path().join("none.jsonl")).unwrap();
        assert!(missing.records.is_empty() && missing.skipped.is_empty());
    }
}
