//! Shard files as a reader finds them on disk: any bytes are read or refused with an error naming
//! the file; nothing is allocated for a size the file states before the size is checked.
#![no_main]

use checkers_zero_fuzz::scratch_file;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = scratch_file("input.shard", data);
    match shard::read_shard(&path) {
        Ok(read) => {
            for record in read.records.iter() {
                let _ = record.to_sample();
            }
        }
        Err(e) => assert_eq!(e.path(), Some(path.as_path()), "{e}"),
    }
});
