//! The replay window: how many of the newest positions the trainer samples from, as the run grows.

use search::settings::Range;
use serde::{Deserialize, Serialize};

search::settings! {
    /// The replay window: all positions up to `min`; beyond, it grows sub-linearly with the
    /// positions seen `n` (KataGo): `min * (1 + growth * ((n / min)^exponent - 1) / exponent)`, at
    /// most `max`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct WindowConfig ("window.") {
        /// Positions the window holds before it starts growing sub-linearly (and, in a run
        /// resumed without its shards, before training goes on).
        min: usize = 20_000, Range::UpTo("max");
        /// Largest window, in positions.
        max: usize = 1_000_000, Range::Any;
        /// Exponent of the growth (1 keeps every position).
        exponent: f64 = 0.75, Range::OpenClosed(0.0, 1.0);
        /// Growth rate at the start of sub-linear growth (KataGo's `beta`).
        growth: f64 = 0.4, Range::NonNegative;
    }
}

/// `window = N` (a fixed window of `N` positions) or the `[train.window]` table.
pub(crate) fn window_or_size<'de, D: serde::Deserializer<'de>>(
    input: D,
) -> Result<WindowConfig, D::Error> {
    struct Form;
    impl<'de> serde::de::Visitor<'de> for Form {
        type Value = WindowConfig;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str(
                "a number of positions (a fixed window) or a table of min, max, exponent, growth",
            )
        }

        fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<WindowConfig, E> {
            let size = usize::try_from(n).map_err(|_| {
                E::custom(format!("a window of {n} positions; expected at least 1"))
            })?;
            Ok(WindowConfig::fixed(size))
        }

        fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<WindowConfig, E> {
            self.visit_i64(i64::try_from(n).unwrap_or(i64::MAX))
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<WindowConfig, A::Error> {
            WindowConfig::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    input.deserialize_any(Form)
}

impl WindowConfig {
    /// A window of the last `size` positions, which never grows (`window = N` in a config).
    pub fn fixed(size: usize) -> WindowConfig {
        WindowConfig { min: size, max: size, exponent: 1.0, growth: 0.0 }
    }

    /// The window size after `seen` positions.
    pub fn size(&self, seen: u64) -> usize {
        let min = self.min as f64;
        let n = seen as f64;
        if n <= min {
            return seen as usize;
        }
        let grown =
            min * (1.0 + self.growth * ((n / min).powf(self.exponent) - 1.0) / self.exponent);
        (grown as usize).min(self.max).min(seen as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_grows_sub_linearly_up_to_its_cap() {
        let w = WindowConfig { min: 1000, max: 5000, exponent: 0.75, growth: 0.4 };
        assert_eq!(w.size(500), 500);
        assert_eq!(w.size(1000), 1000);
        let (a, b) = (w.size(10_000), w.size(100_000));
        assert!(1000 < a && a < b && b <= 5000, "{a} {b}");
        assert_eq!(w.size(u64::MAX / 2), 5000);
    }

    #[test]
    fn the_window_size_at_given_data_counts() {
        // min * (1 + growth * ((n / min)^exponent - 1) / exponent), at most max.
        let w = WindowConfig { min: 250_000, max: 4_000_000, exponent: 0.65, growth: 0.4 };
        for (n, expected) in [
            (100_000, 100_000),
            (1_000_000, 474_967),
            (10_000_000, 1_788_252),
            (100_000_000, 4_000_000),
            (1_000_000_000, 4_000_000),
        ] {
            assert!(w.size(n).abs_diff(expected) <= 1, "{n} positions: {}", w.size(n));
        }
        // A fixed window, as `window = N` writes it: `N` once that many positions were written.
        let fixed = WindowConfig::fixed(300_000);
        assert_eq!(
            [100_000, 300_000, 10_000_000].map(|n| fixed.size(n)),
            [100_000, 300_000, 300_000]
        );
    }
}
