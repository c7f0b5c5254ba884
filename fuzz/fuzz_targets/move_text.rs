//! Move text (`11-15`, `15x24x31`, `15x31`) in positions of a game the input's first bytes play:
//! a move read is legal there, and its full text reads back as the same move.
#![no_main]

use checkers_zero_fuzz::walk_then_rest;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (position, rest) = walk_then_rest(data);
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let Ok(mv) = position.parse_move(text) else { return };
    assert!(position.legal_moves().contains(&mv), "{text:?} read as an illegal {mv}");
    assert_eq!(position.parse_move(&mv.to_string()).ok(), Some(mv), "{text:?} read as {mv}");
});
