//! Transposition table for the alpha-beta engine: one entry per slot, keyed by Zobrist hash,
//! always replaced; entries of earlier searches are ignored (a generation counter), so a search
//! does not depend on the ones before it.

use draughts::Move;

/// How a stored score bounds the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    Exact,
    /// The true value is at least the score (a beta cut-off).
    Lower,
    /// The true value is at most the score (no move raised alpha).
    Upper,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub key: u64,
    pub best: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
    generation: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct Table {
    slots: Vec<Option<Entry>>,
    mask: u64,
    generation: u32,
}

impl Table {
    /// A table of `2^bits` slots.
    pub fn new(bits: u8) -> Table {
        Table { slots: vec![None; 1 << bits], mask: (1u64 << bits) - 1, generation: 0 }
    }

    /// Forgets every entry (in O(1)).
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[(key & self.mask) as usize]
            .filter(|e| e.key == key && e.generation == self.generation)
    }

    pub fn store(&mut self, key: u64, best: Option<Move>, score: i32, depth: i32, bound: Bound) {
        let generation = self.generation;
        self.slots[(key & self.mask) as usize] =
            Some(Entry { key, best, score, depth, bound, generation });
    }
}
