//! How many cases a property test runs: its own count, times the whole number in
//! `CHECKERS_ZERO_PROPTEST_TIMES` when that is set (a long run of every property test at once,
//! e.g. a hundred times their cases, without editing them). Proptest's own `PROPTEST_CASES` sets
//! one count for every test, which a test that names its count overrides.

/// The environment variable that multiplies every property test's cases.
pub const PROPTEST_TIMES_VAR: &str = "CHECKERS_ZERO_PROPTEST_TIMES";

/// `cases`, times [`PROPTEST_TIMES_VAR`] when it holds a whole number above 0.
pub fn property_cases(cases: u32) -> u32 {
    times(cases, std::env::var(PROPTEST_TIMES_VAR).ok().as_deref())
}

/// `cases` times `factor` when that is a whole number above 0, else `cases`.
fn times(cases: u32, factor: Option<&str>) -> u32 {
    let factor = factor.and_then(|t| t.trim().parse::<u32>().ok()).filter(|&t| t > 0);
    cases.saturating_mul(factor.unwrap_or(1))
}

#[cfg(test)]
mod tests {
    #[test]
    fn cases_are_multiplied_by_a_whole_number_only() {
        use super::times;
        assert_eq!(times(200, None), 200);
        assert_eq!(times(200, Some("100")), 20_000);
        assert_eq!(times(200, Some(" 3 ")), 600);
        for ignored in ["0", "-1", "1.5", "many", ""] {
            assert_eq!(times(200, Some(ignored)), 200, "{ignored}");
        }
        assert_eq!(times(u32::MAX, Some("2")), u32::MAX);
    }
}
