//! Best-net pointers (`RUN/best/gen-NNNNNN.json`, written by other processes): a damaged newest
//! pointer is passed over for the one below it, never an error and never trusted.
#![no_main]

use checkers_zero_fuzz::{scratch, scratch_file};
use libfuzzer_sys::fuzz_target;
use rundata::{BestNet, RunDir, Store};
use std::sync::OnceLock;

/// The store of a run whose generation 1 has a sound pointer (as `RunDir::best` reads it).
fn store() -> &'static Store {
    static STORE: OnceLock<Store> = OnceLock::new();
    STORE.get_or_init(|| {
        let run = RunDir::create(scratch().join("run")).expect("a run folder");
        let first = BestNet {
            checkpoint: "nets/step-0000000100.safetensors".into(),
            step: 100,
            generation: 1,
            promoted_at: 1,
            promoted_by: None,
        };
        let text = serde_json::to_vec(&first).expect("a pointer serialises");
        scratch_file("run/best/gen-000001.json", &text);
        Store::open(run.root().to_str().expect("a UTF-8 path")).expect("the run's store")
    })
}

fuzz_target!(|data: &[u8]| {
    let store = store();
    scratch_file("run/best/gen-000002.json", data);
    let best = store.best().expect("a damaged pointer is passed over, not an error");
    let generation = best.expect("generation 1 stays readable").generation;
    assert!(generation == 1 || generation == 2, "generation {generation} from gen-000002.json");
    let parsed: Option<BestNet> = serde_json::from_slice(data).ok();
    assert_eq!(generation == 2, parsed.is_some_and(|p| p.generation == 2));
});
