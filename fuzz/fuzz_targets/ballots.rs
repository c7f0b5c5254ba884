//! Opening decks (`match --openings FILE`): any text is read or refused with an error naming the
//! file and the line; a ballot read is legal moves from the initial position whose text reads back
//! as the same ballot.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Ok(ballots) = arena::parse_deck(text, "deck.txt") else { return };
    for ballot in ballots {
        let line = format!("{} {}", ballot.name, ballot.text());
        let again = arena::parse_deck(&line, "again.txt")
            .unwrap_or_else(|e| panic!("ballot {line:?} does not read back: {e}"));
        assert_eq!(again, [ballot]);
    }
});
