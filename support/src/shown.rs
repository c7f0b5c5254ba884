//! Text from outside (a config value, a line read, a player as written) as a message shows it:
//! line breaks, other control characters and the invisible characters that reorder or hide text
//! escaped (`\n`, `\u{1b}`), so the message stays on one line and says what was read; and cut to
//! a length a reader takes in, so a 20 MB line does not come back whole.

/// Characters of escaped text a message shows by default before it cuts the rest.
pub const SHOWN_CHARS: usize = 80;

/// `text` escaped and cut to [`SHOWN_CHARS`] characters (see [`escape_and_cut`]).
pub fn shown(text: &str) -> String {
    escape_and_cut(text, SHOWN_CHARS)
}

/// `text` with its control characters, line and paragraph separators and bidirectional controls
/// escaped as Rust writes them (`\n`, `\r`, `\t`, `\u{1b}`); when the escaped text is longer than
/// `max_chars` characters, its first `max_chars` and how many bytes the whole text had.
pub fn escape_and_cut(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars) + 8);
    let mut count = 0;
    let mut piece = String::new();
    for c in text.chars() {
        piece.clear();
        push_escaped(&mut piece, c);
        count += piece.chars().count();
        if count > max_chars {
            out.push_str(&format!("... ({} bytes in all)", text.len()));
            return out;
        }
        out.push_str(&piece);
    }
    out
}

/// Escapes everything but backslashes and quotes, so a path or a message reads as written.
fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if hidden(c) => out.extend(c.escape_unicode()),
        c => out.push(c),
    }
}

/// Control characters, and the characters a terminal or editor acts on without showing them:
/// line and paragraph separators, bidirectional marks and overrides, zero-width marks.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_and_controls_are_escaped_and_the_rest_kept() {
        assert_eq!(shown("alpha\nbeta"), "alpha\\nbeta");
        assert_eq!(shown("a\r\tb\u{1b}[31m"), "a\\r\\tb\\u{1b}[31m");
        assert_eq!(shown("réseau \"x\" C:\\net"), "réseau \"x\" C:\\net");
        assert_eq!(shown("\u{202E}evil\u{2028}"), "\\u{202e}evil\\u{2028}");
    }

    #[test]
    fn long_text_is_cut_with_its_length() {
        let long = "x".repeat(20_000_000);
        assert_eq!(shown(&long), format!("{}... (20000000 bytes in all)", "x".repeat(80)));
        assert_eq!(escape_and_cut("abcd", 4), "abcd");
        assert_eq!(escape_and_cut("a\nb", 2), "a... (3 bytes in all)");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::property_cases(256)))]

        /// Whatever the text, what is shown is one line of printable characters, no longer than
        /// asked plus the note of the length.
        #[test]
        fn anything_is_shown_on_one_short_line(text in "\\PC*|(.|\n|\r|[\u{0}-\u{1f}\u{7f}-\u{9f}\u{2028}])*", max in 0usize..100) {
            let out = escape_and_cut(&text, max);
            proptest::prop_assert!(!out.chars().any(hidden), "{out:?}");
            proptest::prop_assert!(out.chars().count() <= max + 40, "{out:?}");
        }
    }
}
