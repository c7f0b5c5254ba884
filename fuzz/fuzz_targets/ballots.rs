//! Opening decks (`match --openings FILE`): any bytes, as a file holds them, are read or refused
//! with one error line naming the file (and the line, for a bad ballot), whatever it echoes
//! escaped; bytes that are not UTF-8 refuse the deck as `read_deck` does. A ballot read is legal
//! moves from the initial position whose text reads back as the same ballot.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = match support::utf8_text(data.to_vec()) {
        Ok(text) => text,
        Err(e) => return assert!(e.to_string().starts_with("not UTF-8 text"), "{e}"),
    };
    let ballots = match arena::parse_deck(&text, "deck.txt") {
        Ok(ballots) => ballots,
        Err(e) => {
            let message = support::one_line(&e);
            assert!(message.contains("deck.txt"), "the error does not name the file: {message}");
            let control = message.chars().any(char::is_control);
            return assert!(!control, "an error with control characters: {message:?}");
        }
    };
    for ballot in ballots {
        let line = format!("{} {}", ballot.name, ballot.text());
        let again = arena::parse_deck(&line, "again.txt")
            .unwrap_or_else(|e| panic!("ballot {line:?} does not read back: {e}"));
        assert_eq!(again, [ballot]);
    }
});
