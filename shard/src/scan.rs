//! Listing a shard folder in order, and loading the shards not seen yet while reporting and
//! skipping damaged ones.

use crate::file::{read_shard, Shard};
use crate::ShardError;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The extension of complete shards (temporary files of writers in progress never carry it).
pub const SHARD_EXTENSION: &str = "shard";

/// The complete shards in `dir`, oldest first (names start with the creation time). A folder
/// that does not exist yet holds none.
pub fn list_shards(dir: &Path) -> Result<Vec<PathBuf>, ShardError> {
    let io_err = |source| ShardError::Io { path: dir.to_path_buf(), source };
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(e)),
    };
    let mut paths = Vec::new();
    for entry in entries {
        let path = entry.map_err(io_err)?.path();
        let hidden = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if !hidden && path.extension().is_some_and(|e| e == SHARD_EXTENSION) {
            paths.push(path);
        }
    }
    paths.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(paths)
}

/// What a scan found: the good shards in order, and the damaged ones (not loaded).
#[derive(Debug, Default)]
pub struct ScanReport {
    /// The shards read and checked, in file-name order (oldest first).
    pub shards: Vec<Shard>,
    /// One error per damaged shard, naming its file.
    pub damaged: Vec<ShardError>,
}

/// Reads the shards of `dir` for which `skip` says false, oldest first. A damaged shard goes
/// into the report, named; only a folder that cannot be listed is an error.
pub fn scan_shards(
    dir: &Path,
    mut skip: impl FnMut(&Path) -> bool,
) -> Result<ScanReport, ShardError> {
    let mut report = ScanReport::default();
    for path in list_shards(dir)?.into_iter().filter(|p| !skip(p)) {
        match read_shard(&path) {
            Ok(shard) => report.shards.push(shard),
            Err(err) => report.damaged.push(err),
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::Sample;
    use crate::{write_shard, ShardHeader};
    use draughts::{DrawRules, Game, Position};

    fn sample(tag: u16) -> Sample {
        Sample {
            observation: Game::new(Position::start(), DrawRules::default()).observation(),
            policy: vec![(9, 0.5), (10, 0.5)],
            search_value: 0.0,
            result: 0,
            plies_to_end: tag,
            full_search: true,
            reply_after: None,
        }
    }

    #[test]
    fn concurrent_writers_never_clobber_each_other() {
        let dir = tempfile::tempdir().unwrap();
        std::thread::scope(|s| {
            for writer in 0..8u64 {
                let dir = dir.path();
                s.spawn(move || {
                    for i in 0..40u16 {
                        write_shard(
                            dir,
                            &ShardHeader {
                                created_unix_ms: 1,
                                writer_id: writer,
                                generation: None,
                            },
                            &[sample(i)],
                        )
                        .unwrap();
                    }
                });
            }
        });
        let report = scan_shards(dir.path(), |_| false).unwrap();
        assert!(report.damaged.is_empty());
        assert_eq!(report.shards.len(), 320);
        for writer in 0..8 {
            let mut tags: Vec<u16> = report
                .shards
                .iter()
                .filter(|s| s.header.writer_id == writer)
                .map(|s| s.records.get(0).plies_to_end())
                .collect();
            tags.sort();
            assert_eq!(tags, (0..40).collect::<Vec<_>>());
        }
    }

    #[test]
    fn scan_reports_and_skips_damaged_shards_and_ignores_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let first = write_shard(dir.path(), &ShardHeader::now(1, None), &[sample(1)]).unwrap();
        let damaged = dir.path().join("0000000000000-1-bad.shard");
        fs::write(&damaged, b"CKZSHARD\x01\x00 cut short").unwrap();
        fs::write(dir.path().join(".0000000000001-1-x.shard.1.tmp"), b"half written").unwrap();
        fs::write(dir.path().join("notes.txt"), b"not a shard").unwrap();
        let second = write_shard(dir.path(), &ShardHeader::now(2, None), &[sample(2)]).unwrap();
        // Listed by name: two shards written in the same millisecond sort by their random tags.
        let mut written = [first.clone(), second.clone()];
        written.sort();
        assert_eq!(list_shards(dir.path()).unwrap(), [&[damaged.clone()][..], &written].concat());

        let report = scan_shards(dir.path(), |p| p == first).unwrap();
        assert_eq!(report.shards.iter().map(|s| s.path.clone()).collect::<Vec<_>>(), [second]);
        assert_eq!(report.damaged.len(), 1);
        assert!(report.damaged[0].to_string().contains("0000000000000-1-bad.shard"));
        assert!(list_shards(&dir.path().join("missing")).unwrap().is_empty());
    }
}
