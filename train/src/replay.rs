//! The replay window: the most recent positions of the run, kept as compact encoded records
//! (see `shard::record`; about 27 + 3 x legal-steps bytes and a 4-byte offset per
//! position), fed shard by shard, sampled uniformly.
//!
//! Positions get a global index in the order their shards were added. The window covers the last
//! `WindowConfig::size(seen)` of them, or fewer when the positions before were lost (a run resumed
//! without its shards); shards wholly before it are dropped.

use runconfig::WindowConfig;
use shard::{read_shard, scan_shards, RecordView, Records, ShardError};
use std::collections::{HashSet, VecDeque};
use std::io::ErrorKind::NotFound;
use std::path::{Path, PathBuf};
use support::SplitMix64;

#[derive(Debug)]
struct Loaded {
    /// Global index of the shard's first position.
    start: u64,
    records: Records,
}

/// The replay window and the shards it has read.
#[derive(Debug)]
pub struct ReplayBuffer {
    window: WindowConfig,
    shards: VecDeque<Loaded>,
    /// Positions ever added.
    seen: u64,
    /// File names of the shards added, in order (the damaged ones are only in `skipped`).
    added: Vec<String>,
    /// File names of every shard looked at (added or damaged), so none is read twice.
    known: HashSet<String>,
    /// Positions the window must hold before training goes on, after a resume that lost part
    /// of it (0 otherwise): see [`ReplayBuffer::refill_target`].
    refill: usize,
}

/// What one refresh did.
#[derive(Debug, Default)]
pub struct Refresh {
    /// Shards added to the window.
    pub shards: usize,
    /// Positions they hold.
    pub positions: u64,
    /// Damaged shards, each naming its file; they are not read again.
    pub damaged: Vec<ShardError>,
    /// Shards of the window being restored that are gone (a run moved or copied without them),
    /// newest first; they are not looked for again.
    pub missing: Vec<PathBuf>,
    /// The widening `train.grow` asked for once these positions were read, which the trainer
    /// made (see [`crate::Trainer::refresh`]).
    pub grown: Option<Growth>,
}

/// A widening of the trained net's accumulator (`train.grow`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Growth {
    /// The accumulator's width before.
    pub from: usize,
    /// Its width after.
    pub to: usize,
    /// Self-play positions read when it grew.
    pub positions: u64,
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

impl ReplayBuffer {
    /// An empty buffer whose window follows `window`.
    pub fn new(window: WindowConfig) -> ReplayBuffer {
        ReplayBuffer {
            window,
            shards: VecDeque::new(),
            seen: 0,
            added: Vec::new(),
            known: HashSet::new(),
            refill: 0,
        }
    }

    /// Reads the shards of `dir` not seen before, oldest first.
    pub fn refresh(&mut self, dir: &Path) -> Result<Refresh, ShardError> {
        let known = &self.known;
        let report = scan_shards(dir, |p| known.contains(&file_name(p)))?;
        let mut refresh = Refresh { damaged: report.damaged, ..Refresh::default() };
        for err in &refresh.damaged {
            self.known.insert(err.path().map(file_name).unwrap_or_default());
        }
        for shard in report.shards {
            refresh.shards += 1;
            refresh.positions += shard.records.len() as u64;
            self.add(file_name(&shard.path), shard.records);
        }
        Ok(refresh)
    }

    /// Rebuilds the window as it was at a checkpoint (resuming): `names` are the shards added
    /// before it, oldest first, and `positions_read` the positions read then, where the state
    /// kept it. With the count, only the newest shards that the window covers are read (newest
    /// first), and gone ones are passed over: the count still sets the window's size, the
    /// learning-rate schedule and the reuse cap, and the window refills from new self-play.
    /// Without it (a state of an older build) every shard is read again in order, and the count
    /// is what they hold. Damaged shards are reported and skipped either way. A window left
    /// short by them sets [`ReplayBuffer::refill_target`].
    pub fn restore(
        &mut self,
        dir: &Path,
        names: &[String],
        positions_read: Option<u64>,
    ) -> Refresh {
        self.known.extend(names.iter().cloned());
        let refresh = match positions_read {
            Some(read) => self.restore_newest(dir, names, read),
            None => self.restore_in_order(dir, names),
        };
        let wanted = self.window.size(self.seen);
        if self.len() < wanted {
            self.refill = wanted.min(self.window.min);
        }
        refresh
    }

    /// Positions the window must hold before training goes on: after a resume that left the
    /// window short (its shards gone or damaged), its size or `window.min`, whichever is
    /// smaller, so that the first steps do not draw many times on the few positions that
    /// arrive first; 0 otherwise.
    pub fn refill_target(&self) -> usize {
        self.refill
    }

    /// Reads the newest of the shards `names` back to the window's size at `read` positions
    /// (see [`ReplayBuffer::restore`]).
    fn restore_newest(&mut self, dir: &Path, names: &[String], read: u64) -> Refresh {
        let mut refresh = Refresh::default();
        let wanted = self.window.size(read) as u64;
        let mut end = read;
        let mut lost = HashSet::new();
        for name in names.iter().rev() {
            if read - end >= wanted {
                break;
            }
            match read_shard(&dir.join(name)) {
                Ok(shard) => {
                    let positions = shard.records.len() as u64;
                    let Some(start) = end.checked_sub(positions) else { break };
                    refresh.shards += 1;
                    refresh.positions += positions;
                    self.shards.push_front(Loaded { start, records: shard.records });
                    end = start;
                }
                Err(err) => {
                    lost.insert(name.as_str());
                    match err {
                        ShardError::Io { path, source } if source.kind() == NotFound => {
                            refresh.missing.push(path)
                        }
                        err => refresh.damaged.push(err),
                    }
                }
            }
        }
        self.seen = read;
        self.added = names.iter().filter(|n| !lost.contains(n.as_str())).cloned().collect();
        refresh
    }

    /// Re-reads the shards `names` of `dir` in the given order (a state without the count of
    /// positions read).
    fn restore_in_order(&mut self, dir: &Path, names: &[String]) -> Refresh {
        let mut refresh = Refresh::default();
        for name in names {
            match read_shard(&dir.join(name)) {
                Ok(shard) => {
                    refresh.shards += 1;
                    refresh.positions += shard.records.len() as u64;
                    self.add(name.clone(), shard.records);
                }
                Err(err) => refresh.damaged.push(err),
            }
        }
        refresh
    }

    /// Adds a shard's records as the newest positions and drops what falls out of the window.
    pub fn add(&mut self, name: String, records: Records) {
        self.known.insert(name.clone());
        self.added.push(name);
        let start = self.seen;
        self.seen += records.len() as u64;
        self.shards.push_back(Loaded { start, records });
        let window_start = self.seen - self.len() as u64;
        while self.shards.front().is_some_and(|s| s.start + s.records.len() as u64 <= window_start)
        {
            self.shards.pop_front();
        }
    }

    /// Positions in the window: `WindowConfig::size(seen)`, or the positions held when fewer
    /// (those before them were lost).
    pub fn len(&self) -> usize {
        let oldest = self.shards.front().map_or(self.seen, |s| s.start);
        self.window.size(self.seen).min((self.seen - oldest) as usize)
    }

    /// A buffer with the same window and nothing read.
    #[cfg(test)]
    fn clone_empty(&self) -> ReplayBuffer {
        ReplayBuffer::new(self.window.clone())
    }

    /// Whether the window holds no position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Positions ever added.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// File names of the shards added, in order.
    pub fn added(&self) -> &[String] {
        &self.added
    }

    /// A position drawn uniformly from the window, with the opponent's reply to it when its
    /// shard knows it. Panics when the window is empty.
    pub fn sample(&self, rng: &mut SplitMix64) -> (RecordView<'_>, Option<RecordView<'_>>) {
        let len = self.len() as u64;
        assert!(len > 0, "sampling an empty replay window");
        let global = self.seen - len + rng.below(len);
        let i = self.shards.partition_point(|s| s.start + s.records.len() as u64 <= global);
        let shard = &self.shards[i];
        let at = (global - shard.start) as usize;
        (shard.records.get(at), shard.records.reply(at))
    }

    /// Heap bytes of the records held (including positions of partly-outside shards).
    pub fn heap_bytes(&self) -> usize {
        self.shards.iter().map(|s| s.records.heap_bytes()).sum()
    }

    /// Positions held (the window, plus the older part of its oldest shard).
    pub fn held(&self) -> usize {
        self.shards.iter().map(|s| s.records.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use draughts::{DrawRules, Game, Position};
    use shard::Sample;

    /// A shard of `n` records whose `plies_to_end` count up from `first`.
    fn records(first: u16, n: u16) -> Records {
        let obs = Game::new(Position::start(), DrawRules::default()).observation();
        let samples: Vec<Sample> = (first..first + n)
            .map(|t| Sample {
                observation: obs,
                policy: vec![(9, 1.0)],
                search_value: 0.0,
                result: 0,
                plies_to_end: t,
                full_search: true,
                reply_after: None,
            })
            .collect();
        Records::parse(Records::encode_all(&samples).unwrap(), samples.len()).unwrap()
    }

    #[test]
    fn the_window_keeps_the_newest_positions_and_samples_them_uniformly() {
        let mut buffer =
            ReplayBuffer::new(WindowConfig { min: 100, max: 100, exponent: 1.0, growth: 0.0 });
        for k in 0..10 {
            buffer.add(format!("{k}.shard"), records(30 * k, 30));
        }
        assert_eq!((buffer.seen(), buffer.len()), (300, 100));
        assert_eq!(buffer.held(), 120, "shards wholly outside the window are dropped");
        let mut rng = SplitMix64::new(1);
        let mut counts = [0u32; 100];
        for _ in 0..50_000 {
            let tag = buffer.sample(&mut rng).0.plies_to_end();
            assert!((200..300).contains(&tag), "{tag} is outside the window");
            counts[tag as usize - 200] += 1;
        }
        assert!(counts.iter().all(|&c| (350..650).contains(&c)), "{counts:?}");
    }

    #[test]
    fn refresh_reads_each_new_shard_once_and_restore_rebuilds_the_order() {
        let dir = tempfile::tempdir().unwrap();
        let write = |first| {
            let samples: Vec<Sample> = records(first, 5).iter().map(|r| r.to_sample()).collect();
            shard::write_shard(dir.path(), &shard::ShardHeader::now(0, None), &samples).unwrap()
        };
        write(0);
        std::fs::write(dir.path().join("0-0-bad.shard"), b"junk").unwrap();
        let mut buffer = ReplayBuffer::new(WindowConfig::default());
        let first = buffer.refresh(dir.path()).unwrap();
        assert_eq!((first.shards, first.positions, first.damaged.len()), (1, 5, 1));
        write(5);
        let second = buffer.refresh(dir.path()).unwrap();
        assert_eq!((second.shards, second.positions, second.damaged.len()), (1, 5, 0));
        assert_eq!(buffer.seen(), 10);

        let mut again = ReplayBuffer::new(WindowConfig::default());
        let restored = again.restore(dir.path(), buffer.added(), None);
        assert_eq!((restored.shards, again.seen()), (2, 10));
        assert_eq!(
            again.refresh(dir.path()).unwrap().shards,
            0,
            "restored and damaged shards are known"
        );
        let mut rng = (SplitMix64::new(4), SplitMix64::new(4));
        for _ in 0..20 {
            assert_eq!(
                buffer.sample(&mut rng.0).0.plies_to_end(),
                again.sample(&mut rng.1).0.plies_to_end()
            );
        }
    }

    /// Ten shards of 30 positions written to `dir` (shard `k`'s `plies_to_end` run from 30k),
    /// and a buffer with a window of the last 100 that read them.
    fn ten_shards(dir: &Path) -> ReplayBuffer {
        let mut buffer =
            ReplayBuffer::new(WindowConfig { min: 100, max: 100, exponent: 1.0, growth: 0.0 });
        for k in 0..10 {
            let samples: Vec<Sample> = records(30 * k, 30).iter().map(|r| r.to_sample()).collect();
            let header = shard::ShardHeader::now(0, None);
            let path = shard::write_shard(dir, &header, &samples).unwrap();
            buffer.add(file_name(&path), records(30 * k, 30));
        }
        buffer
    }

    #[test]
    fn a_restore_with_the_count_reads_the_newest_shards_and_samples_as_before() {
        let dir = tempfile::tempdir().unwrap();
        let buffer = ten_shards(dir.path());
        let mut again = buffer.clone_empty();
        let restored = again.restore(dir.path(), buffer.added(), Some(buffer.seen()));
        assert_eq!((restored.shards, restored.positions), (4, 120), "the window's four shards");
        assert_eq!((again.seen(), again.len(), again.held()), (300, 100, 120));
        let mut rng = (SplitMix64::new(9), SplitMix64::new(9));
        for _ in 0..200 {
            let tags = |b: &ReplayBuffer, rng| b.sample(rng).0.plies_to_end();
            assert_eq!(tags(&buffer, &mut rng.0), tags(&again, &mut rng.1));
        }
    }

    #[test]
    fn a_run_without_its_shards_keeps_its_count_and_refills_its_window() {
        let dir = tempfile::tempdir().unwrap();
        let buffer = ten_shards(dir.path());
        let names = buffer.added().to_vec();
        // The two newest shards are gone: the window is filled from older ones.
        for name in &names[8..] {
            std::fs::remove_file(dir.path().join(name)).unwrap();
        }
        let mut again = buffer.clone_empty();
        let restored = again.restore(dir.path(), &names, Some(300));
        assert_eq!((restored.missing.len(), restored.damaged.len(), restored.shards), (2, 0, 4));
        assert_eq!((again.seen(), again.len()), (300, 100));
        assert_eq!(again.added(), &names[..8], "gone shards are not looked for again");
        assert_eq!(again.refill_target(), 0, "older shards fill the window: nothing to wait for");
        let mut rng = SplitMix64::new(3);
        for _ in 0..1000 {
            let tag = again.sample(&mut rng).0.plies_to_end();
            assert!((140..240).contains(&tag), "{tag}: not among the newest 100 left");
        }
        // Every shard gone: the count stays, the window is empty until new self-play lands.
        for name in &names[..8] {
            std::fs::remove_file(dir.path().join(name)).unwrap();
        }
        let mut bare = buffer.clone_empty();
        let restored = bare.restore(dir.path(), &names, Some(300));
        assert_eq!((restored.missing.len(), bare.seen(), bare.len()), (10, 300, 0));
        assert_eq!(bare.refill_target(), 100, "training waits for a full window again");
        bare.add("new.shard".into(), records(1000, 30));
        assert_eq!((bare.seen(), bare.len()), (330, 30));
    }
}
