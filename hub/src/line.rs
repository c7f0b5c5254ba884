//! The protocol's line syntax: `command arg=value arg="quoted value" flag ...`, read and written.

/// One protocol line: its command and its arguments in order (a flag has no value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The first word.
    pub command: String,
    /// `name=value` pairs and bare flags, as written.
    pub args: Vec<(String, Option<String>)>,
}

/// Why a line is not in the protocol's syntax.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// Nothing but spaces.
    #[error("empty line")]
    Empty,
    /// A double quote that is never closed.
    #[error("unterminated quote in `{line}`")]
    UnterminatedQuote {
        /// The line.
        line: String,
    },
}

impl Line {
    /// Splits `text` into its command and arguments.
    pub fn parse(text: &str) -> Result<Line, LineError> {
        let mut words = Vec::new();
        let mut chars = text.trim().chars().peekable();
        while chars.peek().is_some() {
            while chars.next_if(|c| c.is_whitespace()).is_some() {}
            let mut word = String::new();
            let mut quoted = false;
            while let Some(c) = chars.next_if(|&c| quoted || !c.is_whitespace()) {
                match c {
                    '"' => quoted = !quoted,
                    c => word.push(c),
                }
            }
            if quoted {
                return Err(LineError::UnterminatedQuote { line: text.trim().to_string() });
            }
            words.push(word);
        }
        let mut words = words.into_iter();
        let command = words.next().filter(|w| !w.is_empty()).ok_or(LineError::Empty)?;
        let args = words
            .map(|word| match word.split_once('=') {
                Some((name, value)) => (name.to_string(), Some(value.to_string())),
                None => (word, None),
            })
            .collect();
        Ok(Line { command, args })
    }

    /// The value of argument `name`, if given with a value.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.args.iter().find(|(n, _)| n == name).and_then(|(_, v)| v.as_deref())
    }

    /// Whether argument `name` is present (as a flag or with a value).
    pub fn has(&self, name: &str) -> bool {
        self.args.iter().any(|(n, _)| n == name)
    }
}

/// `value` as written in a line: in double quotes when it is empty or holds a space, `=` or `"`
/// (a `"` inside becomes `'`, since the protocol has no escapes).
pub fn quoted(value: &str) -> String {
    if value.is_empty() || value.contains([' ', '=', '"']) {
        format!("\"{}\"", value.replace('"', "'"))
    } else {
        value.to_string()
    }
}

/// `value` as the `id` line may carry it for every common client: pydraughts' `HubEngine` splits
/// each `name=value` token at every `=`, so a name such as `alphabeta:1s,net=run` stopped it from
/// starting. The player's punctuation (`=`, `:`, `,`) becomes spaces: `alphabeta 1s net run`.
pub fn id_value(value: &str) -> String {
    value.split(['=', ':', ',']).filter(|word| !word.is_empty()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_commands_values_quotes_and_flags() {
        let line = Line::parse(r#"  pos pos=Wbbe moves="11-15 23-19"  analyze "#).unwrap();
        assert_eq!(line.command, "pos");
        assert_eq!(line.value("pos"), Some("Wbbe"));
        assert_eq!(line.value("moves"), Some("11-15 23-19"));
        assert!(line.has("analyze") && line.value("analyze").is_none());
        assert_eq!(Line::parse("ping").unwrap().args, vec![]);
        assert_eq!(Line::parse("   "), Err(LineError::Empty));
        assert!(matches!(Line::parse("pos moves=\"1-5"), Err(LineError::UnterminatedQuote { .. })));
    }

    #[test]
    fn quotes_only_what_needs_it() {
        assert_eq!(quoted("english"), "english");
        assert_eq!(quoted("a b"), "\"a b\"");
        assert_eq!(quoted(""), "\"\"");
    }

    #[test]
    fn id_values_hold_no_equals_sign() {
        assert_eq!(
            id_value("checkers-zero alphabeta:1s,net=step-0001"),
            "checkers-zero alphabeta 1s net step-0001"
        );
        assert_eq!(
            id_value("checkers-zero mcts:run:64,c_puct=2"),
            "checkers-zero mcts run 64 c_puct 2"
        );
        assert_eq!(id_value("checkers-zero random"), "checkers-zero random");
    }
}
