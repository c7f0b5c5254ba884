//! One declaration per search refinement: [`features!`] declares [`SearchFeatures`]'s fields from
//! lines of `name: type = classic, full, values;` and derives from them `classic()`, `full()`,
//! the list of keys a player spec may set, `set` (a player's `KEY=VALUE`) with its checks and
//! error lines, and the rows that `docs/alphabeta.md`'s table is checked against.
//!
//! [`SearchFeatures`]: super::SearchFeatures

use std::fmt;

/// The values a refinement's setting may take: how its text is read, and the words that document
/// them and explain a refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// On or off, written `1`/`0`, `on`/`off` or `true`/`false`.
    Switch,
    /// A whole number from `low` to `high`, both included.
    Whole {
        /// What the number is, e.g. `a count`.
        what: &'static str,
        /// The least value.
        low: i64,
        /// The greatest value.
        high: i64,
        /// Words after the range (e.g. its unit), or nothing.
        note: &'static str,
    },
}

impl fmt::Display for Values {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Values::Switch => write!(f, "a switch: 1 or 0 (on/off, true/false)"),
            Values::Whole { what, low, high, note } => {
                write!(f, "{what} from {low} to {high}{note}")
            }
        }
    }
}

impl Values {
    /// The value `text` gives the setting `key`, or the error line that names the key, what it
    /// takes and the text refused.
    pub fn parse<T: Setting>(self, key: &str, text: &str) -> Result<T, String> {
        let number = match self {
            Values::Switch => match text {
                "1" | "on" | "true" => Some(1),
                "0" | "off" | "false" => Some(0),
                _ => None,
            },
            Values::Whole { low, high, .. } => {
                text.parse().ok().filter(|n| (low..=high).contains(n))
            }
        };
        number
            .and_then(T::from_number)
            .ok_or_else(|| format!("`{key}` is {self}, not `{}`", support::shown(text)))
    }
}

/// A refinement setting's type: made from the number its text reads as, and written for the docs.
pub trait Setting: Copy {
    /// The value of `number` (a switch's 1 or 0), if the type holds it.
    fn from_number(number: i64) -> Option<Self>;
    /// The value as the docs write it (a switch: `on` or `off`).
    fn text(self) -> String;
}

impl Setting for bool {
    fn from_number(number: i64) -> Option<bool> {
        match number {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
    fn text(self) -> String {
        if self { "on" } else { "off" }.to_string()
    }
}

macro_rules! whole_settings {
    ($($t:ty),*) => {$(
        impl Setting for $t {
            fn from_number(number: i64) -> Option<$t> {
                <$t>::try_from(number).ok()
            }
            fn text(self) -> String {
                self.to_string()
            }
        }
    )*};
}
whole_settings!(u8, i32);

/// A refinement as declared: what `docs/alphabeta.md`'s table documents for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    /// The key of a player spec, the field's name.
    pub name: &'static str,
    /// Its value in the classic engine, as the docs write it.
    pub classic: String,
    /// Its value in the full engine.
    pub full: String,
    /// The values it takes, in words ([`Values`]).
    pub values: String,
}

/// Declares the refinements' struct, one line a setting (its doc comment, then
/// `name: type = classic, full, values;` with a [`Values`]), and derives `classic()`, `full()`,
/// `KEYS`, `set(key, text)` and `declared()` from it.
macro_rules! features {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])+
                $field:ident: $ty:ty = $classic:expr, $full:expr, $values:expr;
            )*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $($(#[doc = $doc])+ pub $field: $ty,)*
        }

        impl $name {
            /// No refinement: the baseline engine.
            pub const fn classic() -> $name {
                $name { $($field: $classic,)* }
            }

            /// Every refinement that measured as a gain (see docs/alphabeta.md for the
            /// measurements).
            pub const fn full() -> $name {
                $name { $($field: $full,)* }
            }

            /// The settings a player spec may change (`alphabeta:0.1s,net=X,KEY=VALUE`).
            pub const KEYS: &'static [&'static str] = &[$(stringify!($field)),*];

            /// Changes the setting `key` to the value `text` gives it, within its declared
            /// values; the error line names the key and what it takes, or the keys there are.
            pub fn set(&mut self, key: &str, text: &str) -> Result<(), String> {
                use $crate::alphabeta::config::declare::Values;
                match key {
                    $(stringify!($field) => self.$field = Values::parse($values, key, text)?,)*
                    _ => {
                        return Err(format!(
                            "unknown alpha-beta setting `{}`; expected one of {}",
                            support::shown(key),
                            Self::KEYS.join(", ")
                        ))
                    }
                }
                Ok(())
            }

            /// Every refinement as declared, in order.
            pub fn declared() -> Vec<$crate::alphabeta::config::declare::Declared> {
                use $crate::alphabeta::config::declare::{Declared, Setting};
                let (classic, full) = (Self::classic(), Self::full());
                vec![$(Declared {
                    name: stringify!($field),
                    classic: classic.$field.text(),
                    full: full.$field.text(),
                    values: $values.to_string(),
                },)*]
            }
        }
    };
}
pub(super) use features;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_reads_its_six_words_and_refuses_the_rest() {
        for (text, on) in [("1", true), ("on", true), ("true", true), ("0", false), ("off", false)]
        {
            assert_eq!(Values::Switch.parse::<bool>("pvs", text), Ok(on), "{text}");
        }
        assert_eq!(Values::Switch.parse::<bool>("pvs", "false"), Ok(false));
        for text in ["yes", "2", "", "On", " 1"] {
            let err = Values::Switch.parse::<bool>("pvs", text).unwrap_err();
            assert_eq!(
                err,
                format!("`pvs` is a switch: 1 or 0 (on/off, true/false), not `{text}`")
            );
        }
    }

    #[test]
    fn a_whole_number_is_read_within_its_range_and_its_type() {
        let count = Values::Whole { what: "a count", low: 1, high: 300, note: " (threads)" };
        assert_eq!(count.parse::<i32>("n", "300"), Ok(300));
        assert_eq!(count.parse::<i32>("n", "1"), Ok(1));
        for text in ["0", "301", "-1", "1.5", "x", "99999999999999999999"] {
            let err = count.parse::<i32>("n", text).unwrap_err();
            assert_eq!(err, format!("`n` is a count from 1 to 300 (threads), not `{text}`"));
        }
        // In the declared range but not in the type: refused, not wrapped.
        assert!(count.parse::<u8>("n", "256").is_err());
        assert_eq!(count.parse::<u8>("n", "255"), Ok(255));
        let err = count.parse::<u8>("n", "a\nb").unwrap_err();
        assert!(err.ends_with("not `a\\nb`"), "{err}");
    }
}
