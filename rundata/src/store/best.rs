//! The best-net pointer on a store, one scheme for both backends: one immutable object per
//! generation, `best/gen-000003.json`, written only if absent, so that it is never torn and two
//! evaluators never both promote for one generation. Readers take the newest that parses; a run
//! of the old layout, with only `best.json`, still reads.

use super::{Created, Problem, Store, StoreError};
use crate::BestNet;

/// The folder of the per-generation pointers.
const POINTERS: &str = "best";
/// The single pointer of the old layout (see [`crate::RunDir::best_file`]).
const LEGACY: &str = "best.json";

/// What [`Store::promote`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Promotion {
    /// The net is now the run's best.
    Promoted,
    /// Another net was promoted for this generation first.
    AlreadyTaken {
        /// That net's pointer.
        by: BestNet,
    },
}

impl Store {
    /// Makes `best` the run's best net for generation `best.generation` (the caller's choice,
    /// normally the current best's plus one), unless a net was already promoted for it. A request
    /// retried after its first try went through finds its own pointer, and counts as promoted;
    /// so does a promotion of the same net by the same process ([`BestNet::promoted_by`]) made
    /// again later, e.g. after the store went away between the promotion and its record.
    pub fn promote(&self, best: &BestNet) -> Result<Promotion, StoreError> {
        let key = format!("{POINTERS}/gen-{:06}.json", best.generation);
        let json = serde_json::to_vec_pretty(best).expect("a BestNet always serialises");
        if self.create(&key, &json)? == Created::New {
            return Ok(Promotion::Promoted);
        }
        match self.pointer(&key)? {
            Some(by) if by == *best || same_promotion(&by, best) => Ok(Promotion::Promoted),
            Some(by) => Ok(Promotion::AlreadyTaken { by }),
            None => Err(self.context.error(
                format!("reading {key}"),
                Problem::BadPointer("it vanished after refusing to be replaced".into()),
            )),
        }
    }

    /// The run's best net: the highest generation's pointer that parses, else the old layout's
    /// `best.json`, else `None` when the run has none yet.
    pub fn best(&self) -> Result<Option<BestNet>, StoreError> {
        let mut pointers: Vec<(u32, String)> = self
            .list(POINTERS)?
            .into_iter()
            .filter_map(|key| Some((generation(&key)?, key)))
            .collect();
        pointers.sort_unstable_by(|a, b| b.cmp(a));
        for (generation, key) in pointers {
            match self.pointer(&key) {
                Ok(Some(best)) if best.generation == generation => return Ok(Some(best)),
                // Gone since the listing, or damaged by hand: the next one down.
                Ok(_) => {}
                Err(e) if matches!(e.problem(), Problem::BadPointer(_)) => {}
                Err(e) => return Err(e),
            }
        }
        self.pointer(LEGACY)
    }

    /// The pointer at `key`, or `None` when there is none.
    fn pointer(&self, key: &str) -> Result<Option<BestNet>, StoreError> {
        let Some(bytes) = self.get(key)? else { return Ok(None) };
        serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            self.context.error(format!("reading {key}"), Problem::BadPointer(e.to_string()))
        })
    }
}

/// Whether `a` and `b` promote the same net for the same generation, by the same process.
fn same_promotion(a: &BestNet, b: &BestNet) -> bool {
    a.promoted_by.is_some()
        && (&a.checkpoint, a.step, a.generation, &a.promoted_by)
            == (&b.checkpoint, b.step, b.generation, &b.promoted_by)
}

/// The generation a pointer's key names: `best/gen-000003.json` is generation 3.
fn generation(key: &str) -> Option<u32> {
    key.strip_prefix(POINTERS)?.strip_prefix("/gen-")?.strip_suffix(".json")?.parse().ok()
}
