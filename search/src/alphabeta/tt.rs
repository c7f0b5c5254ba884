//! Transposition table for the alpha-beta engine, keyed by Zobrist hash. A table that forgets
//! (the classic engine's) has one entry a slot, always replaced, and ignores the entries of
//! earlier searches, so a search does not depend on the ones before it. One that keeps them
//! serves the next move's search with this one's results, in buckets of two entries: one kept
//! for the deepest search (replaced by a deeper or as deep one, or by any once it is from an
//! earlier search), one always replaced.

/// How a stored score bounds the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    Exact,
    /// The true value is at least the score (a beta cut-off).
    Lower,
    /// The true value is at most the score (no move raised alpha).
    Upper,
}

/// What a probe finds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    /// The best move's index in the position's legal moves as generated (before ordering).
    pub best: Option<usize>,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

/// One stored entry in 16 bytes, so that a bucket of two is half a cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Slot {
    key: u64,
    score: i16,
    /// Plies searched, saturated at `i8::MAX` (a deeper search stored as shallower is only
    /// used less); searches never reach below `i8::MIN` (`MAX_PLY` bounds their plies).
    depth: i8,
    /// The best move's index, or [`NO_MOVE`].
    best: u8,
    /// The search's generation above two bits of bound ([`EMPTY`] for an empty slot).
    tag: u32,
}

const NO_MOVE: u8 = u8::MAX;
/// The bound bits of a slot that holds nothing.
const EMPTY: u32 = 3;
const BOUND_BITS: u32 = 2;
/// Generations wrap within the tag's upper 30 bits.
const GENERATION_MASK: u32 = u32::MAX >> BOUND_BITS;
/// Slots of one cache line: the table's first slot starts one.
const LINE_SLOTS: usize = 64 / std::mem::size_of::<Slot>();

const _: () = assert!(std::mem::size_of::<Slot>() == 16);

impl Slot {
    const EMPTY: Slot = Slot { key: 0, score: 0, depth: 0, best: NO_MOVE, tag: EMPTY };

    fn is_empty(&self) -> bool {
        self.tag & EMPTY == EMPTY
    }

    fn generation(&self) -> u32 {
        self.tag >> BOUND_BITS
    }

    fn entry(&self) -> Entry {
        let bound = match self.tag & EMPTY {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        };
        let best = (self.best != NO_MOVE).then_some(self.best as usize);
        Entry { best, score: self.score.into(), depth: self.depth.into(), bound }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Table {
    /// `ways` slots a bucket from `first`: for two, the depth-preferred one, then the
    /// always-replaced one. The slots before `first` only align the buckets to cache lines.
    slots: Vec<Slot>,
    first: usize,
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
        let buckets = ((1usize << bits) / ways).max(1);
        let slots = vec![Slot::EMPTY; ways * buckets + LINE_SLOTS - 1];
        let misaligned = slots.as_ptr() as usize % 64 / std::mem::size_of::<Slot>();
        let first = (LINE_SLOTS - misaligned) % LINE_SLOTS;
        Table { slots, first, ways, mask: buckets as u64 - 1, generation: 0, keep }
    }

    /// The table's size: `2^bits` entries.
    pub fn bits(&self) -> u8 {
        (self.ways * (self.mask as usize + 1)).trailing_zeros() as u8
    }

    /// Starts a new search: a forgetting table forgets every entry (in O(1)); a keeping one
    /// marks the entries so far as old, to be replaced first.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1) & GENERATION_MASK;
    }

    /// The slots of `key`'s bucket.
    fn bucket(&self, key: u64) -> std::ops::Range<usize> {
        let first = self.first + self.ways * (key & self.mask) as usize;
        first..first + self.ways
    }

    /// Asks the CPU to bring `key`'s bucket into its cache, ahead of a probe.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot: *const Slot = &self.slots[self.bucket(key).start];
            // SAFETY: a prefetch reads nothing and cannot fault; the address is in the table.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast()) };
        }
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[self.bucket(key)]
            .iter()
            .find(|s| {
                !s.is_empty() && s.key == key && (self.keep || s.generation() == self.generation)
            })
            .map(Slot::entry)
    }

    /// Stores a search's result: its score (within `i16`: scores are hundredths of a man or
    /// near `WIN`), the plies searched, the bound and the best move's index in the position's
    /// legal moves as generated.
    pub fn store(&mut self, key: u64, best: Option<usize>, score: i32, depth: i32, bound: Bound) {
        debug_assert!(i16::try_from(score).is_ok(), "a table score fits 16 bits: {score}");
        let generation = self.generation;
        let first = self.bucket(key).start;
        let bound_bits = match bound {
            Bound::Exact => 0,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        let slot = Slot {
            key,
            score: score as i16,
            depth: depth.clamp(i8::MIN.into(), i8::MAX.into()) as i8,
            best: best
                .and_then(|i| u8::try_from(i).ok())
                .filter(|&i| i != NO_MOVE)
                .unwrap_or(NO_MOVE),
            tag: generation << BOUND_BITS | bound_bits,
        };
        let deep = self.slots[first];
        let deep_slot_yields = deep.is_empty()
            || deep.key == key
            || i32::from(deep.depth) <= depth
            || deep.generation() != generation;
        let at = if self.ways == 1 || deep_slot_yields { first } else { first + 1 };
        self.slots[at] = slot;
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

    #[test]
    fn an_entry_keeps_its_move_index_score_depth_and_bound_in_16_bytes() {
        let mut table = Table::new(6, true);
        let win = crate::alphabeta::WIN - 3;
        table.store(0xabc, Some(7), -win, 40, Bound::Lower);
        let entry = table.probe(0xabc).expect("stored");
        assert_eq!((entry.best, entry.score, entry.depth), (Some(7), -win, 40));
        assert_eq!(entry.bound, Bound::Lower);
        // A depth beyond a byte is kept as the deepest a byte holds: used less, never wrongly.
        table.store(0xdef, None, 12, 300, Bound::Exact);
        let entry = table.probe(0xdef).expect("stored");
        assert_eq!((entry.best, entry.depth), (None, i8::MAX.into()));
        // Every bucket lies in one cache line.
        let first: *const Slot = &table.slots[table.bucket(0).start];
        assert_eq!(first as usize % 64, 0);
    }
}
