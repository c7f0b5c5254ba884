//! How many cases a property test runs: its own count, times the whole number in
//! `CHECKERS_ZERO_PROPTEST_TIMES` when that is set (a long run of every property test at once,
//! e.g. a hundred times their cases, without editing them). Proptest's own `PROPTEST_CASES` sets
//! one count for every test, which a test that names its count overrides.

/// The environment variable that multiplies every property test's cases.
pub const PROPTEST_TIMES_VAR: &str = "CHECKERS_ZERO_PROPTEST_TIMES";

/// `cases`, times [`PROPTEST_TIMES_VAR`] when it holds a whole number above 0.
pub fn property_cases(cases: u32) -> u32 {
    let times = std::env::var(PROPTEST_TIMES_VAR).ok().and_then(|t| t.trim().parse::<u32>().ok());
    cases.saturating_mul(times.filter(|&t| t > 0).unwrap_or(1))
}
