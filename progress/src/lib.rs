//! Progress bars for long work, in one style, and progress lines printed above them. Every bar
//! joins one set for the whole process, so that bars of threads working at once (the roles of a
//! concurrent `run`) are drawn one above the other; a thread that names its role ([`set_role`])
//! gets that name at the head of its bars and lines (`[train] ...`). Long work stops cleanly on
//! Ctrl-C or SIGTERM through [`interrupt`].

pub mod interrupt;

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::cell::Cell;
use std::fmt::Display;
use std::sync::OnceLock;

thread_local! {
    /// The role of this thread, heading its bars and lines.
    static ROLE: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// The process's bars (drawn on standard error when it is a terminal, else hidden).
fn bars() -> &'static MultiProgress {
    static BARS: OnceLock<MultiProgress> = OnceLock::new();
    BARS.get_or_init(MultiProgress::new)
}

/// Names the role of the calling thread (e.g. "selfplay") for its bars and lines.
pub fn set_role(role: &'static str) {
    ROLE.with(|r| r.set(Some(role)));
}

/// `[role] ` for a thread with a role, else nothing.
fn prefix() -> String {
    ROLE.with(Cell::get).map_or_else(String::new, |role| format!("[{role}] "))
}

/// A bar counting `total` units of `unit` (e.g. "games"), with a free-text message after it.
pub fn bar(total: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    let template =
        format!("{}{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {unit}  {{msg}}", prefix());
    bar.set_style(
        ProgressStyle::with_template(&template).expect("a valid template").progress_chars("=> "),
    );
    bars().add(bar)
}

/// Prints `text` as a line of standard output, above the bars and headed by the thread's role.
pub fn line(text: impl Display) {
    bars().suspend(|| println!("{}{text}", prefix()));
}
