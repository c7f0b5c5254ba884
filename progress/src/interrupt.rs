//! Ctrl-C, SIGTERM or SIGHUP: the first asks long work to stop cleanly at the next safe point; a
//! second exits at once (files are always written atomically, so nothing is left half-written).
//! So a process manager's SIGTERM (systemd, Kubernetes, `timeout`) is the clean stop too.
//! A role of a concurrent `run` that fails asks the same stop of the others ([`request`]).

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

/// Installs the handler (once per process).
pub fn install() {
    let result = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            eprintln!("\ninterrupted again: exiting now");
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: stopping at the next safe point (interrupt again to exit now)");
    });
    if let Err(e) = result {
        eprintln!(
            "warning: cannot install the Ctrl-C and SIGTERM handler: {}",
            support::one_line(&e)
        );
    }
}

/// Asks long work to stop at the next safe point, as a first Ctrl-C does.
pub fn request() {
    STOP.store(true, Ordering::SeqCst);
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    STOP.load(Ordering::SeqCst)
}
