//! The retrograde solver of one pair of slices (a material and its mirror, whose quiet moves lead
//! into each other), given every slice that captures and crownings lead to.
//!
//! 1. Init, every position in parallel: a position with a capture (captures are compulsory) or
//!    without quiet moves inside the pair is valued at once from the tables already built. Any
//!    other gets a counter of its in-pair successors and a note of its best exits (crownings):
//!    an exit to a lost position makes it a win at that distance at the latest ("pending"), an
//!    exit to a draw makes it a draw at least, exits to won positions set the least distance of a
//!    loss.
//! 2. Propagation by distance, level 0, 1, 2, ...: every position decided at level `d` is taken
//!    back with un-moves (quiet moves of the side that just moved, where that side had no
//!    capture). Losses make their predecessors wins at `d + 1`; wins count their predecessors'
//!    counters down, and a predecessor whose last in-pair successor turned out won is lost, at
//!    `d + 1` or at its exit distance if that is longer. Wins have odd and losses even
//!    distances, so one level only ever does one of the two, and the parallel updates cannot
//!    race with each other in a harmful way.
//! 3. Whatever is left undecided is a draw: neither side can force the end of the game.
//!
//! Distance is plies to the end of the game with the winner hurrying and the loser holding out;
//! exits add the distance stored in the slice they lead to.

use crate::board::Board;
use crate::index::Layout;
use crate::material::Pair;
use crate::probe::Tables;
use crate::Wdl;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU16, AtomicU8, Ordering::Relaxed};

/// Not decided; `dist` holds the least loss distance its exits allow (0 without exits).
const UNKNOWN: u8 = 0;
/// Not decided, but an exit draws: a draw at least.
const AT_LEAST_DRAW: u8 = 1;
/// An exit wins at distance `dist`; decided at that level unless an earlier one wins sooner.
const PENDING_WIN: u8 = 2;
/// Decided won at distance `dist`.
const WIN: u8 = 3;
/// Decided lost at distance `dist`.
const LOSS: u8 = 4;
/// Decided drawn at init (all its moves leave the pair and none wins).
const DRAW: u8 = 5;

/// Positions handled by one task.
const BLOCK: usize = 1 << 12;

/// The solved values of one slice.
pub(crate) struct Solved {
    /// Win/draw/loss, 2 bits per position, 4 to a byte, the first in the low bits.
    pub wdl: Vec<u8>,
    /// Plies to the end per position (0 for draws), `dist_bits / 8` bytes each, little-endian.
    pub dist: Vec<u8>,
    /// 8 when every distance fits a byte, else 16.
    pub dist_bits: u32,
    /// Positions in the slice.
    pub positions: u64,
    /// Wins, draws, losses.
    pub counts: [u64; 3],
    /// The longest distance.
    pub max_distance: u16,
}

/// The values of the successors seen so far, from the mover's side.
#[derive(Clone, Copy, Default)]
struct Best {
    /// Shortest win: 1 + the least distance of a lost successor.
    win: Option<u16>,
    /// Some successor is drawn.
    draw: bool,
    /// Longest loss: 1 + the largest distance of a won successor.
    loss: u16,
}

impl Best {
    /// Adds a successor of value `wdl` (for its side to move) at distance `d`.
    #[inline]
    fn add(&mut self, wdl: Wdl, d: u16) {
        match wdl {
            Wdl::Loss => self.win = Some(self.win.map_or(d + 1, |w| w.min(d + 1))),
            Wdl::Draw => self.draw = true,
            Wdl::Win => self.loss = self.loss.max(d + 1),
        }
    }

    /// The value when these were all the successors (none: lost at once).
    #[inline]
    fn value(self) -> (u8, u16) {
        match self.win {
            Some(w) => (WIN, w),
            None if self.draw => (DRAW, 0),
            None => (LOSS, self.loss),
        }
    }
}

/// The build state of one slice of the pair.
struct Work {
    layout: Layout,
    state: Vec<AtomicU8>,
    /// In-pair successors not yet known to be won.
    count: Vec<AtomicU8>,
    dist: Vec<AtomicU16>,
}

impl Work {
    fn new(layout: Layout) -> Work {
        let n = layout.size() as usize;
        Work {
            layout,
            state: (0..n).map(|_| AtomicU8::new(UNKNOWN)).collect(),
            count: (0..n).map(|_| AtomicU8::new(0)).collect(),
            dist: (0..n).map(|_| AtomicU16::new(0)).collect(),
        }
    }
}

/// A position to take back at level `.0`: slice `.1` of the pair, index `.2`.
type Entry = (u16, u8, u32);

/// The value and distance of `b` (Black to move) from the tables already built. Panics when the
/// slice is missing: the build order puts every capture and crowning target first.
#[inline]
fn known(tables: &Tables, b: &Board) -> (Wdl, u16) {
    let (wdl, d) = tables.probe_board(b).unwrap_or_else(|| {
        panic!("egdb: slice {} must be built first", b.material().name());
    });
    (wdl, d.unwrap_or(0))
}

/// Solves both slices of `pair`; `tables` must hold every slice its captures and crownings
/// lead to. The results come in the order of `pair.members`.
pub(crate) fn solve_pair(pair: &Pair, tables: &Tables) -> Vec<Solved> {
    let work: Vec<Work> = pair.members.iter().map(|&m| Work::new(Layout::new(m))).collect();
    // The slice quiet moves from slice `w` lead to (and un-moves come from).
    let other = |w: usize| if work.len() == 1 { 0 } else { 1 - w };
    let mut buckets: Vec<[Vec<u32>; 2]> = Vec::new();
    let schedule = |buckets: &mut Vec<[Vec<u32>; 2]>, entries: Vec<Vec<Entry>>| {
        for (level, w, i) in entries.into_iter().flatten() {
            let level = level as usize;
            if buckets.len() <= level {
                buckets.resize_with(level + 1, Default::default);
            }
            buckets[level][w as usize].push(i);
        }
    };

    for (w, slice) in work.iter().enumerate() {
        let size = slice.layout.size() as usize;
        let entries: Vec<Vec<Entry>> = (0..size.div_ceil(BLOCK))
            .into_par_iter()
            .map(|block| {
                let mut out = Vec::new();
                for i in block * BLOCK..((block + 1) * BLOCK).min(size) {
                    let b = slice.layout.unrank(i as u64);
                    let (state, count, dist) = init(tables, b);
                    slice.state[i].store(state, Relaxed);
                    slice.count[i].store(count, Relaxed);
                    slice.dist[i].store(dist, Relaxed);
                    if matches!(state, WIN | LOSS | PENDING_WIN) {
                        out.push((dist, w as u8, i as u32));
                    }
                }
                out
            })
            .collect();
        schedule(&mut buckets, entries);
    }

    let mut level = 0;
    while level < buckets.len() {
        let lists = std::mem::take(&mut buckets[level]);
        let l = level as u16;
        let mut produced = Vec::new();
        for (w, list) in lists.iter().enumerate().take(work.len()) {
            let from = &work[w];
            let to = &work[other(w)];
            let t = other(w) as u8;
            produced.par_extend(list.par_chunks(BLOCK).map(|chunk| {
                let mut out = Vec::new();
                for &i in chunk {
                    let i = i as usize;
                    let state = match from.state[i].load(Relaxed) {
                        PENDING_WIN => {
                            if from.state[i]
                                .compare_exchange(PENDING_WIN, WIN, Relaxed, Relaxed)
                                .is_err()
                            {
                                continue;
                            }
                            WIN
                        }
                        s @ (WIN | LOSS) if from.dist[i].load(Relaxed) == l => s,
                        _ => continue,
                    };
                    let b = from.layout.unrank(i as u64);
                    b.for_each_predecessor(|q| {
                        let j = to.layout.rank(&q) as usize;
                        if state == LOSS {
                            if let Some(entry) = win_by(to, j, l + 1) {
                                out.push((entry, t, j as u32));
                            }
                        } else if to.state[j].load(Relaxed) == UNKNOWN
                            && to.count[j].fetch_sub(1, Relaxed) == 1
                        {
                            let d = to.dist[j].load(Relaxed).max(l + 1);
                            to.dist[j].store(d, Relaxed);
                            to.state[j].store(LOSS, Relaxed);
                            out.push((d, t, j as u32));
                        }
                    });
                }
                out
            }));
        }
        schedule(&mut buckets, produced);
        level += 1;
    }

    work.into_iter().map(finish).collect()
}

/// Marks position `j` of `to` won at distance `d` (it has a lost successor at `d - 1`) unless it
/// is decided or will be at `d` or sooner; the distance to schedule it at when it was marked.
#[inline]
fn win_by(to: &Work, j: usize, d: u16) -> Option<u16> {
    loop {
        let s = to.state[j].load(Relaxed);
        let open = match s {
            UNKNOWN | AT_LEAST_DRAW => true,
            PENDING_WIN => to.dist[j].load(Relaxed) > d,
            _ => false,
        };
        if !open {
            return None;
        }
        if to.state[j].compare_exchange(s, WIN, Relaxed, Relaxed).is_ok() {
            to.dist[j].store(d, Relaxed);
            return Some(d);
        }
    }
}

/// The initial state, in-pair successor count and distance of board `b`.
#[inline]
fn init(tables: &Tables, b: Board) -> (u8, u8, u16) {
    let mut best = Best::default();
    if b.black_can_capture() {
        let pos = b.to_position();
        pos.for_each_legal_move(|mv| {
            let (wdl, d) = known(tables, &Board::from_position(&pos.play_unchecked(mv)));
            best.add(wdl, d);
        });
        let (state, d) = best.value();
        return (state, 0, d);
    }
    b.for_each_crowning_successor(|next| {
        let (wdl, d) = known(tables, &next);
        best.add(wdl, d);
    });
    let count = b.count_quiet_successors();
    if count == 0 {
        let (state, d) = best.value();
        return (state, 0, d);
    }
    let count = u8::try_from(count).expect("at most 4 steps for each of 6 pieces");
    match best {
        Best { win: Some(w), .. } => (PENDING_WIN, count, w),
        Best { draw: true, .. } => (AT_LEAST_DRAW, count, 0),
        Best { loss, .. } => (UNKNOWN, count, loss),
    }
}

/// The packed values, distances and counts of a solved slice.
fn finish(work: Work) -> Solved {
    let n = work.layout.size() as usize;
    let decided = |i: usize| matches!(work.state[i].load(Relaxed), WIN | LOSS);
    let max_distance = (0..n)
        .into_par_iter()
        .with_min_len(BLOCK)
        .map(|i| if decided(i) { work.dist[i].load(Relaxed) } else { 0 })
        .max()
        .unwrap_or(0);
    let width = if max_distance <= u16::from(u8::MAX) { 1 } else { 2 };
    let mut wdl = vec![0u8; n.div_ceil(4)];
    let mut dist = vec![0u8; n * width];
    let counts: Vec<[u64; 3]> = wdl
        .par_chunks_mut(BLOCK / 4)
        .zip(dist.par_chunks_mut(BLOCK * width))
        .enumerate()
        .map(|(block, (bytes, dists))| {
            let mut counts = [0u64; 3];
            for (k, d) in dists.chunks_mut(width).enumerate() {
                let i = block * BLOCK + k;
                let (value, distance) = match work.state[i].load(Relaxed) {
                    WIN => (Wdl::Win, work.dist[i].load(Relaxed)),
                    LOSS => (Wdl::Loss, work.dist[i].load(Relaxed)),
                    _ => (Wdl::Draw, 0),
                };
                counts[2 - value.code() as usize] += 1;
                d.copy_from_slice(&distance.to_le_bytes()[..width]);
                bytes[k / 4] |= value.code() << (2 * (k % 4));
            }
            counts
        })
        .collect();
    let counts = counts.iter().fold([0u64; 3], |a, c| [a[0] + c[0], a[1] + c[1], a[2] + c[2]]);
    Solved { wdl, dist, dist_bits: 8 * width as u32, positions: n as u64, counts, max_distance }
}
