//! One declaration per config setting: [`settings!`](crate::settings!) declares a section's struct
//! from lines of `name: type = default, range;` and derives from them its `Default`, its range
//! checks with their error messages, the setting of a field from text (a player's `KEY=VALUE`)
//! and the list of [`Key`]s that `docs/configs.md` is checked against. A setting whose value is
//! no single number (a list, an optional table, a table of several kinds) is declared as a rule:
//! its range in words, checked by a function of its own.

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
    /// Above the first, at most the second.
    OpenClosed(f64, f64),
    /// At least the first, below the second.
    ClosedOpen(f64, f64),
    /// A finite number, at least 0.
    NonNegative,
    /// An even number, at least this.
    EvenAtLeast(f64),
    /// 0 (off), or at least this.
    OffOrAtLeast(f64),
    /// A whole number between the two, both included.
    Whole(u64, u64),
    /// A whole number from 1 up to the value of the named setting of the same section.
    UpTo(&'static str),
    /// At least the value of the named setting of the same section.
    AtLeastSetting(&'static str),
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
            Range::OpenClosed(low, high) => value > low && value <= high,
            Range::ClosedOpen(low, high) => value >= low && value < high,
            Range::NonNegative => value >= 0.0 && value.is_finite(),
            Range::EvenAtLeast(low) => value >= low && value % 2.0 == 0.0,
            Range::OffOrAtLeast(low) => value == 0.0 || value >= low,
            Range::Whole(low, high) => (low as f64..=high as f64).contains(&value),
            Range::UpTo(name) => other(name).is_some_and(|high| (1.0..=high).contains(&value)),
            Range::AtLeastSetting(name) => other(name).is_some_and(|low| value >= low),
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
            Range::OpenClosed(low, high) => write!(f, "in ({low}, {high}]"),
            Range::ClosedOpen(low, high) => write!(f, "in [{low}, {high})"),
            Range::NonNegative => write!(f, "a finite number >= 0"),
            Range::EvenAtLeast(low) => write!(f, "an even number, at least {low}"),
            Range::OffOrAtLeast(low) => write!(f, "0 (off) or at least {low}"),
            Range::Whole(low, high) => write!(f, "in {low}..={high}"),
            Range::UpTo(name) => write!(f, "in 1..={name}"),
            Range::AtLeastSetting(name) => write!(f, "at least {name}"),
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
    /// What values it may take, as `docs/configs.md` writes it (a [`Range`], or a rule's words).
    pub range: String,
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

macro_rules! fraction_values {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn number(self) -> f64 {
                f64::from(self)
            }
            fn from_text(key: &str, text: &str) -> Result<$t, String> {
                text.parse().map_err(|_| format!("`{key}={text}`: not a number"))
            }
        }
    )*};
}
fraction_values!(f32, f64);

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

/// A rule's value as a config file writes it (a list, an optional or inline table).
pub trait ConfigText {
    /// The value as TOML text, e.g. `["alphabeta:4"]` or `{kind = "constant"}`.
    fn config_text(&self) -> String;
}

impl ConfigText for Vec<String> {
    fn config_text(&self) -> String {
        let items: Vec<String> = self.iter().map(|item| format!("{item:?}")).collect();
        format!("[{}]", items.join(", "))
    }
}

/// A quoted string.
impl ConfigText for String {
    fn config_text(&self) -> String {
        format!("{self:?}")
    }
}

/// `none` when absent.
impl<T: ConfigText> ConfigText for Option<T> {
    fn config_text(&self) -> String {
        self.as_ref().map_or_else(|| "none".into(), T::config_text)
    }
}

/// An inline table: `{kind = "KIND", name = value, ...}` (without `kind` when none is given), the
/// values as [`fmt::Display`] writes them (strings quoted by the caller).
pub fn inline_table(kind: Option<&str>, entries: &[(&str, &dyn fmt::Display)]) -> String {
    let kind = kind.map(|kind| format!("kind = {kind:?}"));
    let entries = entries.iter().map(|(name, value)| format!("{name} = {value}"));
    let all: Vec<String> = kind.into_iter().chain(entries).collect();
    format!("{{{}}}", all.join(", "))
}

/// `Ok` when `value` lies in `range`, else the setting named, its value and its range (with the
/// value of the setting it names, if any).
pub fn check<T: Value>(
    name: &'static str,
    value: T,
    range: Range,
    other: impl Fn(&str) -> Option<f64>,
) -> Result<(), Invalid> {
    if range.contains(value.number(), &other) {
        return Ok(());
    }
    let expected = match range {
        Range::UpTo(setting) | Range::AtLeastSetting(setting) => match other(setting) {
            Some(bound) => format!("{range} ({bound})"),
            None => range.to_string(),
        },
        _ => range.to_string(),
    };
    Err(Invalid::new(name, value, &expected))
}

/// Declares a config section's struct, one line a setting, and derives the rest from it.
///
/// Each setting is its doc comment (and any `#[serde(...)]`), then `name: type = default, range;`
/// (a [`Range`]), with `, player` before the `;` when a player's spec may set it. Settings that
/// are no single number follow `rules:`, each `name: type = default, range in words, check;`:
/// `check(&value)` is its own check, and the type's [`ConfigText`] writes its default. Sections
/// nested in it follow `sections:`; those after `tables:` have keys and checks of their own,
/// which the section's leave to them (only their `Default` is derived here). The section's own
/// `prefix` (`""`, or e.g. `"playout_cap."`) starts its settings' dotted names. Derived:
/// `Default`; `keys()`, every setting with the nested sections' after it; `check_ranges()`, which
/// names the first setting out of its range; for the section's own numeric settings,
/// `set_text(name, text)`, `text(name)` and `number(name)`.
#[macro_export]
macro_rules! settings {
    (
        $(#[$meta:meta])*
        pub struct $name:ident ($prefix:literal) {
            $(
                $(#[doc = $doc:literal])+
                $(#[serde $serde:tt])*
                $field:ident: $ty:ty = $default:expr, $range:expr $(, $player:ident)?;
            )*
            $(rules: $(
                $(#[doc = $rule_doc:literal])+
                $(#[serde $rule_serde:tt])*
                $rule:ident: $rule_ty:ty = $rule_default:expr, $rule_range:expr, $check:expr;
            )*)?
            $(sections: $(
                $(#[doc = $section_doc:literal])+
                $(#[serde $section_serde:tt])*
                $section:ident: $section_ty:ty;
            )*)?
            $(tables: $(
                $(#[doc = $table_doc:literal])+
                $table:ident: $table_ty:ty;
            )*)?
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $($(#[doc = $doc])+ $(#[serde $serde])* pub $field: $ty,)*
            $($($(#[doc = $rule_doc])+ $(#[serde $rule_serde])* pub $rule: $rule_ty,)*)?
            $($($(#[doc = $section_doc])+ $(#[serde $section_serde])* pub $section: $section_ty,)*)?
            $($($(#[doc = $table_doc])+ pub $table: $table_ty,)*)?
        }

        impl Default for $name {
            fn default() -> Self {
                $name {
                    $($field: $default,)*
                    $($($rule: $rule_default,)*)?
                    $($($section: <$section_ty>::default(),)*)?
                    $($($table: <$table_ty>::default(),)*)?
                }
            }
        }

        impl $name {
            /// Every setting of the section, as declared, those of its nested sections after.
            pub fn keys() -> Vec<$crate::settings::Key> {
                #[allow(unused_imports)]
                use $crate::settings::ConfigText;
                let defaults = Self::default();
                #[allow(unused_mut)]
                let mut keys = vec![$($crate::settings::Key {
                    name: concat!($prefix, stringify!($field)),
                    default: defaults.$field.to_string(),
                    range: $range.to_string(),
                    meaning: [$($doc),+][0].trim(),
                    player: $crate::settings!(@player $($player)?),
                },)*];
                $($(keys.push($crate::settings::Key {
                    name: concat!($prefix, stringify!($rule)),
                    default: defaults.$rule.config_text(),
                    range: $rule_range.to_string(),
                    meaning: [$($rule_doc),+][0].trim(),
                    player: false,
                });)*)?
                $($(keys.extend(<$section_ty>::keys());)*)?
                keys
            }

            /// Checks every setting against its range; the error names the first one out of it.
            pub fn check_ranges(&self) -> Result<(), $crate::settings::Invalid> {
                #[allow(unused_variables)]
                let other = |name: &str| self.number(name);
                $($crate::settings::check(
                    concat!($prefix, stringify!($field)), self.$field, $range, other,
                )?;)*
                $($($check(&self.$rule)?;)*)?
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
                #[allow(unused_imports)]
                use $crate::settings::Value;
                match name {
                    $(stringify!($field) => Some(self.$field.number()),)*
                    _ => None,
                }
            }

            /// Sets the section's own setting `name` from `text`, unchecked; `None` when the
            /// section has no such setting, else the error line that names it.
            pub fn set_text(&mut self, name: &str, text: &str) -> Option<Result<(), String>> {
                #[allow(unused_imports)]
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
mod tests;
