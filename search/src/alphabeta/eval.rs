//! Static evaluation for the alpha-beta engine, in hundredths of a man, from the side to move's
//! view: material, mobility, back-rank guard, centre control and the advancement of men.

use draughts::{Bitboard, Color, Position};

const MAN: i32 = 100;
const KING: i32 = 135;
/// Per legal move more than the opponent has.
const MOBILITY: i32 = 2;
/// Per man still on its own back rank while the opponent has men left to crown.
const BACK_RANK_GUARD: i32 = 8;
/// Per piece on the eight central squares (PDN 10, 11, 14, 15, 18, 19, 22, 23).
const CENTRE: i32 = 4;
/// Per row a man has advanced from its back rank.
const ADVANCEMENT: i32 = 2;

const CENTRE_SQUARES: Bitboard = Bitboard(0b0000_0000_0110_0110_0110_0110_0000_0000);

/// The position's value for its side to move.
pub(crate) fn evaluate(position: &Position) -> i32 {
    let us = position.side_to_move();
    let them = us.other();
    let mobility = position.count_legal_moves() as i32
        - position.with_side_to_move(them).count_legal_moves() as i32;
    side_terms(position, us) - side_terms(position, them) + MOBILITY * mobility
}

/// The terms that belong to one side alone.
fn side_terms(position: &Position, color: Color) -> i32 {
    let men = position.men(color);
    let kings = position.kings(color);
    let material = MAN * men.count() as i32 + KING * kings.count() as i32;
    let own_back_rank = Position::crown_row(color.other());
    let guard = if position.men(color.other()).is_empty() {
        0
    } else {
        (men & own_back_rank).count() as i32
    };
    let centre = (position.pieces(color) & CENTRE_SQUARES).count() as i32;
    let advancement: i32 = men.map(|sq| rows_advanced(sq.row(), color)).sum();
    material + BACK_RANK_GUARD * guard + CENTRE * centre + ADVANCEMENT * advancement
}

/// Rows from `color`'s back rank (Black starts on row 0, White on row 7).
fn rows_advanced(row: u8, color: Color) -> i32 {
    match color {
        Color::Black => row as i32,
        Color::White => 7 - row as i32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use draughts::Square;

    #[test]
    fn centre_mask_holds_the_named_squares() {
        let pdn: Vec<u8> = CENTRE_SQUARES.map(Square::pdn).collect();
        assert_eq!(pdn, [10, 11, 14, 15, 18, 19, 22, 23]);
    }

    #[test]
    fn start_position_is_balanced_and_material_counts() {
        assert_eq!(evaluate(&Position::start()), 0);
        let white_short = Position::new(
            Bitboard(0x0000_0FFF),
            Bitboard(0xFFE0_0000),
            Bitboard::EMPTY,
            Color::Black,
        )
        .unwrap();
        assert!(evaluate(&white_short) > 50);
    }
}
