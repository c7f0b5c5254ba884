//! Net checkpoints and training states (both our safetensors files) as a loader finds them: any
//! bytes are read or refused with an error naming the file; the header and our metadata are checked
//! before a tensor is allocated, and a header longer than the limit is never read.
#![no_main]

use checkers_zero_fuzz::scratch_file;
use libfuzzer_sys::fuzz_target;
use netfile::{read_header, CheckpointFile};

fuzz_target!(|data: &[u8]| {
    let path = scratch_file("input.safetensors", data);
    let header = read_header(&path);
    match CheckpointFile::read(&path, None) {
        Ok(file) => {
            let meta = header.expect("a checkpoint that reads has a header that reads");
            assert_eq!(&meta, file.meta());
        }
        Err(e) => assert!(e.to_string().contains(&path.display().to_string()), "{e}"),
    }
});
