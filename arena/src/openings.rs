//! The 3-move ballots: opening decks read from text files, one ballot a line.
//!
//! Format: `#` starts a comment line; every other non-blank line is a ballot name followed by its
//! moves in PDN move text (`001 9-13 21-17 5-9`). The moves are checked by playing them from the
//! start position, so a deck that loads is playable.

use crate::error::{ArenaError, BallotError};
use draughts::{Move, Position};
use std::path::Path;

/// The ACF 3-move deck shipped with the project (`arena/data/openings-3move.txt`).
pub const STANDARD_DECK: &str = include_str!("../data/openings-3move.txt");

/// An opening: moves played from the start position before the players take over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ballot {
    /// The ballot's name in its deck, e.g. `001`.
    pub name: String,
    /// The moves from the start position, in order (Black's first).
    pub moves: Vec<Move>,
}

impl Ballot {
    /// The moves as PDN text, e.g. `9-13 21-17 5-9`.
    pub fn text(&self) -> String {
        self.moves.iter().map(Move::to_string).collect::<Vec<_>>().join(" ")
    }
}

/// The standard deck (it always parses; tested).
pub fn standard_deck() -> Result<Vec<Ballot>, ArenaError> {
    parse_deck(STANDARD_DECK, "arena/data/openings-3move.txt")
}

/// The largest deck file read (the shipped deck is 7 KiB); a bigger one, or one that is not a
/// regular file (a FIFO, `/dev/zero`), is refused before it is read.
pub const MAX_DECK_BYTES: u64 = 16 << 20;

/// Reads a deck from a file.
pub fn read_deck(path: &Path) -> Result<Vec<Ballot>, ArenaError> {
    let text = support::read_text_capped(path, MAX_DECK_BYTES, "an openings file")
        .map_err(|source| ArenaError::Read { path: path.to_path_buf(), source })?;
    parse_deck(&text, &path.display().to_string())
}

/// Parses a deck; `file` names it in errors. A deck with no ballot is an error.
pub fn parse_deck(text: &str, file: &str) -> Result<Vec<Ballot>, ArenaError> {
    let mut ballots = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |source| ArenaError::Ballot {
            file: file.to_string(),
            line: i + 1,
            text: line.to_string(),
            source,
        };
        ballots.push(parse_ballot(line).map_err(bad)?);
    }
    if ballots.is_empty() {
        return Err(ArenaError::NoBallots { file: file.to_string() });
    }
    Ok(ballots)
}

fn parse_ballot(line: &str) -> Result<Ballot, BallotError> {
    let mut words = line.split_whitespace();
    let name = words.next().expect("the line is not blank").to_string();
    let mut position = Position::start();
    let mut moves = Vec::new();
    for word in words {
        let mv = position.parse_move(word).map_err(BallotError::Move)?;
        position = position.play(mv);
        moves.push(mv);
    }
    if moves.is_empty() {
        return Err(BallotError::NoMoves);
    }
    Ok(Ballot { name, moves })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_deck_loads() {
        let deck = standard_deck().unwrap();
        assert_eq!(deck.len(), 157);
        assert_eq!(deck[0].name, "001");
        assert_eq!(deck[0].text(), "9-13 21-17 5-9");
        assert!(deck.iter().all(|b| b.moves.len() == 3));
    }

    #[test]
    fn a_bad_ballot_names_its_line() {
        let err = parse_deck("# deck\n001 9-13 21-17 5-9\n\n002 9-13 21-17 9-14\n", "deck.txt")
            .unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("deck.txt:4:"), "{text}");
        assert!(text.contains("9-14"), "{text}");
    }

    /// A 20 MB bad line came back whole in the error, and `/dev/zero` as a deck grew without
    /// bound.
    #[test]
    fn a_huge_bad_line_is_cut_and_a_device_is_refused() {
        let line = format!("001 9-13\n{}", "1".repeat(20 << 20));
        let err = support::one_line(&parse_deck(&line, "deck.txt").unwrap_err());
        assert!(
            err.len() < 1000 && err.contains("bytes in all"),
            "{}",
            &err[..1000.min(err.len())]
        );
        let err = support::one_line(&read_deck(Path::new("/dev/zero")).unwrap_err());
        assert!(err.contains("/dev/zero") && err.contains("not a regular file"), "{err}");
    }

    #[test]
    fn an_empty_deck_is_an_error() {
        assert!(matches!(
            parse_deck("# nothing\n", "empty.txt"),
            Err(ArenaError::NoBallots { .. })
        ));
    }
}
