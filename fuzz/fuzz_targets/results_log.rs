//! JSON-lines logs (game results, read back by `ladder` and `report`): every line is read or
//! skipped with an error naming the file and the line, and never the whole file refused.
#![no_main]

use checkers_zero_fuzz::scratch_file;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = scratch_file("results.jsonl", data);
    let Ok(results) = rundata::read_json_lines::<arena::ResultRecord>(&path) else {
        assert!(std::str::from_utf8(data).is_err(), "a text log was refused whole");
        return;
    };
    let text = std::str::from_utf8(data).expect("a log that reads is text");
    let lines = text.lines().filter(|line| !line.trim().is_empty()).count();
    assert_eq!(results.records.len() + results.skipped.len(), lines);
});
