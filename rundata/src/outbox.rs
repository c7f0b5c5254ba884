//! The outbox of a process that writes finished files into its cache (self-play's shards): a
//! thread uploads each batch of files to the store, create-if-absent, then removes them from the
//! cache. While the store cannot be reached the files stay on local disk and the thread retries
//! with exponential backoff (1 s doubling to at most [`MAX_DELAY`]), saying so; what is still
//! there when the process stops is uploaded by the next process on that cache.

use crate::{CachedRun, RunDirError};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The first wait after a failed upload.
const FIRST_DELAY: Duration = Duration::from_secs(1);
/// The longest wait between two tries.
pub const MAX_DELAY: Duration = Duration::from_secs(60);

/// What the uploading thread is told.
enum Message {
    /// Upload these files of the cache, in order, then remove them.
    Upload(Vec<PathBuf>),
    /// No more files will come: upload what is left, trying until this moment at the latest.
    Finish(Instant),
}

/// Uploads batches of finished files from a run's cache to its store, on a thread of its own.
pub struct Uploader {
    sender: Sender<Message>,
    thread: JoinHandle<usize>,
}

impl Uploader {
    /// Starts the thread, with `leftovers` (batches an earlier process left in the cache) first.
    pub fn start(run: Arc<CachedRun>, leftovers: Vec<Vec<PathBuf>>) -> Uploader {
        let (sender, receiver) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("rundata-upload".into())
            .spawn(move || upload_all(&run, &receiver, leftovers.into()))
            .expect("the upload thread starts");
        Uploader { sender, thread }
    }

    /// Queues one batch: its files are uploaded in order (put the one that marks the batch
    /// complete last), then removed from the cache.
    pub fn send(&self, files: Vec<PathBuf>) {
        // The thread only ends after `finish`, which takes `self`.
        let _ = self.sender.send(Message::Upload(files));
    }

    /// Uploads what is queued, trying for at most `patience`, and returns how many batches are
    /// still in the cache (0 when everything reached the store).
    pub fn finish(self, patience: Duration) -> usize {
        let _ = self.sender.send(Message::Finish(Instant::now() + patience));
        self.thread.join().expect("the upload thread does not panic")
    }
}

/// The thread: uploads each batch in turn, waits with backoff while the store fails, and
/// returns the batches left when told to finish.
fn upload_all(
    run: &CachedRun,
    receiver: &Receiver<Message>,
    mut queue: VecDeque<Vec<PathBuf>>,
) -> usize {
    let mut deadline = None;
    let mut delay = FIRST_DELAY;
    loop {
        while let Ok(message) = receiver.try_recv() {
            take(message, &mut queue, &mut deadline);
        }
        let Some(batch) = queue.front() else {
            if deadline.is_some() {
                return 0;
            }
            match receiver.recv() {
                Ok(message) => take(message, &mut queue, &mut deadline),
                Err(_) => return 0,
            }
            continue;
        };
        let error = match upload(run, batch) {
            Ok(()) => {
                queue.pop_front();
                delay = FIRST_DELAY;
                continue;
            }
            Err(error) => error,
        };
        if deadline.is_some_and(|d| Instant::now() + delay > d) {
            return queue.len();
        }
        eprintln!(
            "{}: {} shards kept locally, retrying in {} s",
            what_failed(&error),
            queue.len(),
            delay.as_secs()
        );
        let until = Instant::now() + delay;
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            match receiver.recv_timeout(left) {
                Ok(message) => take(message, &mut queue, &mut deadline),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return queue.len(),
            }
        }
        delay = (delay * 2).min(MAX_DELAY);
    }
}

fn take(message: Message, queue: &mut VecDeque<Vec<PathBuf>>, deadline: &mut Option<Instant>) {
    match message {
        Message::Upload(batch) => queue.push_back(batch),
        Message::Finish(at) => *deadline = Some(at),
    }
}

/// Uploads the batch's files in order, then removes them. A file already gone (another process
/// on the same cache uploaded it) is skipped. A local run's files are already in its store: they
/// stay.
fn upload(run: &CachedRun, batch: &[PathBuf]) -> Result<(), RunDirError> {
    if !run.is_remote() {
        return Ok(());
    }
    for path in batch.iter().filter(|p| p.exists()) {
        match run.publish(path) {
            Err(RunDirError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound => {}
            result => drop(result?),
        }
    }
    for path in batch {
        if let Err(source) = std::fs::remove_file(path) {
            if source.kind() != std::io::ErrorKind::NotFound {
                return Err(RunDirError::Io { path: path.clone(), source });
            }
        }
    }
    Ok(())
}

/// "store unreachable (ENDPOINT)" when it is, else the error's one line.
fn what_failed(error: &RunDirError) -> String {
    match error {
        RunDirError::Store(e) if e.is_transient() => {
            format!("store unreachable ({e})")
        }
        other => format!("cannot upload ({other})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_run_is_its_own_store_and_keeps_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let run = Arc::new(CachedRun::open(dir.path().to_str().unwrap(), None, "t").unwrap());
        let shard = run.run().shards_dir().join("a.shard");
        std::fs::write(&shard, b"x").unwrap();
        let uploader = Uploader::start(run, Vec::new());
        uploader.send(vec![shard.clone()]);
        assert_eq!(uploader.finish(Duration::from_secs(1)), 0);
        assert!(shard.is_file());
    }
}
