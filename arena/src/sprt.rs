//! Sequential probability ratio test on match results: stop as soon as the games played decide
//! between "the candidate is `elo0` stronger" (H0) and "`elo1` stronger" (H1).
//!
//! The log-likelihood ratio is the usual normal approximation on the mean score (as in fishtest's
//! trinomial GSPRT), with logistic Elo. Half a virtual game of each outcome keeps the variance
//! above 0, so a clean sweep still needs a few games to stop.

use crate::tally::{score_of_elo, Tally};
use serde::{Deserialize, Serialize};

/// Settings of the sequential probability ratio test that can end a gate early.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SprtConfig {
    /// Elo difference of the null hypothesis (candidate not better).
    pub elo0: f64,
    /// Elo difference of the alternative (candidate better).
    pub elo1: f64,
    /// Chance of accepting H1 when H0 holds (false promotion).
    pub alpha: f64,
    /// Chance of accepting H0 when H1 holds (missed promotion).
    pub beta: f64,
}

impl Default for SprtConfig {
    fn default() -> Self {
        SprtConfig { elo0: 0.0, elo1: 35.0, alpha: 0.05, beta: 0.05 }
    }
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtState {
    /// Neither bound reached: play on.
    Continue,
    /// The null hypothesis holds: the candidate is not better (reject it).
    AcceptH0,
    /// The alternative holds: the candidate is better (promote it).
    AcceptH1,
}

impl SprtConfig {
    /// The log-likelihood ratio of H1 against H0 after `tally` (the candidate's results).
    pub fn llr(&self, tally: &Tally) -> f64 {
        let n = f64::from(tally.games());
        if n == 0.0 {
            return 0.0;
        }
        let (w, d, l) = (
            f64::from(tally.wins) + 0.5,
            f64::from(tally.draws) + 0.5,
            f64::from(tally.losses) + 0.5,
        );
        let total = w + d + l;
        let mean = (w + 0.5 * d) / total;
        let var = (w * (1.0 - mean).powi(2) + d * (0.5 - mean).powi(2) + l * mean.powi(2)) / total;
        let (s0, s1) = (score_of_elo(self.elo0), score_of_elo(self.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The stopping bounds `(lower, upper)` of the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// Where the test stands after `tally`: the log-likelihood ratio against [`SprtConfig::bounds`].
    pub fn state(&self, tally: &Tally) -> SprtState {
        let llr = self.llr(tally);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtState::AcceptH1
        } else if llr <= lower {
            SprtState::AcceptH0
        } else {
            SprtState::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_sweep_stops_early_for_h1_and_a_rout_for_h0() {
        let sprt = SprtConfig::default();
        let mut tally = Tally::default();
        let mut stopped = None;
        for game in 1..=100 {
            tally.add(1.0);
            if sprt.state(&tally) != SprtState::Continue {
                stopped = Some((game, sprt.state(&tally)));
                break;
            }
        }
        let (games, state) = stopped.expect("stops");
        assert_eq!(state, SprtState::AcceptH1);
        assert!((4..=20).contains(&games), "stopped after {games}");
        let lost = Tally { wins: 0, draws: 2, losses: 12 };
        assert_eq!(sprt.state(&lost), SprtState::AcceptH0);
    }

    #[test]
    fn an_even_match_keeps_going_for_a_while() {
        let sprt = SprtConfig::default();
        let tally = Tally { wins: 5, draws: 10, losses: 5 };
        assert_eq!(sprt.state(&tally), SprtState::Continue);
    }
}
