//! Reading what comes from outside under a ceiling: a file read whole only when it is a regular
//! file (a FIFO or a device such as `/dev/zero` would block or never end) no bigger than its kind's
//! limit, and lines read one at a time no longer than a limit, whatever bytes they hold.

use std::io::{BufRead, Read};
use std::path::Path;

/// The environment variable that raises (or lowers) every file size limit, in MiB.
pub const MAX_FILE_MB_VAR: &str = "CHECKERS_ZERO_MAX_FILE_MB";

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The operating system's error (a missing file among them).
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Not a regular file: reading it could block forever or never end.
    #[error("not a regular file (a {kind}); only regular files are read")]
    NotRegular {
        /// What it is instead: `folder`, `FIFO`, `device`, `socket`.
        kind: &'static str,
    },
    /// Bigger than its kind's limit.
    #[error("{bytes} bytes is more than the {limit}-byte limit of {what} (raise it with {MAX_FILE_MB_VAR}=MIB)")]
    TooBig {
        /// The file's size, or what was read of it before it passed the limit.
        bytes: u64,
        /// The limit in bytes.
        limit: u64,
        /// What kind of file, e.g. `a config`.
        what: &'static str,
    },
}

impl ReadError {
    /// Whether the file is missing.
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

/// `default` bytes, or the limit set in MiB by [`MAX_FILE_MB_VAR`].
pub fn file_limit(default: u64) -> u64 {
    std::env::var(MAX_FILE_MB_VAR)
        .ok()
        .and_then(|mb| mb.trim().parse::<u64>().ok())
        .map_or(default, |mb| mb.saturating_mul(1 << 20))
}

/// Refuses `path` unless it is a regular file (symbolic links followed).
pub fn check_regular(path: &Path) -> Result<std::fs::Metadata, ReadError> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        return Ok(meta);
    }
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    let kind = if kind.is_dir() {
        "folder"
    } else if kind.is_fifo() {
        "FIFO"
    } else if kind.is_socket() {
        "socket"
    } else {
        "device"
    };
    Err(ReadError::NotRegular { kind })
}

/// The bytes of the regular file at `path`, refused when bigger than `default_limit` (or the
/// limit [`MAX_FILE_MB_VAR`] sets); `what` names the kind in the error (`a config`). A file that
/// grows while read is cut at the limit and refused too.
pub fn read_capped(
    path: &Path,
    default_limit: u64,
    what: &'static str,
) -> Result<Vec<u8>, ReadError> {
    let limit = file_limit(default_limit);
    let meta = check_regular(path)?;
    if meta.len() > limit {
        return Err(ReadError::TooBig { bytes: meta.len(), limit, what });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)?.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooBig { bytes: bytes.len() as u64, limit, what });
    }
    Ok(bytes)
}

/// [`read_capped`] as UTF-8 text (see [`utf8_text`]).
pub fn read_text_capped(
    path: &Path,
    default_limit: u64,
    what: &'static str,
) -> Result<String, ReadError> {
    utf8_text(read_capped(path, default_limit, what)?)
}

/// A whole file's bytes as text, or the error [`read_text_capped`] gives for bytes that are not
/// UTF-8 (the fuzz targets feed it any bytes, as a file could hold them).
pub fn utf8_text(bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text: {}", e.utf8_error()),
        )
        .into()
    })
}

/// A line that could not be taken as text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadLine {
    /// Longer than the limit; the rest of it was read and dropped.
    #[error("a line of {bytes} bytes, more than the {limit}-byte limit")]
    TooLong {
        /// The line's length, its end included.
        bytes: u64,
        /// The limit.
        limit: usize,
    },
    /// Bytes that are not UTF-8 text.
    #[error("a line that is not UTF-8 text (byte {at})")]
    NotUtf8 {
        /// Where the first bad byte is, from 0.
        at: usize,
    },
}

/// The next line of `input` without its `\n` or `\r\n`: `None` at the end, the text, or why the
/// line is not text. Never holds more than `max_bytes` of a line.
pub fn read_line_capped(
    input: &mut impl BufRead,
    max_bytes: usize,
) -> std::io::Result<Option<Result<String, BadLine>>> {
    let mut line = Vec::new();
    let mut total = 0u64;
    let mut ended = false;
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        let (part, used) = match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => {
                ended = true;
                (&buffer[..at], at + 1)
            }
            None => (buffer, buffer.len()),
        };
        total += part.len() as u64;
        let room = (max_bytes + 1).saturating_sub(line.len());
        line.extend_from_slice(&part[..part.len().min(room)]);
        input.consume(used);
        if ended {
            break;
        }
    }
    if !ended && total == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\r') && total <= max_bytes as u64 {
        line.pop();
        total -= 1;
    }
    if total > max_bytes as u64 {
        return Ok(Some(Err(BadLine::TooLong { bytes: total, limit: max_bytes })));
    }
    Ok(Some(
        String::from_utf8(line).map_err(|e| BadLine::NotUtf8 { at: e.utf8_error().valid_up_to() }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn lines(bytes: &[u8], max: usize) -> Vec<Result<String, BadLine>> {
        let mut input = Cursor::new(bytes.to_vec());
        std::iter::from_fn(|| read_line_capped(&mut input, max).unwrap()).collect()
    }

    #[test]
    fn lines_are_read_without_their_ends_and_bad_ones_said() {
        assert_eq!(
            lines(b"a\r\nbc\n\nd", 4),
            [Ok("a".into()), Ok("bc".into()), Ok("".into()), Ok("d".into())]
        );
        assert_eq!(
            lines(b"ok\nr\xc3\n123456\nend\n", 4),
            [
                Ok("ok".into()),
                Err(BadLine::NotUtf8 { at: 1 }),
                Err(BadLine::TooLong { bytes: 6, limit: 4 }),
                Ok("end".into())
            ]
        );
        assert!(lines(b"", 4).is_empty());
    }

    #[test]
    fn only_regular_files_are_read_and_only_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_capped(dir.path(), 10, "a config").unwrap_err();
        assert!(err.to_string().contains("not a regular file (a folder)"), "{err}");
        let err = read_capped(Path::new("/dev/zero"), 10, "a config").unwrap_err();
        assert!(err.to_string().contains("(a device)"), "{err}");
        let file = dir.path().join("big");
        std::fs::write(&file, [b'x'; 11]).unwrap();
        let err = read_capped(&file, 10, "a config").unwrap_err();
        assert_eq!(
            err.to_string(),
            "11 bytes is more than the 10-byte limit of a config (raise it with CHECKERS_ZERO_MAX_FILE_MB=MIB)"
        );
        assert_eq!(read_capped(&file, 11, "a config").unwrap().len(), 11);
        assert!(read_capped(&dir.path().join("none"), 10, "a config").unwrap_err().is_not_found());
    }
}
