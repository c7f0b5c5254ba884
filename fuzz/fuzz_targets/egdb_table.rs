//! Endgame-table files (`0m1k-0m1k`'s win/draw/loss or distance file, beside sound 2-piece tables):
//! any bytes are loaded or refused with an error naming the file. With the first byte's low bit
//! set, the input's CRCs are made right first, so the checks after them (kind, material, sizes,
//! the data itself) are reached too; a table that loads is probed in every position it covers.
#![no_main]

use checkers_zero_fuzz::{scratch, scratch_file};
use draughts::Position;
use egdb::Tables;
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Sets the data CRC (bytes 40..44) and the header CRC (60..64) of a table file.
fn fix_checksums(file: &mut [u8]) {
    if file.len() < 64 {
        return;
    }
    let data_crc = crc32fast::hash(&file[64..]);
    file[40..44].copy_from_slice(&data_crc.to_le_bytes());
    let header_crc = crc32fast::hash(&file[..60]);
    file[60..64].copy_from_slice(&header_crc.to_le_bytes());
}

/// The folder of the sound 1- and 2-piece tables, and the sound `0m1k-0m1k` files' bytes.
fn tables() -> &'static (PathBuf, Vec<u8>, Vec<u8>) {
    static TABLES: OnceLock<(PathBuf, Vec<u8>, Vec<u8>)> = OnceLock::new();
    TABLES.get_or_init(|| {
        let dir = scratch().join("egdb");
        egdb::build(&dir, 2, |_| ()).expect("the 2-piece tables build");
        let read = |extension| std::fs::read(dir.join(format!("{MATERIAL}.{extension}")));
        let (wdl, dist) = (read("wdl").expect("a wdl file"), read("dist").expect("a dist file"));
        (dir, wdl, dist)
    })
}

/// The material of the table under test: a king each.
const MATERIAL: &str = "0m1k-0m1k";

fuzz_target!(|data: &[u8]| {
    let Some((&flags, file)) = data.split_first() else { return };
    let mut file = file.to_vec();
    if flags & 1 == 1 {
        fix_checksums(&mut file);
    }
    let (dir, wdl, dist) = tables();
    let (fuzzed, sound, sound_bytes) =
        if flags & 2 == 2 { ("dist", "wdl", wdl) } else { ("wdl", "dist", dist) };
    scratch_file(&format!("egdb/{MATERIAL}.{sound}"), sound_bytes);
    scratch_file(&format!("egdb/{MATERIAL}.{fuzzed}"), &file);
    let tables = match Tables::open_up_to(dir, 2) {
        Ok(tables) => tables,
        Err(e) => return assert!(e.to_string().contains(MATERIAL), "{e}"),
    };
    for black in 1..=32 {
        for white in (1..=32).filter(|&w| w != black) {
            let position = Position::from_fen(&format!("B:WK{white}:BK{black}")).expect("a FEN");
            let _ = (tables.probe(&position), tables.distance(&position));
            let _ = tables.best_move(&position);
        }
    }
});
