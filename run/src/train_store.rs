//! The trainer's own files in an S3 run's store, so that a trainer can move to another machine:
//! at each checkpoint its training states go to `train/state-N.safetensors` (each created once,
//! never replaced), and its endgame log and TensorBoard events (files only it writes, which grow)
//! are replaced by the cache's copies; the store keeps the states the cache keeps. A trainer
//! starting on a cache without the newest state downloads the store's newer ones, and resumes from
//! the newest that loads (a damaged one is refused by name and the one before it used). Nothing
//! to do for a local run, whose cache is the run folder.

use anyhow::Result;
use rundata::{CachedRun, Created};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use train::state::{list_states, state_step};
use train::ENDGAME_LOG_FILE;

/// The store's folder of the training states.
const STATES: &str = "train";

/// Downloads the store's training states newer than the cache's newest (and the endgame log, if
/// the cache has none) before the trainer opens its cache.
pub fn download_state(cached: &CachedRun) -> Result<()> {
    if !cached.is_remote() {
        return Ok(());
    }
    let dir = cached.run().train_dir();
    let newest = list_states(&dir)?.first().and_then(|path| step_of(path));
    for (step, key) in stored_states(cached)? {
        if newest.is_none_or(|newest| step > newest) {
            cached.fetch(&key)?;
            eprintln!("downloaded the training state of step {step} from {}", cached.location());
        }
    }
    let log = dir.join(ENDGAME_LOG_FILE);
    if !log.exists() {
        if let Some(bytes) = cached.store().get(&format!("{STATES}/{ENDGAME_LOG_FILE}"))? {
            support::write_atomic(&log, &bytes)?;
        }
    }
    Ok(())
}

/// Uploads the cache's training states the store lacks, replaces the store's endgame log and
/// TensorBoard events with the cache's, then removes the store's states older than every state
/// the cache keeps. A state of a step the store already holds is left there as it is (with a
/// warning when it appeared meanwhile with other contents: another trainer's).
pub fn upload_state(cached: &CachedRun) -> Result<()> {
    if !cached.is_remote() {
        return Ok(());
    }
    let run = cached.run();
    let local = list_states(&run.train_dir())?;
    let stored = stored_states(cached)?;
    let there: HashSet<&str> = stored.iter().map(|(_, key)| key.as_str()).collect();
    for path in &local {
        if cached.key_of(path).is_some_and(|key| there.contains(key.as_str())) {
            continue;
        }
        let (key, bytes) = read(cached, path)?;
        // Created since the listing: by a retry of this trainer's own request, or by another.
        if cached.store().create(&key, &bytes)? == Created::AlreadyExists
            && cached.store().get(&key)?.is_some_and(|theirs| theirs != bytes)
        {
            eprintln!(
                "warning: {}: {key} is not this trainer's (another trainer's, or damaged): kept \
                 as it is; this trainer's copy stays in {}",
                cached.location(),
                path.display()
            );
        }
    }
    let events = run.tb_dir().join("train");
    let growing = [run.train_dir().join(ENDGAME_LOG_FILE)].into_iter().chain(files(&events)?);
    for path in growing.filter(|path| path.is_file()) {
        let (key, bytes) = read(cached, &path)?;
        cached.store().put(&key, &bytes)?;
    }
    if let Some(oldest) = local.last().and_then(|path| step_of(path)) {
        for (_, key) in stored.iter().filter(|(step, _)| *step < oldest) {
            cached.store().delete(key)?;
        }
    }
    Ok(())
}

/// The store's training states, by step.
fn stored_states(cached: &CachedRun) -> Result<Vec<(u64, String)>> {
    let keys = cached.store().list(STATES)?;
    let mut states: Vec<(u64, String)> = keys
        .into_iter()
        .filter_map(|key| Some((state_step(key.strip_prefix(&format!("{STATES}/"))?)?, key)))
        .collect();
    states.sort();
    Ok(states)
}

/// The step of the state file at `path`.
fn step_of(path: &Path) -> Option<u64> {
    state_step(path.file_name()?.to_str()?)
}

/// The key and contents of the cache's file at `path`.
fn read(cached: &CachedRun, path: &Path) -> Result<(String, Vec<u8>)> {
    let key = cached
        .key_of(path)
        .ok_or_else(|| anyhow::anyhow!("{} is not a file of the run's cache", path.display()))?;
    Ok((key, rundata::read_for_upload(path)?))
}

/// The plain files of `dir` (none when it does not exist), hidden (temporary) ones left out.
fn files(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => anyhow::bail!("cannot list {}: {e}", dir.display()),
    };
    let mut paths = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| anyhow::anyhow!("cannot list {}: {e}", dir.display()))?.path();
        let hidden = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if path.is_file() && !hidden {
            paths.push(path);
        }
    }
    paths.sort();
    Ok(paths)
}
