//! Writing games as PDN: Seven Tag Roster, `GameType "21"`, set-up FEN when needed, numbered moves.

use super::PdnGame;
use crate::position::Position;
use crate::square::Color;
use std::fmt;

/// Tags written from the game itself rather than copied from [`PdnGame::tags`].
const OWN_TAGS: [&str; 4] = ["Result", "GameType", "SetUp", "FEN"];
/// The Seven Tag Roster without `Result`, with the value written when a tag is missing.
const ROSTER: [(&str, &str); 6] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("Black", "?"),
    ("White", "?"),
];
/// Move text lines are wrapped before this many characters.
const LINE_WIDTH: usize = 80;

/// Writes games as one PDN text, separated by blank lines.
pub fn write_pdn(games: &[PdnGame]) -> String {
    games.iter().map(PdnGame::to_string).collect::<Vec<_>>().join("\n")
}

fn write_tag(f: &mut fmt::Formatter<'_>, name: &str, value: &str) -> fmt::Result {
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    writeln!(f, "[{name} \"{escaped}\"]")
}

/// One game as PDN: tags, a blank line, the move text ending in the result, and a newline.
impl fmt::Display for PdnGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, default) in ROSTER {
            write_tag(f, name, self.tag(name).unwrap_or(default))?;
        }
        write_tag(f, "Result", self.result.pdn())?;
        write_tag(f, "GameType", "21")?;
        if self.start != Position::start() {
            write_tag(f, "SetUp", "1")?;
            write_tag(f, "FEN", &self.start.to_fen())?;
        }
        for (name, value) in &self.tags {
            if !ROSTER.iter().any(|(n, _)| n == name) && !OWN_TAGS.contains(&name.as_str()) {
                write_tag(f, name, value)?;
            }
        }
        writeln!(f)?;
        let mut line_len = 0;
        for word in self.move_text_words() {
            if line_len > 0 && line_len + 1 + word.len() > LINE_WIDTH {
                writeln!(f)?;
                line_len = 0;
            } else if line_len > 0 {
                write!(f, " ")?;
                line_len += 1;
            }
            write!(f, "{word}")?;
            line_len += word.len();
        }
        writeln!(f)
    }
}

impl PdnGame {
    /// The move text in pieces that are never split across lines: `1. 11-15`, `23-19`, ..., `*`,
    /// with each comment's words among them (`{word`, ..., `word}`).
    fn move_text_words(&self) -> impl Iterator<Item = String> + '_ {
        let white_first = self.start.side_to_move() == Color::White;
        let moves = self.moves.iter().enumerate().map(move |(ply, mv)| match (ply, white_first) {
            (0, true) => format!("{}... {mv}", self.move_number(0)),
            _ if (ply + usize::from(white_first)) % 2 == 0 => {
                format!("{}. {mv}", self.move_number(ply))
            }
            _ => mv.to_string(),
        });
        let comments_after = |played: usize| {
            self.comments
                .iter()
                .filter(move |(n, _)| *n == played)
                .flat_map(|(_, text)| comment_words(text))
        };
        comments_after(0)
            .chain(
                moves.enumerate().flat_map(move |(ply, word)| {
                    std::iter::once(word).chain(comments_after(ply + 1))
                }),
            )
            .chain(std::iter::once(self.result.pdn().to_owned()))
    }
}

/// A comment as words of move text, `{` before the first and `}` after the last; a `}` in the text
/// (which would end the comment) is written as `)`.
fn comment_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> =
        text.replace('}', ")").split_whitespace().map(String::from).collect();
    match words.as_mut_slice() {
        [] => vec!["{}".to_owned()],
        [first, .., last] => {
            first.insert(0, '{');
            last.push('}');
            words
        }
        [only] => vec![format!("{{{only}}}")],
    }
}
