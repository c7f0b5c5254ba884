//! JSON-lines logs (game results, read back by `ladder` and `report`): every line is read or
//! skipped with an error naming the file and the line, whatever its bytes (a crash can cut a line
//! inside a character), and never the whole file refused.
#![no_main]

use checkers_zero_fuzz::scratch_file;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = scratch_file("results.jsonl", data);
    let results = rundata::read_json_lines::<arena::ResultRecord>(&path)
        .expect("a log file is never refused whole");
    let lines = data.split(|&b| b == b'\n').filter(|line| !line.trim_ascii().is_empty()).count();
    assert_eq!(results.records.len() + results.skipped.len(), lines);
});
