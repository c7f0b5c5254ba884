//! Atomic file replacement: every file checkers-zero writes (run files, checkpoints, exports,
//! endgame tables) goes through [`replace_atomic`], so that a crash leaves either the old file or
//! the complete new one, never half of one.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A failed atomic write: the file being replaced (not the temporary one) and what the
/// operating system said.
#[derive(Debug, thiserror::Error)]
#[error("{path}")]
pub struct WriteError {
    /// The file being replaced.
    pub path: PathBuf,
    /// What the operating system said.
    #[source]
    pub source: io::Error,
}

/// Writes `bytes` to `path` so that a crash leaves either the old file or the complete new one
/// (see [`replace_atomic`]). Errors name `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    replace_atomic(path, |tmp| {
        fs::write(tmp, bytes).map_err(|source| WriteError { path: path.to_path_buf(), source })
    })
}

/// Replaces `path` atomically with what `write` puts in the temporary file it is given (in the
/// same folder, named `.NAME.PID-N.tmp`, see [`temporary_owner`]): fsync, rename, fsync of the folder. A reader sees the old
/// file or the new one, never half of one; a failed write leaves the old file and removes the
/// temporary one. Errors name `path`, not the temporary file.
pub fn replace_atomic<E: From<WriteError>>(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), E> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let io = |source| E::from(WriteError { path: path.to_path_buf(), source });
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| io(io::Error::other("not a file name")))?;
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{}.{}-{unique}.tmp", name.to_string_lossy(), std::process::id()));
    let result = write(&tmp)
        .and_then(|()| fs::File::open(&tmp).and_then(|f| f.sync_all()).map_err(io))
        .and_then(|()| fs::rename(&tmp, path).map_err(io));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result?;
    // Make the rename itself durable; not every platform lets a folder be opened and synced.
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The process id in the name of a temporary file that [`replace_atomic`] makes
/// (`.NAME.PID-N.tmp`, or `.NAME.PID.tmp` as older versions named them), or `None` for any other
/// name: a leftover of a process that is gone can be removed.
pub fn temporary_owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (_, pid_and_counter) = rest.rsplit_once('.')?;
    let pid = match pid_and_counter.split_once('-') {
        Some((pid, counter)) => counter.parse::<u64>().ok().map(|_| pid)?,
        None => pid_and_counter,
    };
    pid.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_replaces_the_file_and_leaves_no_temporary_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        write_atomic(&path, b"old").unwrap();
        let failed: Result<(), WriteError> = replace_atomic(&path, |tmp| {
            let _ = fs::write(tmp, b"half");
            Err(WriteError { path: path.clone(), source: io::Error::other("disk full") })
        });
        assert_eq!(failed.unwrap_err().path, path);
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "the temporary file is gone");
    }

    #[test]
    fn temporary_files_name_their_process() {
        assert_eq!(temporary_owner(".1m0k-0m1k.wdl.4242-7.tmp"), Some(4242));
        assert_eq!(temporary_owner(".best.json.17-0.tmp"), Some(17));
        assert_eq!(temporary_owner(".1m0k-0m1k.wdl.4242.tmp"), Some(4242), "an older name");
        assert_eq!(temporary_owner("1m0k-0m1k.wdl"), None);
        assert_eq!(temporary_owner(".a.x-y.tmp"), None);
    }
}
