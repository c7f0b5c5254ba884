//! Errors said on one line: the error and each of its causes, separated by `: `; a caught
//! panic's message; long lists of names in a message cut to their first few; and warnings said
//! once per process however often their cause is met again.

use std::collections::HashSet;
use std::sync::Mutex;

/// `err` and its chain of sources on one line, each said once (library errors keep their cause as
/// the source instead of repeating it in their message).
pub fn one_line(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(next) = cause {
        text = format!("{text}: {next}");
        cause = next.source();
    }
    text
}

/// The message a caught panic carried (`panic!` with a literal or a formatted text), or `default`.
pub fn panic_message<'a>(payload: &'a (dyn std::any::Any + Send), default: &'a str) -> &'a str {
    payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or(default)
}

/// Names listed in a message before the rest are counted.
const NAMES_SHOWN: usize = 5;

/// The first few of `names` joined with `, `, and how many more there are when that is not all.
pub fn some_of<S: AsRef<str>>(names: &[S]) -> String {
    let shown: Vec<&str> = names.iter().take(NAMES_SHOWN).map(AsRef::as_ref).collect();
    match names.len().saturating_sub(NAMES_SHOWN) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// Writes `warning: MESSAGE` to standard error unless this process has written the same warning
/// before (a damaged line of a log that is read again and again is told once); whether it wrote.
pub fn warn_once(message: &str) -> bool {
    static SAID: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut said = SAID.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let first = said.get_or_insert_with(HashSet::new).insert(message.to_string());
    if first {
        eprintln!("warning: {message}");
    }
    first
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_warning_is_said_once_per_process() {
        let message = "support::error test: a warning said once";
        assert!(super::warn_once(message));
        assert!(!super::warn_once(message));
        assert!(super::warn_once("support::error test: another warning"));
    }

    #[test]
    fn long_lists_of_names_are_cut() {
        assert_eq!(super::some_of(&["a", "b"]), "a, b");
        let many: Vec<String> = (1..=12).map(|i| format!("p{i}")).collect();
        assert_eq!(super::some_of(&many), "p1, p2, p3, p4, p5 and 7 more");
    }

    #[test]
    fn a_panic_says_its_message_literal_or_formatted() {
        let caught = |f: fn()| std::panic::catch_unwind(f).unwrap_err();
        assert_eq!(super::panic_message(&*caught(|| panic!("plain")), "?"), "plain");
        assert_eq!(super::panic_message(&*caught(|| panic!("at {}", 7)), "?"), "at 7");
        let other = std::panic::catch_unwind(|| std::panic::panic_any(7_u8)).unwrap_err();
        assert_eq!(super::panic_message(&*other, "no message"), "no message");
    }

    #[test]
    fn each_cause_follows_its_error() {
        let io = std::io::Error::other("disk on fire");
        let err = crate::Invalid::new("x", 1, "bad");
        assert_eq!(super::one_line(&err), err.to_string());
        #[derive(Debug, thiserror::Error)]
        #[error("saving net.safetensors")]
        struct Saving(#[source] std::io::Error);
        assert_eq!(super::one_line(&Saving(io)), "saving net.safetensors: disk on fire");
    }
}
