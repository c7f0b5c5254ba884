//! Growth on a schedule (`train.grow`): the sparse net's accumulator widened at given counts of
//! self-play positions read, so a long run starts small and grows as its data does (as KataGo
//! grows its nets). Each widening keeps the net's outputs (see `model::widen_accumulator`).
//!
//! ```toml
//! [train]
//! grow = [{at = 20000000, accumulator = 256}]
//! ```

use search::settings::{ConfigText, Invalid};
use serde::{Deserialize, Serialize};

/// One widening of [`GrowSchedule`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Widening {
    /// Self-play positions read (over the whole run) from which the net has this width.
    pub at: u64,
    /// The accumulator's width from then on.
    pub accumulator: usize,
}

/// The widenings of a run's sparse net, in increasing `at` and width; empty (the default) keeps
/// `net.accumulator` throughout.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct GrowSchedule(pub Vec<Widening>);

/// What [`GrowSchedule::check`] asks, as `docs/configs.md` writes it.
pub const GROW_RULE: &str =
    "increasing `at` and `accumulator`, the first above `net.accumulator`; a sparse net only";

impl GrowSchedule {
    /// The accumulator width the schedule asks for once `positions` were read: that of the last
    /// widening at or before it (`None` before the first).
    pub fn accumulator_at(&self, positions: u64) -> Option<usize> {
        self.0.iter().take_while(|w| w.at <= positions).last().map(|w| w.accumulator)
    }

    /// Every width the net takes after its first, in order.
    pub fn widths(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().map(|w| w.accumulator)
    }

    /// Checks the widenings are in increasing `at` and width (the widths against the net's are
    /// checked with the net, see `RunConfig::validate`).
    pub fn check(&self) -> Result<(), Invalid> {
        let rising =
            self.0.windows(2).all(|p| p[0].at < p[1].at && p[0].accumulator < p[1].accumulator);
        if rising {
            return Ok(());
        }
        Err(Invalid::new(
            "grow",
            self.config_text(),
            "widenings in increasing `at` and `accumulator`",
        ))
    }
}

impl ConfigText for GrowSchedule {
    fn config_text(&self) -> String {
        let widenings: Vec<String> = self
            .0
            .iter()
            .map(|w| format!("{{at = {}, accumulator = {}}}", w.at, w.accumulator))
            .collect();
        format!("[{}]", widenings.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(pairs: &[(u64, usize)]) -> GrowSchedule {
        GrowSchedule(pairs.iter().map(|&(at, accumulator)| Widening { at, accumulator }).collect())
    }

    #[test]
    fn the_width_is_the_last_widening_reached() {
        let grow = schedule(&[(1000, 64), (5000, 128)]);
        grow.check().unwrap();
        assert_eq!(grow.accumulator_at(0), None);
        assert_eq!(grow.accumulator_at(999), None);
        assert_eq!(grow.accumulator_at(1000), Some(64));
        assert_eq!(grow.accumulator_at(4999), Some(64));
        assert_eq!(grow.accumulator_at(5000), Some(128));
        assert_eq!(grow.accumulator_at(u64::MAX), Some(128));
        assert_eq!(GrowSchedule::default().accumulator_at(u64::MAX), None);
        assert_eq!(grow.widths().collect::<Vec<_>>(), [64, 128]);
    }

    #[test]
    fn a_schedule_out_of_order_is_refused_by_name() {
        for bad in [schedule(&[(5000, 64), (1000, 128)]), schedule(&[(1000, 128), (5000, 64)])] {
            let err = bad.check().unwrap_err().to_string();
            assert!(err.contains("grow") && err.contains("increasing"), "{err}");
        }
    }

    #[test]
    fn written_as_a_config_reads_it() {
        #[derive(Deserialize)]
        struct Wrapped {
            grow: GrowSchedule,
        }
        let grow = schedule(&[(1000, 64), (5000, 128)]);
        let text = format!("grow = {}", grow.config_text());
        assert_eq!(toml::from_str::<Wrapped>(&text).unwrap().grow, grow);
    }
}
