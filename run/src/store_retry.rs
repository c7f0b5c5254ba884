//! Waiting out an unreachable store: the roles of an S3 run (self-play, trainer, evaluator) retry
//! what needs the store with exponential backoff, saying so, instead of failing; every other
//! error still ends the command.

use anyhow::Result;
use progress::interrupt;
use rundata::{RunDirError, StoreError};
use std::time::Duration;

/// The first wait after a failed try.
const FIRST_DELAY: Duration = Duration::from_secs(1);
/// The longest wait between two tries.
const MAX_DELAY: Duration = Duration::from_secs(30);

/// Whether `error` is the store not answering (as opposed to refusing or failing a request).
pub fn unreachable(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        let store = cause.downcast_ref::<StoreError>().or_else(|| match cause.downcast_ref() {
            Some(RunDirError::Store(store)) => Some(store.as_ref()),
            _ => None,
        });
        store.is_some_and(StoreError::is_transient)
    })
}

/// `attempt()`, tried again while the store is unreachable (until Ctrl-C), with `what` (e.g.
/// "the trainer waits") in the message.
pub fn retry<T>(what: &str, mut attempt: impl FnMut() -> Result<T>) -> Result<T> {
    let mut delay = FIRST_DELAY;
    loop {
        match attempt() {
            Err(e) if unreachable(&e) && !interrupt::requested() => {
                eprintln!("store unreachable ({e:#}): {what}, retrying in {} s", delay.as_secs());
                sleep(delay);
                delay = (delay * 2).min(MAX_DELAY);
            }
            result => return result,
        }
    }
}

/// Sleeps for `duration`, or less once Ctrl-C was pressed.
pub fn sleep(duration: Duration) {
    let step = Duration::from_millis(100);
    let mut left = duration;
    while !left.is_zero() && !interrupt::requested() {
        std::thread::sleep(step.min(left));
        left = left.saturating_sub(step);
    }
}
