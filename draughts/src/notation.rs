//! Move text: `11-15`, `15x24`, `15x24x31`, and short forms such as `15x31`, read against a position.
//!
//! A text names the squares a piece stands on: the start, any of the landing squares in order, and
//! the end. It names a legal move when the move's full path is exactly those squares, or else when
//! it is the only legal move from the first to the last square through the named ones. `-` and `x`
//! are both accepted between squares (old files write captures with `-`).

use crate::moves::Move;
use crate::position::Position;
use crate::square::Square;
use smallvec::SmallVec;

/// Why a move text does not name one legal move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveTextError {
    /// Not squares joined by `-` or `x`.
    #[error("{text:?} is not move text: expected squares 1..32 joined by `-` or `x`, as in 11-15 or 15x24x31")]
    Syntax {
        /// The text as given.
        text: String,
    },
    /// Well formed, but no legal move matches; `legal` lists the legal moves as text.
    #[error("{text:?} is not a legal move here; legal: {}", .legal.join(", "))]
    Illegal {
        /// The text as given.
        text: String,
        /// Every legal move, as move text.
        legal: Vec<String>,
    },
    /// Matches several legal moves (capture paths through the same squares); `candidates` lists them.
    #[error("{text:?} is ambiguous; it may be any of {}", .candidates.join(", "))]
    Ambiguous {
        /// The text as given.
        text: String,
        /// The legal moves it matches, in full notation.
        candidates: Vec<String>,
    },
}

impl Position {
    /// The legal move named by `text` (see the module notes for the accepted forms).
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveTextError> {
        let squares = parse_squares(text.trim())
            .ok_or_else(|| MoveTextError::Syntax { text: text.to_owned() })?;
        let legal = self.legal_moves();
        if let Some(&mv) = legal.iter().find(|mv| mv.squares().eq(squares.iter().copied())) {
            return Ok(mv);
        }
        let candidates: SmallVec<[Move; 8]> =
            legal.iter().copied().filter(|&mv| passes_through(mv, &squares)).collect();
        match candidates.as_slice() {
            [mv] => Ok(*mv),
            [] => Err(MoveTextError::Illegal {
                text: text.to_owned(),
                legal: legal.iter().map(Move::to_string).collect(),
            }),
            _ => Err(MoveTextError::Ambiguous {
                text: text.to_owned(),
                candidates: candidates.iter().map(Move::to_string).collect(),
            }),
        }
    }
}

/// The squares of a move text, at least two.
fn parse_squares(text: &str) -> Option<SmallVec<[Square; 8]>> {
    let squares = text
        .split(['-', 'x', 'X'])
        .map(|s| Square::parse_pdn(s.trim()))
        .collect::<Option<SmallVec<_>>>()?;
    (squares.len() >= 2).then_some(squares)
}

/// Whether `mv` starts on the first square, ends on the last, and visits the others in order.
fn passes_through(mv: Move, squares: &[Square]) -> bool {
    let (Some(&first), Some(&last)) = (squares.first(), squares.last()) else {
        return false;
    };
    if mv.from() != first || mv.to() != last {
        return false;
    }
    let mut path = mv.squares().skip(1);
    squares[1..squares.len() - 1].iter().all(|sq| path.any(|p| p == *sq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_moves_parse_from_the_start() {
        let start = Position::start();
        let mv = start.parse_move("11-15").unwrap();
        assert_eq!(mv.to_string(), "11-15");
        assert_eq!(start.parse_move(" 9 - 14 ").unwrap().to_string(), "9-14");
    }

    #[test]
    fn illegal_move_lists_the_legal_ones() {
        let err = Position::start().parse_move("11-18").unwrap_err();
        let MoveTextError::Illegal { legal, .. } = &err else { panic!("{err}") };
        assert_eq!(legal.len(), 7);
        assert!(err.to_string().contains("11-15"), "{err}");
    }

    #[test]
    fn syntax_errors_are_reported() {
        for text in ["", "11", "11-", "0-4", "11-33", "a-b", "11--15", "1 1-15x"] {
            assert!(
                matches!(Position::start().parse_move(text), Err(MoveTextError::Syntax { .. })),
                "{text}"
            );
        }
    }

    #[test]
    fn short_and_full_capture_forms() {
        // The Black man on 15 jumps 19 and then 27, and is crowned on 31.
        let pos = Position::from_fen("B:W19,27:B15").unwrap();
        let full = pos.parse_move("15x24x31").unwrap();
        assert_eq!(full.jump_count(), 2);
        assert_eq!(pos.parse_move("15x31"), Ok(full));
        assert_eq!(pos.parse_move("15-24-31"), Ok(full));
        assert!(matches!(pos.parse_move("15x24"), Err(MoveTextError::Illegal { .. })));
    }

    #[test]
    fn ambiguous_short_form_lists_both_paths() {
        let pos = Position::from_fen("W:WK7:B10,11,18,19").unwrap();
        let err = pos.parse_move("7x7").unwrap_err();
        let MoveTextError::Ambiguous { candidates, .. } = &err else { panic!("{err}") };
        let mut candidates = candidates.clone();
        candidates.sort();
        assert_eq!(candidates, ["7x14x23x16x7", "7x16x23x14x7"]);
        assert!(matches!(pos.parse_move("7x16x7"), Err(MoveTextError::Ambiguous { .. })));
        assert_eq!(pos.parse_move("7x16x23x7").unwrap().to_string(), "7x16x23x14x7");
    }
}
