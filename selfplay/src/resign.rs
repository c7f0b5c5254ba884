//! Watches the root values of a self-play game for the resignation condition.

use draughts::Color;
use search::{Resignation, ResignationRecord};

/// Per side, the run of searched decisions with a root value below the threshold.
#[derive(Clone, Debug)]
pub(crate) struct ResignationWatch {
    /// The condition is checked at all.
    active: bool,
    threshold: f32,
    consecutive: u32,
    streak: [u32; 2],
    record: ResignationRecord,
}

impl ResignationWatch {
    /// `allowed` says whether this game may end by resignation (drawn by the caller with the
    /// configured disabled share); when not, the watch only records where it would have.
    pub fn new(config: &Resignation, allowed: bool) -> Self {
        ResignationWatch {
            active: config.enabled,
            threshold: config.threshold,
            consecutive: config.consecutive,
            streak: [0; 2],
            record: ResignationRecord {
                enabled: config.enabled && allowed,
                would_have_resigned: None,
            },
        }
    }

    /// Takes the root value of a searched decision of `mover` at `ply`; true when `mover`
    /// resigns now.
    pub fn observe(&mut self, mover: Color, value: f32, ply: u32) -> bool {
        if !self.active {
            return false;
        }
        let streak = &mut self.streak[mover.index()];
        *streak = if value < self.threshold { *streak + 1 } else { 0 };
        if *streak < self.consecutive {
            return false;
        }
        if self.record.enabled {
            return true;
        }
        self.record.would_have_resigned.get_or_insert((mover, ply));
        false
    }

    /// Whether this game could resign, and where it would have when it could not.
    pub fn record(&self) -> ResignationRecord {
        self.record
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resigns_after_consecutive_low_values_of_the_same_side() {
        let config =
            Resignation { enabled: true, threshold: -0.9, consecutive: 2, disabled_share: 0.0 };
        let mut watch = ResignationWatch::new(&config, true);
        assert!(!watch.observe(Color::Black, -0.95, 0));
        assert!(!watch.observe(Color::White, -0.95, 1));
        assert!(!watch.observe(Color::Black, -0.5, 2), "the streak is broken");
        assert!(!watch.observe(Color::Black, -0.95, 4));
        assert!(watch.observe(Color::White, -0.99, 5));
    }

    #[test]
    fn disabled_game_records_where_it_would_have_resigned() {
        let config =
            Resignation { enabled: true, threshold: -0.9, consecutive: 1, disabled_share: 1.0 };
        let mut watch = ResignationWatch::new(&config, false);
        assert!(!watch.observe(Color::White, -0.95, 7));
        assert!(!watch.observe(Color::Black, -0.95, 8));
        assert_eq!(watch.record().would_have_resigned, Some((Color::White, 7)));
        assert!(!watch.record().enabled);
    }
}
