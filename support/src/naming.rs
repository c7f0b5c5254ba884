//! Names unique across threads, processes and machines: for files many writers create in one
//! folder, and for telling one process's records from another's.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// A file name unique across threads, processes and machines that sorts by `created_unix_ms`:
/// `<millis>-<pid>-<random>.<extension>`.
pub fn unique_name(created_unix_ms: u64, extension: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u128(crate::since_epoch().as_nanos());
    format!("{created_unix_ms:013}-{}-{:016x}.{extension}", std::process::id(), hasher.finish())
}

/// This process's token, the same for its whole life and unlike any other process's:
/// `<pid>-<random>`.
pub fn process_token() -> String {
    static TOKEN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TOKEN
        .get_or_init(|| {
            let mut hasher = RandomState::new().build_hasher();
            hasher.write_u128(crate::since_epoch().as_nanos());
            format!("{}-{:016x}", std::process::id(), hasher.finish())
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_sort_by_time() {
        let names: std::collections::HashSet<_> =
            (0..1000).map(|_| unique_name(42, "shard")).collect();
        assert_eq!(names.len(), 1000);
        assert!(unique_name(999, "shard") < unique_name(1000, "shard"));
    }
}
