//! Differential: in every position of a game the input's bytes choose, the bitboard move generator
//! gives the same legal moves as the slow reference generator of the rules tests, written from the
//! rules alone.
#![no_main]

// The rules tests use the reference's perft too; this target needs its moves only.
#[allow(dead_code)]
#[path = "../../draughts/tests/reference.rs"]
mod reference;

use checkers_zero_fuzz::walk;
use libfuzzer_sys::fuzz_target;
use std::sync::atomic::{AtomicU64, Ordering};

/// Positions compared so far in this process; a line is printed at every million, which
/// `scripts/fuzz` reports beside the executions.
static COMPARED: AtomicU64 = AtomicU64::new(0);
const REPORT_EVERY: u64 = 1_000_000;

fuzz_target!(|data: &[u8]| {
    let positions = walk(data);
    for position in &positions {
        let engine = reference::engine_moves(position);
        assert_eq!(engine, reference::legal_moves(position), "{}", position.to_fen());
    }
    let count = positions.len() as u64;
    let before = COMPARED.fetch_add(count, Ordering::Relaxed);
    if (before + count) / REPORT_EVERY > before / REPORT_EVERY {
        eprintln!("fuzz-count: {} positions compared", before + count);
    }
});
