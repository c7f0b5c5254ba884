//! Transposition table for the alpha-beta engine, keyed by Zobrist hash. A table that forgets
//! (the classic engine's) has one entry a slot, always replaced, and ignores the entries of
//! earlier searches, so a search does not depend on the ones before it. One that keeps them
//! serves the next move's search with this one's results, in buckets of two entries: one kept
//! for the deepest search (replaced by a deeper or as deep one, or by any once it is from an
//! earlier search), one always replaced.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU32, AtomicU64};

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

/// One stored entry: 16 bytes, so that a bucket of two is half a cache line.
#[derive(Clone, Copy, Debug)]
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
const LINE_SLOTS: usize = 64 / std::mem::size_of::<Cell>();

/// A slot as threads share it: the key xor the data, and the data (score, depth, move, tag in
/// one word). A probe that meets a slot another thread is writing finds the key wrong and the
/// slot unused, never a mix of two entries (the lockless hashing of Hyatt and Mann).
type Cell = [AtomicU64; 2];

const _: () = assert!(std::mem::size_of::<Cell>() == 16);

impl Slot {
    const EMPTY: Slot = Slot { key: 0, score: 0, depth: 0, best: NO_MOVE, tag: EMPTY };

    fn is_empty(&self) -> bool {
        self.tag & EMPTY == EMPTY
    }

    fn generation(&self) -> u32 {
        self.tag >> BOUND_BITS
    }

    fn data(&self) -> u64 {
        u64::from(self.score as u16)
            | u64::from(self.depth as u8) << 16
            | u64::from(self.best) << 24
            | u64::from(self.tag) << 32
    }

    /// The slot in `cell`; an empty one where the key does not match its data (a cell being
    /// written).
    fn read(cell: &Cell) -> Slot {
        let (checked, data) = (cell[0].load(Relaxed), cell[1].load(Relaxed));
        let slot = Slot {
            key: checked ^ data,
            score: data as u16 as i16,
            depth: (data >> 16) as u8 as i8,
            best: (data >> 24) as u8,
            tag: (data >> 32) as u32,
        };
        if slot.is_empty() {
            Slot::EMPTY
        } else {
            slot
        }
    }

    fn write(&self, cell: &Cell) {
        let data = self.data();
        cell[0].store(self.key ^ data, Relaxed);
        cell[1].store(data, Relaxed);
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

/// The table, shared by the threads of one search ([`Table::store`] takes `&self`).
#[derive(Debug)]
pub(crate) struct Table {
    /// `ways` slots a bucket from `first`: for two, the depth-preferred one, then the
    /// always-replaced one. The slots before `first` only align the buckets to cache lines.
    cells: Vec<Cell>,
    first: usize,
    ways: usize,
    /// Buckets less one (their count is a power of two).
    mask: u64,
    generation: AtomicU32,
    /// Whether entries of earlier searches are still found.
    keep: bool,
}

/// Bytes a table of `2^bits` entries holds at most (either way it keeps entries), with the
/// slots that align its buckets to cache lines.
pub(crate) fn table_bytes(bits: u8) -> u64 {
    let cells = (1u64 << bits).max(2) + LINE_SLOTS as u64 - 1;
    cells * std::mem::size_of::<Cell>() as u64
}

impl Table {
    /// A table of `2^bits` entries (at least one bucket) that keeps or forgets its entries
    /// between searches.
    pub fn new(bits: u8, keep: bool) -> Table {
        let ways = if keep { 2 } else { 1 };
        let buckets = ((1usize << bits) / ways).max(1);
        let empty = Slot::EMPTY.data();
        let cells: Vec<Cell> = (0..ways * buckets + LINE_SLOTS - 1)
            .map(|_| [AtomicU64::new(empty), AtomicU64::new(empty)])
            .collect();
        let misaligned = cells.as_ptr() as usize % 64 / std::mem::size_of::<Cell>();
        let first = (LINE_SLOTS - misaligned) % LINE_SLOTS;
        let mask = buckets as u64 - 1;
        Table { cells, first, ways, mask, generation: AtomicU32::new(0), keep }
    }

    /// The table's size: `2^bits` entries.
    pub fn bits(&self) -> u8 {
        (self.ways * (self.mask as usize + 1)).trailing_zeros() as u8
    }

    /// Starts a new search: a forgetting table forgets every entry (in O(1)); a keeping one
    /// marks the entries so far as old, to be replaced first.
    pub fn new_search(&self) {
        let next = self.generation.load(Relaxed).wrapping_add(1) & GENERATION_MASK;
        self.generation.store(next, Relaxed);
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
            let cell: *const Cell = &self.cells[self.bucket(key).start];
            // SAFETY: a prefetch reads nothing and cannot fault; the address is in the table.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(cell.cast()) };
        }
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        let generation = self.generation.load(Relaxed);
        self.cells[self.bucket(key)]
            .iter()
            .map(Slot::read)
            .find(|s| !s.is_empty() && s.key == key && (self.keep || s.generation() == generation))
            .map(|s| s.entry())
    }

    /// Stores a search's result: its score (within `i16`: scores are hundredths of a man or
    /// near `WIN`), the plies searched, the bound and the best move's index in the position's
    /// legal moves as generated.
    pub fn store(&self, key: u64, best: Option<usize>, score: i32, depth: i32, bound: Bound) {
        debug_assert!(i16::try_from(score).is_ok(), "a table score fits 16 bits: {score}");
        let generation = self.generation.load(Relaxed);
        let first = self.bucket(key).start;
        let bound_bits = match bound {
            Bound::Exact => 0,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        let best = best.and_then(|i| u8::try_from(i).ok()).filter(|&i| i != NO_MOVE);
        let slot = Slot {
            key,
            score: score as i16,
            depth: depth.clamp(i8::MIN.into(), i8::MAX.into()) as i8,
            best: best.unwrap_or(NO_MOVE),
            tag: generation << BOUND_BITS | bound_bits,
        };
        let deep_slot_yields = || {
            let deep = Slot::read(&self.cells[first]);
            deep.is_empty()
                || deep.key == key
                || i32::from(deep.depth) <= depth
                || deep.generation() != generation
        };
        let at = if self.ways == 1 || deep_slot_yields() { first } else { first + 1 };
        slot.write(&self.cells[at]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deep_entry_survives_shallow_ones_of_its_bucket() {
        let table = Table::new(4, true);
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
        let kept = Table::new(4, true);
        let forgetting = Table::new(4, false);
        for table in [&kept, &forgetting] {
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
        let table = Table::new(6, true);
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
        let first: *const Cell = &table.cells[table.bucket(0).start];
        assert_eq!(first as usize % 64, 0);
    }

    #[test]
    fn threads_writing_at_once_never_make_an_entry_of_two() {
        // Each key's score and depth are functions of the key: a probe that returned a slot
        // torn between two writers would break them.
        let table = Table::new(8, true);
        let score_of = |key: u64| (key % 20_000) as i32 - 10_000;
        let depth_of = |key: u64| (key % 100) as i32;
        std::thread::scope(|scope| {
            for thread in 0..4u64 {
                let table = &table;
                scope.spawn(move || {
                    // Few keys, many writers to each slot.
                    let mut state = thread + 1;
                    let mut next_key = || {
                        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                        (state >> 52) + 1
                    };
                    let mut found = 0;
                    for _ in 0..200_000 {
                        let key = next_key();
                        table.store(key, Some(3), score_of(key), depth_of(key), Bound::Exact);
                        let probed = next_key();
                        if let Some(entry) = table.probe(probed) {
                            assert_eq!(
                                (entry.score, entry.depth),
                                (score_of(probed), depth_of(probed))
                            );
                            found += 1;
                        }
                    }
                    assert!(found > 1000, "the probes found entries: {found}");
                });
            }
        });
    }
}
