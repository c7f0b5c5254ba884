//! One Hub protocol line: read or refused; `level` arguments, `pos=` positions and move texts in
//! it are read or refused too, and a move read is legal in its position.
#![no_main]

use hub::{parse_move, parse_position, Level, Line};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // What the session takes from any bytes: a line of text, or an error line for the rest.
    let mut input = data;
    let Ok(Some(Ok(text))) = support::read_line_capped(&mut input, hub::MAX_LINE_BYTES) else {
        return;
    };
    let Ok(line) = Line::parse(&text) else { return };
    let _ = Level::parse(&line);
    let position = line
        .value("pos")
        .and_then(|pos| parse_position(pos).ok())
        .unwrap_or_else(draughts::Position::start);
    for value in line.args.iter().filter_map(|(_, value)| value.as_deref()) {
        if let Ok(mv) = parse_move(&position, value) {
            assert!(position.legal_moves().contains(&mv), "{value:?} read as an illegal move");
        }
    }
});
