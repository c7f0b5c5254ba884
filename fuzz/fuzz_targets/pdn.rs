//! PDN files (any number of games), as any bytes a file holds: bytes that are not UTF-8 are
//! refused as the file readers refuse them, any text is read or refused with an error naming the
//! game and the place; games read are written and read back with the same start, moves, result and
//! tags.
#![no_main]

use draughts::{read_pdn, write_pdn};
use libfuzzer_sys::fuzz_target;

/// Tags the writer takes from the game itself, not from the tag list.
const OWN_TAGS: [&str; 4] = ["Result", "GameType", "SetUp", "FEN"];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = support::utf8_text(data.to_vec()) else { return };
    let Ok(games) = read_pdn(&text) else { return };
    let written = write_pdn(&games);
    let again = read_pdn(&written)
        .unwrap_or_else(|e| panic!("written PDN does not read back: {e}\n{written}"));
    assert_eq!(again.len(), games.len(), "{written}");
    for (read, back) in games.iter().zip(&again) {
        assert_eq!((read.start, &read.moves, read.result), (back.start, &back.moves, back.result));
        for (name, _) in read.tags.iter().filter(|(name, _)| !OWN_TAGS.contains(&name.as_str())) {
            assert_eq!(read.tag(name), back.tag(name), "tag {name:?}\n{written}");
        }
    }
});
