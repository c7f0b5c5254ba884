//! FEN: any text is read or refused with an error; a position read is written and read back the
//! same.
#![no_main]

use draughts::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Ok(position) = Position::from_fen(text) else { return };
    let fen = position.to_fen();
    let again = Position::from_fen(&fen)
        .unwrap_or_else(|e| panic!("{fen:?}, written for {text:?}, does not read back: {e}"));
    assert_eq!(again, position, "{text:?} written as {fen:?}");
});
