//! Transposition table for the alpha-beta engine, keyed by Zobrist hash. A table that forgets
//! (the classic engine's) has one entry a slot, always replaced, and ignores the entries of
//! earlier searches, so a search does not depend on the ones before it. One that keeps them
//! serves the next move's search with this one's results, in buckets of two entries: one kept
//! for the deepest search (replaced by a deeper or as deep one, or by any once it is from an
//! earlier search), one always replaced.

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
    /// `ways` slots a bucket: for two, the depth-preferred one, then the always-replaced one.
    slots: Vec<Option<Entry>>,
    ways: usize,
    /// Buckets less one (their count is a power of two).
    mask: u64,
    generation: u32,
    /// Whether entries of earlier searches are still found.
    keep: bool,
}

impl Table {
    /// A table of `2^bits` entries (at least one bucket) that keeps or forgets its entries
    /// between searches.
    pub fn new(bits: u8, keep: bool) -> Table {
        let ways = if keep { 2 } else { 1 };
        let buckets = (1usize << bits) / ways;
        let mask = buckets.max(1) as u64 - 1;
        Table { slots: vec![None; ways * buckets.max(1)], ways, mask, generation: 0, keep }
    }

    /// The table's size: `2^bits` entries.
    pub fn bits(&self) -> u8 {
        self.slots.len().trailing_zeros() as u8
    }

    /// Starts a new search: a forgetting table forgets every entry (in O(1)); a keeping one
    /// marks the entries so far as old, to be replaced first.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    /// The slots of `key`'s bucket.
    fn bucket(&self, key: u64) -> std::ops::Range<usize> {
        let first = self.ways * (key & self.mask) as usize;
        first..first + self.ways
    }

    /// Asks the CPU to bring `key`'s bucket into its cache, ahead of a probe.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot: *const Option<Entry> = &self.slots[self.bucket(key).start];
            // SAFETY: a prefetch reads nothing and cannot fault; the address is in the table.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast()) };
        }
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[self.bucket(key)]
            .iter()
            .flatten()
            .find(|e| e.key == key && (self.keep || e.generation == self.generation))
            .copied()
    }

    pub fn store(&mut self, key: u64, best: Option<Move>, score: i32, depth: i32, bound: Bound) {
        let generation = self.generation;
        let first = self.bucket(key).start;
        let entry = Some(Entry { key, best, score, depth, bound, generation });
        let deep_slot_yields = self.slots[first]
            .is_none_or(|e| e.key == key || e.depth <= depth || e.generation != generation);
        let slot = if self.ways == 1 || deep_slot_yields { first } else { first + 1 };
        self.slots[slot] = entry;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deep_entry_survives_shallow_ones_of_its_bucket() {
        let mut table = Table::new(4, true);
        let (deep, shallow, other) = (0x10, 0x20, 0x30); // one bucket: the low bits agree
        table.store(deep, None, 5, 9, Bound::Exact);
        table.store(shallow, None, 6, 2, Bound::Lower);
        table.store(other, None, 7, 1, Bound::Upper);
        assert_eq!(table.probe(deep).map(|e| (e.score, e.depth)), Some((5, 9)));
        assert_eq!(table.probe(other).map(|e| e.score), Some(7), "the always-replaced slot");
        assert!(table.probe(shallow).is_none(), "pushed out of the always-replaced slot");
    }

    #[test]
    fn a_kept_table_serves_the_next_search_and_yields_its_old_entries() {
        let mut kept = Table::new(4, true);
        let mut forgetting = Table::new(4, false);
        for table in [&mut kept, &mut forgetting] {
            table.store(0x10, None, 5, 9, Bound::Exact);
            table.new_search();
        }
        assert!(forgetting.probe(0x10).is_none());
        assert_eq!(kept.probe(0x10).map(|e| e.depth), Some(9));
        kept.store(0x20, None, 1, 1, Bound::Exact);
        assert_eq!(kept.probe(0x20).map(|e| e.depth), Some(1), "an old deep entry yields");
    }
}
