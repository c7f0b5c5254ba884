//! Config checks: one setting at a time, the first bad one named with its value and range.

/// A setting outside what it may be.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("`{field}` = {value} is invalid: {expected}")]
pub struct Invalid {
    /// Dotted path of the field inside its section, e.g. `playout_cap.cheap_visits`.
    pub field: &'static str,
    /// The value as configured.
    pub value: String,
    /// The range or rule the value must meet, e.g. `in [0, 1]`.
    pub expected: String,
}

impl Invalid {
    /// `field` is `value`, which does not meet `expected`; the value is kept as a message shows
    /// it (escaped and cut, see [`crate::shown::shown`]).
    pub fn new(field: &'static str, value: impl std::fmt::Display, expected: &str) -> Invalid {
        Invalid {
            field,
            value: crate::shown::shown(&value.to_string()),
            expected: expected.to_string(),
        }
    }
}

/// `Ok` when `ok`, else the field, its value and what was expected.
pub fn check(
    field: &'static str,
    value: impl std::fmt::Display,
    ok: bool,
    expected: &str,
) -> Result<(), Invalid> {
    if ok {
        Ok(())
    } else {
        Err(Invalid::new(field, value, expected))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_check_names_field_value_and_range() {
        assert_eq!(check("games", 4, true, "even"), Ok(()));
        let err = check("games", 7, false, "even").unwrap_err();
        assert_eq!(err.to_string(), "`games` = 7 is invalid: even");
        let err = check("opponents", "a\nb", false, "a player").unwrap_err();
        assert_eq!(err.to_string(), "`opponents` = a\\nb is invalid: a player");
    }
}
