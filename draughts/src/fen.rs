//! Draughts FEN: `B:W21,22,K30:B1,2` (side to move, then each side's squares, `K` for a king).
//!
//! Reading is liberal: whitespace anywhere, either side first, ranges such as `1-12` or `K1-4`, lower-case
//! colour letters, an optional trailing `.`. Writing lists every square (no ranges), White first.

use crate::bitboard::Bitboard;
use crate::position::{Position, PositionError};
use crate::square::{Color, Square};
use std::fmt::Write as _;

/// Why a FEN string is not a position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error(
        "FEN {fen:?}: expected a side to move `B` or `W` before the first `:`, found {found:?}"
    )]
    /// The text before the first `:` is not `B` or `W`.
    SideToMove {
        /// The whole FEN text.
        fen: String,
        /// What stood where the side to move belongs.
        found: String,
    },
    /// A piece list does not start with its colour.
    #[error("FEN {fen:?}: piece list {section:?} does not start with the colour `B` or `W`")]
    SectionColor {
        /// The whole FEN text.
        fen: String,
        /// The piece list without its colour.
        section: String,
    },
    /// One colour has two piece lists.
    #[error("FEN {fen:?}: the pieces of {color:?} are listed twice")]
    DuplicateColor {
        /// The whole FEN text.
        fen: String,
        /// The colour listed twice.
        color: Color,
    },
    #[error(
        "FEN {fen:?}: {token:?} is not a square 1..32, a king `K<square>` or a range `<a>-<b>`"
    )]
    /// A piece token is neither a square, a king nor a range.
    Square {
        /// The whole FEN text.
        fen: String,
        /// The token that is not a square.
        token: String,
    },
    /// The squares parse but do not make a position (e.g. a square held by both sides).
    #[error("FEN {fen:?}")]
    Position {
        /// The whole FEN text.
        fen: String,
        /// Why the squares make no position.
        source: PositionError,
    },
}

impl Position {
    /// Reads a position from draughts FEN, e.g. `B:W21,22,K30:B1,2` or `W:W21-32:B1-12.`.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let compact: String = fen.chars().filter(|c| !c.is_whitespace()).collect();
        let body = compact.strip_suffix('.').unwrap_or(&compact);
        let mut sections = body.split(':');
        let side = sections.next().unwrap_or_default();
        let side_to_move = parse_color(side)
            .filter(|_| side.len() == 1)
            .ok_or_else(|| FenError::SideToMove { fen: fen.to_owned(), found: side.to_owned() })?;
        let mut pieces: [Option<(Bitboard, Bitboard)>; 2] = [None, None];
        for section in sections {
            let color = parse_color(section).ok_or_else(|| FenError::SectionColor {
                fen: fen.to_owned(),
                section: section.to_owned(),
            })?;
            if pieces[color.index()].is_some() {
                return Err(FenError::DuplicateColor { fen: fen.to_owned(), color });
            }
            let squares = parse_squares(&section[1..]).map_err(|token| FenError::Square {
                fen: fen.to_owned(),
                token: token.to_owned(),
            })?;
            pieces[color.index()] = Some(squares);
        }
        let [(black, black_kings), (white, white_kings)] = pieces.map(Option::unwrap_or_default);
        Position::new(black, white, black_kings | white_kings, side_to_move)
            .map_err(|source| FenError::Position { fen: fen.to_owned(), source })
    }

    /// Writes the position as draughts FEN: `B:W21,22,K30:B1,2` (squares ascending, White first).
    pub fn to_fen(&self) -> String {
        let mut fen = String::from(color_letter(self.side_to_move()));
        for color in [Color::White, Color::Black] {
            fen.push(':');
            fen.push(color_letter(color));
            for (i, sq) in self.pieces(color).enumerate() {
                let sep = if i > 0 { "," } else { "" };
                let king = if self.kings(color).contains(sq) { "K" } else { "" };
                write!(fen, "{sep}{king}{sq}").expect("writing to a String cannot fail");
            }
        }
        fen
    }
}

const fn color_letter(color: Color) -> char {
    match color {
        Color::Black => 'B',
        Color::White => 'W',
    }
}

/// The colour named by the first letter of `text`.
fn parse_color(text: &str) -> Option<Color> {
    match text.chars().next()? {
        'B' | 'b' => Some(Color::Black),
        'W' | 'w' => Some(Color::White),
        _ => None,
    }
}

/// A comma-separated list of squares, kings and ranges: all pieces, and the kings among them.
/// The error is the offending token.
fn parse_squares(list: &str) -> Result<(Bitboard, Bitboard), &str> {
    let mut pieces = Bitboard::EMPTY;
    let mut kings = Bitboard::EMPTY;
    for token in list.split(',').filter(|t| !t.is_empty()) {
        let (king, squares) = match token.strip_prefix(['K', 'k']) {
            Some(rest) => (true, rest),
            None => (false, token),
        };
        let (first, last) = match squares.split_once('-') {
            Some((a, b)) => (a, b.strip_prefix(['K', 'k']).unwrap_or(b)),
            None => (squares, squares),
        };
        let (Some(first), Some(last)) = (Square::parse_pdn(first), Square::parse_pdn(last)) else {
            return Err(token);
        };
        if first > last {
            return Err(token);
        }
        let range: Bitboard = Square::all().filter(|sq| (first..=last).contains(sq)).collect();
        pieces |= range;
        if king {
            kings |= range;
        }
    }
    Ok((pieces, kings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_round_trips() {
        let fen = Position::start().to_fen();
        assert_eq!(fen, "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12");
        assert_eq!(Position::from_fen(&fen), Ok(Position::start()));
    }

    #[test]
    fn ranges_whitespace_and_trailing_dot_are_accepted() {
        assert_eq!(Position::from_fen(" B : W 21-32 : B1-12 ."), Ok(Position::start()));
        assert_eq!(Position::from_fen("B:B1-12:W21-32"), Ok(Position::start()));
        let pos = Position::from_fen("w:wK1-3,30:b5").unwrap();
        assert_eq!(pos.to_fen(), "W:WK1,K2,K3,30:B5");
    }

    #[test]
    fn errors_name_the_offending_part() {
        let err = Position::from_fen("B:W21,33:B1").unwrap_err();
        assert!(matches!(&err, FenError::Square { token, .. } if token == "33"), "{err}");
        let err = Position::from_fen("X:W21:B1").unwrap_err();
        assert!(matches!(&err, FenError::SideToMove { found, .. } if found == "X"), "{err}");
        let err = Position::from_fen("B:W21:W22").unwrap_err();
        assert!(matches!(err, FenError::DuplicateColor { color: Color::White, .. }));
        let err = Position::from_fen("B:W21:B21").unwrap_err();
        assert!(matches!(err, FenError::Position { .. }));
        assert!(Position::from_fen("B:W12-3:B1").is_err());
        assert!(Position::from_fen("B:Q21:B1").is_err());
        assert!(Position::from_fen("").is_err());
    }
}
