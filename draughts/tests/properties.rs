//! Property tests: FEN round trip, incremental hashing, agreement with the reference generator,
//! PDN round trip, and parsers that never panic.

use crate::reference;
use crate::support::random_game;
use draughts::{read_pdn, write_pdn, Bitboard, Color, Game, GameResult, PdnGame, Position};
use proptest::prelude::*;

/// Cases for the cheap properties; the parser properties run `PARSER_CASES` each.
const CASES: u32 = 1_000;
const PARSER_CASES: u32 = 20_000;

/// Any arrangement of men and kings (men on their crowning row included), either side to move.
fn any_position() -> impl Strategy<Value = Position> {
    (prop::collection::vec(0u8..9, 32), any::<bool>()).prop_map(|(cells, white)| {
        let mut black = Bitboard::EMPTY;
        let mut whites = Bitboard::EMPTY;
        let mut kings = Bitboard::EMPTY;
        for (i, cell) in cells.into_iter().enumerate() {
            let sq = draughts::Square::new(i as u8).unwrap();
            // 0..4 empty (about half the board), then man/king of each side.
            match cell {
                5 => black = black.with(sq),
                6 => whites = whites.with(sq),
                7 => (black, kings) = (black.with(sq), kings.with(sq)),
                8 => (whites, kings) = (whites.with(sq), kings.with(sq)),
                _ => {}
            }
        }
        let side = if white { Color::White } else { Color::Black };
        Position::new(black, whites, kings, side).unwrap()
    })
}

fn check_position(pos: &Position) {
    assert_eq!(Position::from_fen(&pos.to_fen()).as_ref(), Ok(pos), "FEN {}", pos.to_fen());
    let moves = reference::engine_moves(pos);
    assert_eq!(moves, reference::legal_moves(pos), "{}", pos.to_fen());
    assert_eq!(pos.count_legal_moves(), moves.len() as u64);
    assert_eq!(pos.is_lost(), moves.is_empty());
    assert_eq!(pos.has_capture(), pos.legal_moves().iter().any(|mv| mv.is_capture()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::property_cases(CASES)))]

    #[test]
    fn random_positions_agree_with_reference(pos in any_position()) {
        check_position(&pos);
    }

    #[test]
    fn random_games_agree_with_reference_and_hash_incrementally(seed in any::<u64>()) {
        let mut hash = Position::start().hash();
        for (pos, mv) in random_game(Position::start(), seed, 300) {
            check_position(&pos);
            prop_assert_eq!(hash, pos.hash());
            hash = pos.hash_after(hash, mv);
            prop_assert_eq!(hash, pos.play(mv).hash());
        }
    }

    #[test]
    fn king_positions_hash_incrementally(pos in any_position(), seed in any::<u64>()) {
        let mut hash = pos.hash();
        for (at, mv) in random_game(pos, seed, 40) {
            hash = at.hash_after(hash, mv);
            prop_assert_eq!(hash, at.play(mv).hash());
        }
    }

    #[test]
    fn pdn_round_trips(seed in any::<u64>(), prefix in 0usize..30, plies in 0usize..120) {
        // Half the games start from a position reached by a random prefix (written with a FEN tag).
        let start = random_game(Position::start(), seed ^ 1, prefix).last().map_or(Position::start(), |(p, m)| p.play(*m));
        let mut game = Game::new(start, Default::default());
        for (_, mv) in random_game(start, seed, plies) {
            game.play_unchecked(mv);
        }
        let mut pdn = PdnGame::from_game(&game);
        pdn.set_tag("Event", format!("random \"{seed}\""));
        pdn.set_tag("Annotator", "checkers-zero");
        let text = write_pdn(&[pdn.clone(), PdnGame::new(Position::start())]);
        let read = read_pdn(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        prop_assert_eq!(read.len(), 2);
        prop_assert_eq!(read[0].start, pdn.start);
        prop_assert_eq!(&read[0].moves, &pdn.moves);
        prop_assert_eq!(read[0].result, pdn.result);
        prop_assert_eq!(read[0].tag("Event"), pdn.tag("Event"));
        prop_assert_eq!(read[0].tag("Annotator"), Some("checkers-zero"));
        prop_assert_eq!(read[0].tag("GameType"), Some("21"));
        prop_assert_eq!(read[1].result, GameResult::Unknown);
        prop_assert_eq!(write_pdn(&read), text);
    }
}

/// Characters that PDN, FEN and move text are made of, to reach deep into the parsers.
const NOTATION_CHARS: &str = "[a-zA-Z0-9 ,:.\\-x/*!?$%;{}()\\[\\]\"\\\\\n]{0,200}";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::property_cases(PARSER_CASES)))]

    #[test]
    fn parsers_never_panic_on_any_string(text in any::<String>()) {
        let _ = Position::from_fen(&text);
        let _ = Position::start().parse_move(&text);
        let _ = read_pdn(&text);
    }

    #[test]
    fn parsers_never_panic_on_notation_like_text(text in NOTATION_CHARS) {
        let _ = Position::from_fen(&text);
        let _ = Position::start().parse_move(&text);
        let _ = read_pdn(&text);
        let _ = read_pdn(&format!("[FEN \"{text}\"]\n1. 11-15 {text}"));
    }

    #[test]
    fn parsers_never_panic_on_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = Position::from_fen(&text);
        let _ = Position::start().parse_move(&text);
        let _ = read_pdn(&text);
    }
}
