//! Positions and moves as the Hub protocol writes them for English draughts.
//!
//! The Hub position is one letter for the side to move and one per square: `e` empty, `w`/`b`
//! men, `W`/`B` kings. Hub GUIs and pydraughts (the Python engine driver) write it in the frame of
//! international draughts, where the side that moves first is "white" and the square numbers run
//! from the second player's side: read in checkers terms, the board is turned half a turn and the
//! colours are swapped. So Hub square `i` is checkers square `33 - i`, Hub `w`/`W` are Black's
//! pieces and `b`/`B` White's, and `W` to move is Black to move. The start position is
//! `Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww`. Moves are written in checkers numbering.

use draughts::{Bitboard, Color, FenError, Move, Position, PositionError, Square};

/// Why a position or move text is not understood.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// Not 33 characters long.
    #[error(
        "position {text:?}: expected 33 characters (side to move and 32 squares), found {found}"
    )]
    Length {
        /// The text as given.
        text: String,
        /// Its length in characters.
        found: usize,
    },
    /// The first character is not `W` or `B`.
    #[error("position {text:?}: side to move must be W or B, found {found:?}")]
    SideToMove {
        /// The text as given.
        text: String,
        /// What stood there.
        found: char,
    },
    /// A square holds something other than `e`, `w`, `b`, `W` or `B`.
    #[error("position {text:?}: square {square} holds {found:?}; expected e, w, b, W or B")]
    SquareLetter {
        /// The text as given.
        text: String,
        /// The Hub square number.
        square: u8,
        /// The letter found.
        found: char,
    },
    /// The squares do not make a position.
    #[error("position {text:?}")]
    Invalid {
        /// The text as given.
        text: String,
        /// Why not.
        #[source]
        source: PositionError,
    },
    /// A PDN FEN that does not parse.
    #[error(transparent)]
    Fen(#[from] FenError),
    /// Not a move in Hub notation.
    #[error("move {text:?}: expected from-to or from x to x captured..., as in 11-15 or 15x24x19")]
    MoveSyntax {
        /// The text as given.
        text: String,
    },
    /// Well formed, but no legal move matches it (or several do).
    #[error("move {text:?} is not one legal move here; legal: {}", .legal.join(" "))]
    Illegal {
        /// The text as given.
        text: String,
        /// The legal moves, in Hub notation.
        legal: Vec<String>,
    },
}

/// Reads a Hub position (in the frame described in the module notes) or, when the text holds a
/// `:`, a PDN FEN such as `B:W21-32:B1-12`.
pub fn parse_position(text: &str) -> Result<Position, NotationError> {
    if text.contains(':') {
        return Ok(Position::from_fen(text)?);
    }
    let text_owned = || text.to_string();
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != 1 + Square::COUNT {
        return Err(NotationError::Length { text: text_owned(), found: chars.len() });
    }
    let side_to_move = match chars[0] {
        'W' => Color::Black,
        'B' => Color::White,
        found => return Err(NotationError::SideToMove { text: text_owned(), found }),
    };
    let (mut black, mut white, mut kings) = (Bitboard::EMPTY, Bitboard::EMPTY, Bitboard::EMPTY);
    for (hub_square, &letter) in (1..).zip(&chars[1..]) {
        let square = Square::from_pdn(33 - hub_square).expect("hub squares are 1..=32");
        match letter {
            'e' => continue,
            'w' | 'W' => black = black.with(square),
            'b' | 'B' => white = white.with(square),
            found => {
                return Err(NotationError::SquareLetter {
                    text: text_owned(),
                    square: hub_square,
                    found,
                })
            }
        }
        if letter.is_ascii_uppercase() {
            kings = kings.with(square);
        }
    }
    Position::new(black, white, kings, side_to_move)
        .map_err(|source| NotationError::Invalid { text: text_owned(), source })
}

/// `mv` in Hub notation: `from-to`, or `from x to x captured...` with the captured squares in
/// ascending order.
pub fn move_text(mv: Move) -> String {
    if !mv.is_capture() {
        return format!("{}-{}", mv.from().pdn(), mv.to().pdn());
    }
    let mut text = format!("{}x{}", mv.from().pdn(), mv.to().pdn());
    for square in mv.captured() {
        text.push_str(&format!("x{}", square.pdn()));
    }
    text
}

/// The legal move in `position` that `text` names: `from-to` for a quiet move; `from x to`
/// followed by the captured squares in any order for a capture (the captured squares may be left
/// out when only one capture goes from `from` to `to`). Captures that the text cannot tell apart
/// but that leave the same position (a king's loop of jumps taken either way round) are one move:
/// the first of them is returned.
pub fn parse_move(position: &Position, text: &str) -> Result<Move, NotationError> {
    let syntax = || NotationError::MoveSyntax { text: text.to_string() };
    let capture = text.contains('x');
    let separator = if capture { 'x' } else { '-' };
    let squares: Vec<Square> = text
        .split(separator)
        .map(|part| part.parse::<u8>().ok().and_then(Square::from_pdn))
        .collect::<Option<_>>()
        .ok_or_else(syntax)?;
    if squares.len() < 2 || (!capture && squares.len() != 2) {
        return Err(syntax());
    }
    let captured: Bitboard = squares[2..].iter().copied().collect();
    let legal = position.legal_moves();
    let matches: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|mv| mv.from() == squares[0] && mv.to() == squares[1])
        .filter(|mv| mv.is_capture() == capture)
        .filter(|mv| squares.len() == 2 || mv.captured() == captured)
        .collect();
    let after = |mv: &Move| position.play_unchecked(*mv);
    match matches.split_first() {
        Some((first, rest)) if rest.iter().all(|mv| after(mv) == after(first)) => Ok(*first),
        _ => Err(NotationError::Illegal {
            text: text.to_string(),
            legal: legal.iter().copied().map(move_text).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";

    #[test]
    fn a_kings_loop_taken_either_way_round_is_one_move() {
        // The king on 22 takes 9, 10, 17, 18 and 25 and lands on 29 by two paths.
        let position = Position::from_fen("B:W9,10,17,18,25:BK22").unwrap();
        let loops = position.legal_moves().iter().filter(|mv| mv.to().pdn() == 29).count();
        assert_eq!(loops, 3, "two loops and the single jump");
        let mv = parse_move(&position, "22x29x9x10x17x18x25").unwrap();
        assert_eq!(mv.captured().count(), 5);
        assert_eq!(move_text(mv), "22x29x9x10x17x18x25");
        // Without the captured squares the text still names two different captures.
        assert!(matches!(parse_move(&position, "22x29"), Err(NotationError::Illegal { .. })));
    }

    #[test]
    fn the_hub_start_position_is_the_checkers_start() {
        assert_eq!(parse_position(START).unwrap(), Position::start());
        assert_eq!(parse_position("B:W21-32:B1-12").unwrap(), Position::start());
    }

    #[test]
    fn hub_squares_are_turned_and_colours_swapped() {
        // Hub `W` on hub square 1 is a Black king on checkers square 32; `b` on 32 a White man on 1.
        let text = format!("B{}{}{}", "W", "e".repeat(30), "b");
        let position = parse_position(&text).unwrap();
        assert_eq!(position.side_to_move(), Color::White);
        assert_eq!(position.piece_at(Square::from_pdn(32).unwrap()), Some((Color::Black, true)));
        assert_eq!(position.piece_at(Square::from_pdn(1).unwrap()), Some((Color::White, false)));
    }

    #[test]
    fn bad_positions_say_what_is_wrong() {
        let err = parse_position("Wbbb").unwrap_err().to_string();
        assert!(err.contains("33 characters"), "{err}");
        let err = parse_position(&format!("X{}", "e".repeat(32))).unwrap_err().to_string();
        assert!(err.contains("side to move"), "{err}");
        let err = parse_position(&format!("W{}q", "e".repeat(31))).unwrap_err().to_string();
        assert!(err.contains("square 32"), "{err}");
    }

    #[test]
    fn moves_read_and_write_with_captured_squares() {
        let start = Position::start();
        let mv = parse_move(&start, "11-15").unwrap();
        assert_eq!(move_text(mv), "11-15");
        // A double jump by a White king from 14: over 18 to 23, over 26 to 30... here written
        // with its captured squares in either order, or without them.
        let position = Position::from_fen("W:WK14,22:B18,26").unwrap();
        let double = parse_move(&position, "14x30x26x18").unwrap();
        assert_eq!(move_text(double), "14x30x18x26");
        assert_eq!(parse_move(&position, "14x30").unwrap(), double);
        assert_eq!(move_text(parse_move(&position, "22x15").unwrap()), "22x15x18");
        assert!(matches!(parse_move(&position, "22-17"), Err(NotationError::Illegal { .. })));
        assert!(matches!(parse_move(&start, "11-15-19"), Err(NotationError::MoveSyntax { .. })));
        assert!(matches!(parse_move(&start, "zz"), Err(NotationError::MoveSyntax { .. })));
        assert!(matches!(parse_move(&start, "11x15x9"), Err(NotationError::Illegal { .. })));
    }
}
