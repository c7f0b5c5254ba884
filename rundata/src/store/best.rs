//! The best-net pointer on a store, one scheme for both backends: one immutable object per
//! generation, `best/gen-000003.json`, written only if absent, so that it is never torn and two
//! evaluators never both promote for one generation. Readers take the newest valid one; a run of
//! the old layout, with only `best.json`, still reads.
//!
//! A damaged pointer (one that does not parse, or names another generation than its key's) is
//! passed over with a warning, once per process: readers take the newest valid one below it, and
//! a promotion into its generation goes to the next free generation above it instead, so that
//! it never blocks the run.

use super::{Created, Problem, Store, StoreError};
use crate::layout::{BEST_POINTERS as POINTERS, LEGACY_BEST as LEGACY};
use crate::BestNet;
use std::path::Component;

/// What [`Store::promote`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Promotion {
    /// The net is now the run's best: its pointer as stored (its generation is above the one
    /// asked for when damaged pointers were in the way).
    Promoted(BestNet),
    /// Another net was promoted for this generation first.
    AlreadyTaken {
        /// That net's pointer.
        by: BestNet,
    },
}

impl Store {
    /// Makes `best` the run's best net for generation `best.generation` (the caller's choice,
    /// normally the current best's plus one), unless a net was already promoted for it; a
    /// damaged pointer there is passed over for the next generation up. A request retried after
    /// its first try went through finds its own pointer, and counts as promoted; so does a
    /// promotion of the same net by the same process ([`BestNet::promoted_by`]) made again later,
    /// e.g. after the store went away between the promotion and its record.
    pub fn promote(&self, best: &BestNet) -> Result<Promotion, StoreError> {
        let mut best = best.clone();
        loop {
            let key = pointer_key(best.generation);
            let json = serde_json::to_vec_pretty(&best).expect("a BestNet always serialises");
            if self.create(&key, &json)? == Created::New {
                return Ok(Promotion::Promoted(best));
            }
            match self.read_pointer(&key, best.generation)? {
                Pointer::Valid(by) if by == best || same_promotion(&by, &best) => {
                    return Ok(Promotion::Promoted(by))
                }
                Pointer::Valid(by) => return Ok(Promotion::AlreadyTaken { by }),
                Pointer::Missing => {
                    return Err(self.context.error(
                        format!("reading {key}"),
                        Problem::BadPointer("it vanished after refusing to be replaced".into()),
                    ))
                }
                Pointer::Damaged => {}
            }
            best.generation = best.generation.checked_add(1).ok_or_else(|| {
                self.context.error(
                    format!("creating {key}"),
                    Problem::BadPointer("no generation is left above it".into()),
                )
            })?;
        }
    }

    /// The run's best net: the highest generation's valid pointer, else the old layout's
    /// `best.json`, else `None` when the run has none yet. Damaged pointers are passed over.
    pub fn best(&self) -> Result<Option<BestNet>, StoreError> {
        let mut pointers: Vec<(u32, String)> = self
            .list(POINTERS)?
            .into_iter()
            .filter_map(|key| Some((generation(&key)?, key)))
            .collect();
        pointers.sort_unstable_by(|a, b| b.cmp(a));
        for (generation, key) in pointers {
            // Damaged, or gone since the listing: the next one down.
            if let Pointer::Valid(best) = self.read_pointer(&key, generation)? {
                return Ok(Some(best));
            }
        }
        self.pointer(LEGACY)
    }

    /// The pointer of `generation` at `key`; a damaged one is reported in a warning, once per
    /// process and key.
    fn read_pointer(&self, key: &str, generation: u32) -> Result<Pointer, StoreError> {
        let damage = match self.pointer(key) {
            Ok(Some(best)) if best.generation == generation => return Ok(Pointer::Valid(best)),
            Ok(None) => return Ok(Pointer::Missing),
            Ok(Some(best)) => self.context.error(
                format!("reading {key}"),
                Problem::BadPointer(format!("it names generation {}", best.generation)),
            ),
            Err(e) if matches!(e.problem(), Problem::BadPointer(_)) => e,
            Err(e) => return Err(e),
        };
        support::warn_once(&format!(
            "{damage}: passed over (the best net is the newest valid pointer; promotions go \
             above this one)"
        ));
        Ok(Pointer::Damaged)
    }

    /// The pointer at `key`, or `None` when there is none. A pointer whose checkpoint is not a
    /// path inside the run (absolute, or climbing out with `..`) is damaged: a run only promotes
    /// its own nets, and a planted pointer must not make it load any file the process can read.
    fn pointer(&self, key: &str) -> Result<Option<BestNet>, StoreError> {
        let Some(bytes) = self.get(key)? else { return Ok(None) };
        let bad =
            |why: String| self.context.error(format!("reading {key}"), Problem::BadPointer(why));
        let best: BestNet = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
        let inside = best.checkpoint.components().all(|c| matches!(c, Component::Normal(_)));
        if !inside || best.checkpoint.as_os_str().is_empty() {
            return Err(bad(format!(
                "its checkpoint `{}` is not a path inside the run folder",
                support::shown(&best.checkpoint.display().to_string())
            )));
        }
        Ok(Some(best))
    }
}

/// What a pointer's key holds.
enum Pointer {
    /// A pointer of the key's generation.
    Valid(BestNet),
    /// Something that does not parse, or a pointer naming another generation.
    Damaged,
    /// Nothing.
    Missing,
}

/// Whether `a` and `b` promote the same net for the same generation, by the same process.
fn same_promotion(a: &BestNet, b: &BestNet) -> bool {
    a.promoted_by.is_some()
        && (&a.checkpoint, a.step, a.generation, &a.promoted_by)
            == (&b.checkpoint, b.step, b.generation, &b.promoted_by)
}

/// The key of generation `generation`'s pointer: `best/gen-000003.json`.
fn pointer_key(generation: u32) -> String {
    format!("{POINTERS}/gen-{generation:06}.json")
}

/// The generation a pointer's key names: `best/gen-000003.json` is generation 3.
fn generation(key: &str) -> Option<u32> {
    key.strip_prefix(POINTERS)?.strip_prefix("/gen-")?.strip_suffix(".json")?.parse().ok()
}
