//! Splits PDN text into tag pairs and words, skipping comments, NAGs, variations and escape lines.

/// A piece of PDN text that matters to the game record.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Token<'a> {
    Tag {
        name: &'a str,
        value: String,
    },
    /// A move number, move, result or annotation glyph; the reader tells which.
    Word(&'a str),
}

/// A token and where it starts (1-based line and column, in characters).
#[derive(Debug)]
pub(super) struct Located<'a> {
    pub token: Token<'a>,
    pub line: usize,
    pub column: usize,
}

/// A syntax error and where it is.
#[derive(Debug)]
pub(super) struct LexError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

pub(super) struct Lexer<'a> {
    text: &'a str,
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    line: usize,
    column: usize,
}

/// Characters that end a word.
fn ends_word(c: char) -> bool {
    is_space(c) || "[]{}();$".contains(c)
}

fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

impl<'a> Lexer<'a> {
    pub fn new(text: &'a str) -> Lexer<'a> {
        Lexer { text, chars: text.char_indices().peekable(), line: 1, column: 1 }
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|&(_, c)| c)
    }

    fn offset(&mut self) -> usize {
        self.chars.peek().map_or(self.text.len(), |&(i, _)| i)
    }

    fn bump(&mut self) -> Option<char> {
        let (_, c) = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn error(&self, line: usize, column: usize, message: impl Into<String>) -> LexError {
        LexError { line, column, message: message.into() }
    }

    fn skip_while(&mut self, keep: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&keep) {
            self.bump();
        }
    }

    /// Skips a `{...}` comment whose `{` was just read at `line`, `column`.
    fn skip_comment(&mut self, line: usize, column: usize) -> Result<(), LexError> {
        loop {
            match self.bump() {
                Some('}') => return Ok(()),
                Some(_) => {}
                None => return Err(self.error(line, column, "comment `{` is never closed")),
            }
        }
    }

    /// Skips a variation whose `(` was just read, with any nested variations and comments.
    fn skip_variation(&mut self, line: usize, column: usize) -> Result<(), LexError> {
        let mut depth = 1;
        while depth > 0 {
            let (l, c) = (self.line, self.column);
            match self.bump() {
                Some('(') => depth += 1,
                Some(')') => depth -= 1,
                Some('{') => self.skip_comment(l, c)?,
                Some(';') => self.skip_while(|c| c != '\n'),
                Some(_) => {}
                None => return Err(self.error(line, column, "variation `(` is never closed")),
            }
        }
        Ok(())
    }

    /// Reads a tag pair `[Name "value"]` whose `[` was just read.
    fn tag(&mut self, line: usize, column: usize) -> Result<Token<'a>, LexError> {
        self.skip_while(is_space);
        let start = self.offset();
        self.skip_while(|c| c.is_alphanumeric() || c == '_');
        let end = self.offset();
        let name = &self.text[start..end];
        if name.is_empty() {
            return Err(self.error(self.line, self.column, "a tag pair needs a name after `[`"));
        }
        self.skip_while(is_space);
        if self.bump() != Some('"') {
            return Err(self.error(
                self.line,
                self.column,
                format!("tag {name}: expected a quoted value"),
            ));
        }
        let mut value = String::new();
        loop {
            match self.bump() {
                Some('"') => break,
                Some('\\') => match self.bump() {
                    Some(c) => value.push(c),
                    None => break,
                },
                Some(c) => value.push(c),
                None => {
                    return Err(self.error(
                        line,
                        column,
                        format!("tag {name}: value is never closed by `\"`"),
                    ))
                }
            }
        }
        self.skip_while(is_space);
        if self.bump() != Some(']') {
            return Err(self.error(
                line,
                column,
                format!("tag {name}: expected `]` after the value"),
            ));
        }
        Ok(Token::Tag { name, value })
    }

    /// The next token, or `None` at the end of the text.
    pub fn next_token(&mut self) -> Result<Option<Located<'a>>, LexError> {
        loop {
            let (line, column) = (self.line, self.column);
            let start = self.offset();
            let Some(c) = self.bump() else { return Ok(None) };
            let token = match c {
                c if is_space(c) => continue,
                '%' if column == 1 => {
                    self.skip_while(|c| c != '\n');
                    continue;
                }
                ';' => {
                    self.skip_while(|c| c != '\n');
                    continue;
                }
                '{' => {
                    self.skip_comment(line, column)?;
                    continue;
                }
                '(' => {
                    self.skip_variation(line, column)?;
                    continue;
                }
                '$' => {
                    self.skip_while(|c| c.is_ascii_digit());
                    continue;
                }
                '[' => self.tag(line, column)?,
                ')' | ']' | '}' => {
                    return Err(self.error(line, column, format!("unexpected `{c}`")))
                }
                _ => {
                    self.skip_while(|c| !ends_word(c));
                    let end = self.offset();
                    Token::Word(&self.text[start..end])
                }
            };
            return Ok(Some(Located { token, line, column }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let mut lexer = Lexer::new(text);
        let mut out = Vec::new();
        while let Some(t) = lexer.next_token().unwrap() {
            out.push(match t.token {
                Token::Tag { name, value } => format!("[{name}={value}]"),
                Token::Word(w) => w.to_owned(),
            });
        }
        out
    }

    #[test]
    fn skips_comments_variations_and_nags() {
        let text = "[Event \"a \\\"b\\\"\"]\n1. 11-15 {good (really)} 23-19 ; rest\n%escape\n2. 8-11 (2. 9-13 (22-18) {x}) $4 22-17 *";
        assert_eq!(
            words(text),
            ["[Event=a \"b\"]", "1.", "11-15", "23-19", "2.", "8-11", "22-17", "*"]
        );
    }

    #[test]
    fn unterminated_comment_names_its_start() {
        let mut lexer = Lexer::new("1. 11-15\n  {oops");
        let err = loop {
            match lexer.next_token() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("the comment is not closed"),
                Err(err) => break err,
            }
        };
        assert_eq!((err.line, err.column), (2, 3));
    }
}
