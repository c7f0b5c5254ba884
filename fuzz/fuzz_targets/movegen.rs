//! Differential: in every position of a game the input's bytes choose, the bitboard move generator
//! gives the same legal moves as the slow reference generator of the rules tests, written from the
//! rules alone.
#![no_main]

// The rules tests use the reference's perft too; this target needs its moves only.
#[allow(dead_code)]
#[path = "../../draughts/tests/reference.rs"]
mod reference;

use checkers_zero_fuzz::walk;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for position in walk(data) {
        let engine = reference::engine_moves(&position);
        assert_eq!(engine, reference::legal_moves(&position), "{}", position.to_fen());
    }
});
