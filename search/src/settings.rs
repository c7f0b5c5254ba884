//! One declaration per config setting: [`settings!`](crate::settings!) declares a section's struct
//! from lines of `name: type = default, range;` and derives from them its `Default`, its range
//! checks with their error messages, the setting of a field from text (a player's `KEY=VALUE`)
//! and the list of [`Key`]s that `docs/configs.md` is checked against.

use std::fmt;
pub use support::Invalid;

/// The values a setting may take: its check, and the text that documents it and explains a refusal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// Any value of its type.
    Any,
    /// A finite number above zero.
    Positive,
    /// At least this.
    AtLeast(f64),
    /// At most this.
    AtMost(f64),
    /// Between the two, both included (for numbers with a fraction).
    Closed(f64, f64),
    /// Between the two, neither included.
    Open(f64, f64),
    /// A whole number between the two, both included.
    Whole(u64, u64),
    /// A whole number from 1 up to the value of the named setting of the same section.
    UpTo(&'static str),
}

impl Range {
    /// Whether `value` lies in the range; `other` reads a setting of the same section by name.
    pub fn contains(&self, value: f64, other: impl Fn(&str) -> Option<f64>) -> bool {
        match *self {
            Range::Any => true,
            Range::Positive => value > 0.0 && value.is_finite(),
            Range::AtLeast(low) => value >= low,
            Range::AtMost(high) => value <= high,
            Range::Closed(low, high) => (low..=high).contains(&value),
            Range::Open(low, high) => value > low && value < high,
            Range::Whole(low, high) => (low as f64..=high as f64).contains(&value),
            Range::UpTo(name) => other(name).is_some_and(|high| (1.0..=high).contains(&value)),
        }
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Range::Any => write!(f, "any"),
            Range::Positive => write!(f, "a finite number > 0"),
            Range::AtLeast(low) => write!(f, "at least {low}"),
            Range::AtMost(high) => write!(f, "at most {high}"),
            Range::Closed(low, high) => write!(f, "in [{low}, {high}]"),
            Range::Open(low, high) => write!(f, "in ({low}, {high})"),
            Range::Whole(low, high) => write!(f, "in {low}..={high}"),
            Range::UpTo(name) => write!(f, "in 1..={name}"),
        }
    }
}

/// A setting as declared: what `docs/configs.md` documents for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// The dotted path inside its section, e.g. `playout_cap.cheap_visits`.
    pub name: &'static str,
    /// The default, as a config file writes it.
    pub default: String,
    /// What values it may take.
    pub range: Range,
    /// The first line of its documentation.
    pub meaning: &'static str,
    /// Whether a player's spec may set it (`mcts:NET,KEY=VALUE`).
    pub player: bool,
}

/// A setting's type: read as a number for its range, and from the text of a `KEY=VALUE`.
pub trait Value: Copy + fmt::Display {
    /// The value as a number (`true` is 1).
    fn number(self) -> f64;
    /// The value `text` gives, or the error line that names `key`.
    fn from_text(key: &str, text: &str) -> Result<Self, String>;
}

impl Value for f32 {
    fn number(self) -> f64 {
        f64::from(self)
    }
    fn from_text(key: &str, text: &str) -> Result<f32, String> {
        text.parse().map_err(|_| format!("`{key}={text}`: not a number"))
    }
}

impl Value for bool {
    fn number(self) -> f64 {
        f64::from(u8::from(self))
    }
    fn from_text(key: &str, text: &str) -> Result<bool, String> {
        text.parse().map_err(|_| format!("`{key}={text}`: not true or false"))
    }
}

macro_rules! whole_values {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn number(self) -> f64 {
                self as f64
            }
            fn from_text(key: &str, text: &str) -> Result<$t, String> {
                text.parse().map_err(|_| format!("`{key}={text}`: not a whole number"))
            }
        }
    )*};
}
whole_values!(u8, u16, u32, u64, usize);

/// `Ok` when `value` lies in `range`, else the setting named, its value and its range.
pub fn check<T: Value>(
    name: &'static str,
    value: T,
    range: Range,
    other: impl Fn(&str) -> Option<f64>,
) -> Result<(), Invalid> {
    support::check(name, value, range.contains(value.number(), other), &range.to_string())
}

/// Declares a config section's struct, one line a setting, and derives the rest from it.
///
/// Each setting is its doc comment, then `name: type = default, range;` (a [`Range`]), with
/// `, player` before the `;` when a player's spec may set it. Sections nested in it follow
/// `sections:`. The section's own `prefix` (`""`, or e.g. `"playout_cap."`) starts its settings'
/// dotted names. Derived: `Default`; `keys()`, every setting with the nested sections' after it;
/// `check_ranges()`, which names the first setting out of its range; for the section's own
/// settings, `set_text(name, text)`, `text(name)` and `number(name)`.
#[macro_export]
macro_rules! settings {
    (
        $(#[$meta:meta])*
        pub struct $name:ident ($prefix:literal) {
            $(
                $(#[doc = $doc:literal])+
                $field:ident: $ty:ty = $default:expr, $range:expr $(, $player:ident)?;
            )*
            $(sections: $(
                $(#[doc = $section_doc:literal])+
                $section:ident: $section_ty:ty;
            )*)?
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $($(#[doc = $doc])+ pub $field: $ty,)*
            $($($(#[doc = $section_doc])+ pub $section: $section_ty,)*)?
        }

        impl Default for $name {
            fn default() -> Self {
                $name {
                    $($field: $default,)*
                    $($($section: <$section_ty>::default(),)*)?
                }
            }
        }

        impl $name {
            /// Every setting of the section, as declared, those of its nested sections after.
            pub fn keys() -> Vec<$crate::settings::Key> {
                let defaults = Self::default();
                #[allow(unused_mut)]
                let mut keys = vec![$($crate::settings::Key {
                    name: concat!($prefix, stringify!($field)),
                    default: defaults.$field.to_string(),
                    range: $range,
                    meaning: [$($doc),+][0].trim(),
                    player: $crate::settings!(@player $($player)?),
                },)*];
                $($(keys.extend(<$section_ty>::keys());)*)?
                keys
            }

            /// Checks every setting against its range; the error names the first one out of it.
            pub fn check_ranges(&self) -> Result<(), $crate::settings::Invalid> {
                let other = |name: &str| self.number(name);
                $($crate::settings::check(
                    concat!($prefix, stringify!($field)), self.$field, $range, other,
                )?;)*
                $($(self.$section.check_ranges()?;)*)?
                Ok(())
            }

            /// The section's own setting `name` as a config file writes it, if it has one.
            pub fn text(&self, name: &str) -> Option<String> {
                match name {
                    $(stringify!($field) => Some(self.$field.to_string()),)*
                    _ => None,
                }
            }

            /// The section's own setting `name` as a number (`true` is 1), if it has one.
            pub fn number(&self, name: &str) -> Option<f64> {
                use $crate::settings::Value;
                match name {
                    $(stringify!($field) => Some(self.$field.number()),)*
                    _ => None,
                }
            }

            /// Sets the section's own setting `name` from `text`, unchecked; `None` when the
            /// section has no such setting, else the error line that names it.
            pub fn set_text(&mut self, name: &str, text: &str) -> Option<Result<(), String>> {
                use $crate::settings::Value;
                match name {
                    $(stringify!($field) => Some(
                        <$ty>::from_text(name, text).map(|value| self.$field = value),
                    ),)*
                    _ => None,
                }
            }
        }
    };
    (@player player) => { true };
    (@player) => { false };
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::settings! {
        /// A section for the tests.
        #[derive(Debug, PartialEq)]
        pub struct Inner ("inner.") {
            /// Most visits.
            most: u32 = 10, Range::AtLeast(1.0);
            /// Fewest visits, up to `most`.
            fewest: u32 = 2, Range::UpTo("most"), player;
        }
    }

    crate::settings! {
        /// The outer section.
        #[derive(Debug, PartialEq)]
        pub struct Outer ("") {
            /// A share.
            share: f32 = 0.5, Range::Closed(0.0, 1.0), player;
            /// A switch.
            on: bool = true, Range::Any;
            sections:
            /// The nested one.
            inner: Inner;
        }
    }

    #[test]
    fn the_declaration_gives_defaults_keys_checks_and_text_settings() {
        let outer = Outer::default();
        assert_eq!(
            (outer.share, outer.on, outer.inner.most, outer.inner.fewest),
            (0.5, true, 10, 2)
        );
        let keys = Outer::keys();
        let names: Vec<_> = keys.iter().map(|k| (k.name, k.default.as_str(), k.player)).collect();
        assert_eq!(
            names,
            [
                ("share", "0.5", true),
                ("on", "true", false),
                ("inner.most", "10", false),
                ("inner.fewest", "2", true)
            ]
        );
        assert_eq!(keys[0].meaning, "A share.");
        assert_eq!(keys[3].range.to_string(), "in 1..=most");

        let mut bad = Outer::default();
        bad.inner.fewest = 11;
        let err = bad.check_ranges().unwrap_err();
        assert_eq!(err.to_string(), "`inner.fewest` = 11 is invalid: in 1..=most");
        bad.share = f32::NAN;
        assert_eq!(bad.check_ranges().unwrap_err().field, "share");

        let mut outer = Outer::default();
        assert_eq!(outer.set_text("share", "0.25"), Some(Ok(())));
        assert_eq!(outer.share, 0.25);
        assert_eq!(outer.set_text("on", "yes"), Some(Err("`on=yes`: not true or false".into())));
        assert_eq!(
            outer.inner.set_text("most", "1.5"),
            Some(Err("`most=1.5`: not a whole number".into()))
        );
        assert_eq!(outer.set_text("inner.most", "3"), None);
        assert_eq!(outer.inner.text("most").as_deref(), Some("10"));
        assert_eq!((outer.text("share").as_deref(), outer.number("on")), (Some("0.25"), Some(1.0)));
    }

    #[test]
    fn ranges_read_as_documented() {
        let none = |_: &str| None;
        assert!(
            Range::Positive.contains(0.1, none) && !Range::Positive.contains(f64::INFINITY, none)
        );
        assert!(!Range::Open(-1.0, 1.0).contains(-1.0, none));
        assert!(
            Range::Whole(1, 256).contains(256.0, none) && !Range::Whole(1, 256).contains(0.0, none)
        );
        assert!(!Range::UpTo("missing").contains(1.0, none));
        assert_eq!(Range::Closed(0.1, 10.0).to_string(), "in [0.1, 10]");
        assert_eq!(Range::Whole(0, 16).to_string(), "in 0..=16");
    }
}
