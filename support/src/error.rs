//! Errors said on one line: the error and each of its causes, separated by `: `; and long lists
//! of names in a message cut to their first few.

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

#[cfg(test)]
mod tests {
    #[test]
    fn long_lists_of_names_are_cut() {
        assert_eq!(super::some_of(&["a", "b"]), "a, b");
        let many: Vec<String> = (1..=12).map(|i| format!("p{i}")).collect();
        assert_eq!(super::some_of(&many), "p1, p2, p3, p4, p5 and 7 more");
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
