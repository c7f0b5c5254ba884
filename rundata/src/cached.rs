//! A run as one process sees it: the store that holds the run (a local folder or
//! `s3://bucket/prefix`) and the local folder the process works in, its cache. For a local run
//! the cache is the run folder itself and nothing is copied; for an S3 run files are downloaded
//! into the cache (through a temporary file and a rename, so nothing half-written is read) and
//! finished files are uploaded from it.

use crate::{BestNet, Created, Promotion, RunDir, RunDirError, Store};
use std::path::{Path, PathBuf};
use support::write_atomic;

/// The largest file of a cache uploaded to the store (a net or a training state bigger than
/// the same limit is refused when loaded anyway).
pub const MAX_UPLOAD_BYTES: u64 = 1 << 30;

/// The bytes of the cache's file `path`, read to be uploaded: refused by name when it is not a
/// regular file or is bigger than [`MAX_UPLOAD_BYTES`] (or what `CHECKERS_ZERO_MAX_FILE_MB` sets).
pub fn read_for_upload(path: &Path) -> Result<Vec<u8>, RunDirError> {
    support::read_capped(path, MAX_UPLOAD_BYTES, "a file to upload")
        .map_err(|source| RunDirError::Read { path: path.to_path_buf(), source })
}

/// A run's store and this process's local folder for it.
#[derive(Debug)]
pub struct CachedRun {
    store: Store,
    cache: RunDir,
    location: String,
    remote: bool,
}

impl CachedRun {
    /// Opens the run at `location`, a folder or `s3://bucket/prefix` (for S3 configured by the
    /// AWS environment variables only, see [`Store`]). An S3 run works in `cache`, by default
    /// [`default_cache`]`(location, role)`; a local run works in its own folder and ignores
    /// `cache`. Sends no request.
    pub fn open(
        location: &str,
        cache: Option<&Path>,
        role: &str,
    ) -> Result<CachedRun, RunDirError> {
        let store = Store::open(location)?;
        let remote = location.starts_with("s3://");
        let cache = match (remote, cache) {
            (false, _) => RunDir::create(location)?,
            (true, Some(cache)) => RunDir::create(cache)?,
            (true, None) => RunDir::create(default_cache(location, role))?,
        };
        Ok(CachedRun { store, cache, location: location.to_string(), remote })
    }

    /// The local folder this process works in (the run folder itself for a local run).
    pub fn run(&self) -> &RunDir {
        &self.cache
    }

    /// The run's store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Where the run lives, as given (`s3://bucket/prefix` or a folder).
    pub fn location(&self) -> &str {
        &self.location
    }

    /// Whether the run lives in object storage, apart from the cache.
    pub fn is_remote(&self) -> bool {
        self.remote
    }

    /// The run's best net (see [`Store::best`]).
    pub fn best(&self) -> Result<Option<BestNet>, RunDirError> {
        Ok(self.store.best()?)
    }

    /// Promotes `best` for its generation, unless another net was first (see [`Store::promote`]).
    pub fn promote(&self, best: &BestNet) -> Result<Promotion, RunDirError> {
        Ok(self.store.promote(best)?)
    }

    /// The key of `path`, a file in the cache: its path relative to the cache, `/`-separated.
    pub fn key_of(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(self.cache.root()).ok()?;
        let parts: Option<Vec<&str>> = relative.iter().map(|p| p.to_str()).collect();
        Some(parts?.join("/"))
    }

    /// The cache's file for `key`, downloaded first when it is not there yet. Only for files
    /// that never change once written (shards, nets, log records).
    pub fn fetch(&self, key: &str) -> Result<PathBuf, RunDirError> {
        let path = self.cache.root().join(key);
        if !self.remote || path.is_file() {
            return Ok(path);
        }
        let missing =
            || RunDirError::Missing { location: self.location.clone(), key: key.to_string() };
        let bytes = self.store.get(key)?.ok_or_else(missing)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|source| RunDirError::Io { path: dir.to_path_buf(), source })?;
        }
        write_atomic(&path, &bytes)?;
        Ok(path)
    }

    /// Downloads the files under the store's folder `folder` that the cache lacks, oldest name
    /// first, and returns them. Nothing to do for a local run.
    pub fn download_new(&self, folder: &str) -> Result<Vec<PathBuf>, RunDirError> {
        if !self.remote {
            return Ok(Vec::new());
        }
        let missing: Vec<String> = self
            .store
            .list(folder)?
            .into_iter()
            .filter(|key| !self.cache.root().join(key).is_file())
            .collect();
        missing.iter().map(|key| self.fetch(key)).collect()
    }

    /// Writes the cache's file `path` to the store under its key, if no object is there. When
    /// one is (another process published it first), the cache takes the store's copy, so that
    /// every process uses the same bytes. Nothing to do for a local run.
    pub fn publish(&self, path: &Path) -> Result<Created, RunDirError> {
        if !self.remote {
            return Ok(Created::New);
        }
        let key = self.key_of(path).ok_or_else(|| RunDirError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other("not a file of the run's cache"),
        })?;
        let bytes = read_for_upload(path)?;
        let created = self.store.create(&key, &bytes)?;
        if created == Created::AlreadyExists {
            if let Some(theirs) = self.store.get(&key)?.filter(|theirs| *theirs != bytes) {
                write_atomic(path, &theirs)?;
            }
        }
        Ok(created)
    }

    /// Publishes every file of the cache's folder `folder` that the store lacks (see
    /// [`CachedRun::publish`]) and returns them.
    pub fn publish_new(&self, folder: &str) -> Result<Vec<PathBuf>, RunDirError> {
        if !self.remote {
            return Ok(Vec::new());
        }
        let there: std::collections::HashSet<String> =
            self.store.list(folder)?.into_iter().collect();
        let dir = self.cache.root().join(folder);
        let entries = std::fs::read_dir(&dir)
            .map_err(|source| RunDirError::Io { path: dir.clone(), source })?;
        let mut new = Vec::new();
        for entry in entries {
            let path =
                entry.map_err(|source| RunDirError::Io { path: dir.clone(), source })?.path();
            let hidden = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
            let key = self.key_of(&path);
            if path.is_file() && !hidden && key.is_some_and(|k| !there.contains(&k)) {
                self.publish(&path)?;
                new.push(path);
            }
        }
        new.sort();
        Ok(new)
    }
}

/// Where a process of `role` caches the S3 run at `location` by default:
/// `$CHECKERS_ZERO_CACHE/runs/BUCKET/PREFIX/ROLE`, the per-machine cache defaulting to
/// `$XDG_CACHE_HOME/checkers-zero` or `~/.cache/checkers-zero`.
pub fn default_cache(location: &str, role: &str) -> PathBuf {
    let env = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = env("CHECKERS_ZERO_CACHE").unwrap_or_else(|| {
        env("XDG_CACHE_HOME")
            .or_else(|| env("HOME").map(|home| home.join(".cache")))
            .unwrap_or_else(std::env::temp_dir)
            .join("checkers-zero")
    });
    let mut dir = base.join("runs");
    let rest = location.strip_prefix("s3://").unwrap_or(location);
    for part in rest.split('/').filter(|p| !p.is_empty() && *p != "." && *p != "..") {
        dir.push(part);
    }
    dir.join(role)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_run_is_its_own_cache_and_copies_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("run");
        let run =
            CachedRun::open(root.to_str().unwrap(), Some(&dir.path().join("c")), "x").unwrap();
        assert!(!run.is_remote());
        assert_eq!(run.run().root(), root);
        let shard = run.run().shards_dir().join("a.shard");
        std::fs::write(&shard, b"x").unwrap();
        assert_eq!(run.key_of(&shard).as_deref(), Some("shards/a.shard"));
        assert_eq!(run.publish(&shard).unwrap(), Created::New);
        assert!(run.download_new("shards").unwrap().is_empty());
        assert_eq!(run.fetch("shards/a.shard").unwrap(), shard);
        assert!(!dir.path().join("c").exists());
    }

    #[test]
    fn a_file_to_upload_is_read_only_when_regular_and_under_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.safetensors");
        std::fs::File::create(&big).unwrap().set_len(MAX_UPLOAD_BYTES + 1).unwrap();
        let err = support::one_line(&read_for_upload(&big).unwrap_err());
        assert!(
            err.contains("big.safetensors: 1073741825 bytes is more than the 1073741824-byte limit of a file to upload (raise it with CHECKERS_ZERO_MAX_FILE_MB=MIB)"),
            "{err}"
        );
        let fifo = dir.path().join("pipe");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let err = support::one_line(&read_for_upload(&fifo).unwrap_err());
        assert!(err.contains("pipe: not a regular file (a FIFO)"), "{err}");
        let small = dir.path().join("small");
        std::fs::write(&small, b"bytes").unwrap();
        assert_eq!(read_for_upload(&small).unwrap(), b"bytes");
    }

    #[test]
    fn the_default_cache_is_per_bucket_prefix_and_role() {
        let dir = default_cache("s3://bucket/runs/one", "selfplay");
        assert!(dir.ends_with("runs/bucket/runs/one/selfplay"), "{}", dir.display());
    }
}
