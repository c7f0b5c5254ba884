//! Reading PDN text into games: tags, set-up positions, moves checked for legality, results.

use super::lexer::{LexError, Lexer, Located, Token};
use super::{GameResult, PdnError, PdnGame};
use crate::position::Position;

/// Reads every game of a PDN text. Each move must be legal in its game.
pub fn read_pdn(text: &str) -> Result<Vec<PdnGame>, PdnError> {
    let mut lexer = Lexer::new(text);
    let mut games = Vec::new();
    let mut current = GameReader::new(1);
    loop {
        let located = lexer.next_token().map_err(|e| current.syntax_error(e))?;
        let Some(Located { token, line, column }) = located else { break };
        match token {
            Token::Tag { name, value } => {
                if !current.game.moves.is_empty() {
                    // A new tag section after moves without a result starts the next game.
                    games.push(current.finish(None));
                    current = GameReader::new(games.len() + 1);
                }
                current.tag(name, value, line, column)?;
            }
            Token::Word(word) => {
                if let Some(result) = GameResult::from_pdn(word) {
                    games.push(current.finish(Some(result)));
                    current = GameReader::new(games.len() + 1);
                } else {
                    current.word(word, line, column)?;
                }
            }
        }
    }
    if !current.game.tags.is_empty() || !current.game.moves.is_empty() {
        games.push(current.finish(None));
    }
    Ok(games)
}

/// A game being read, and the position its moves have reached.
struct GameReader {
    number: usize,
    game: PdnGame,
    position: Position,
}

impl GameReader {
    fn new(number: usize) -> GameReader {
        GameReader { number, game: PdnGame::new(Position::start()), position: Position::start() }
    }

    fn syntax_error(&self, e: LexError) -> PdnError {
        PdnError::Syntax { game: self.number, line: e.line, column: e.column, message: e.message }
    }

    fn tag(
        &mut self,
        name: &str,
        value: String,
        line: usize,
        column: usize,
    ) -> Result<(), PdnError> {
        if name == "FEN" {
            let start = Position::from_fen(&value).map_err(|source| PdnError::Fen {
                game: self.number,
                line,
                column,
                source,
            })?;
            self.game.start = start;
            self.position = start;
        }
        self.game.tags.push((name.to_owned(), value));
        Ok(())
    }

    /// A word of move text: a move number, an annotation glyph, or a move (possibly numbered, as in
    /// `1.11-15`, or annotated, as in `11-15!`).
    fn word(&mut self, word: &str, line: usize, column: usize) -> Result<(), PdnError> {
        let unnumbered = match word.trim_start_matches(|c: char| c.is_ascii_digit()) {
            rest if rest.len() < word.len() && rest.starts_with('.') => {
                rest.trim_start_matches('.')
            }
            _ => word.trim_start_matches('.'),
        };
        let text = unnumbered.trim_end_matches(['!', '?']);
        if text.is_empty() {
            return Ok(());
        }
        let column = column + (word.len() - unnumbered.len());
        let mv = self.position.parse_move(text).map_err(|source| PdnError::Move {
            game: self.number,
            line,
            column,
            move_number: self.game.move_number(self.game.moves.len()),
            source,
        })?;
        self.position = self.position.play_unchecked(mv);
        self.game.moves.push(mv);
        Ok(())
    }

    /// The game, with the result from its termination marker, else from its `Result` tag.
    fn finish(mut self, result: Option<GameResult>) -> PdnGame {
        self.game.result = result
            .or_else(|| self.game.tag("Result").and_then(GameResult::from_pdn))
            .unwrap_or_default();
        self.game
    }
}
