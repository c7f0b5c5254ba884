//! Sequential probability ratio test on match results: stop as soon as the games played decide
//! between "the candidate is `elo0` stronger" (H0) and "`elo1` stronger" (H1).
//!
//! The log-likelihood ratio is the usual normal approximation on the mean score (as in fishtest's
//! trinomial GSPRT), with logistic Elo. Half a virtual game of each outcome keeps the variance
//! above 0, so a clean sweep still needs a few games to stop. The gate uses it, and `match --sprt
//! ELO0,ELO1[,ALPHA,BETA]` (its `FromStr`), whose closing line is [`SprtConfig::verdict`].

use crate::ratings::tally::{score_of_elo, signed_elo, Tally};
use search::settings::{inline_table, ConfigText};
use serde::{Deserialize, Serialize};
use std::str::FromStr;
use support::{check, Invalid};

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

    /// Checks every setting; the error names the first bad one (`sprt.elo1`, ...).
    pub fn validate(&self) -> Result<(), Invalid> {
        check("sprt.elo0", self.elo0, self.elo0.is_finite(), "finite")?;
        let elo1_ok = self.elo1 > self.elo0 && self.elo1.is_finite();
        check("sprt.elo1", self.elo1, elo1_ok, "finite and above sprt.elo0")?;
        check("sprt.alpha", self.alpha, self.alpha > 0.0 && self.alpha < 0.5, "in (0, 0.5)")?;
        check("sprt.beta", self.beta, self.beta > 0.0 && self.beta < 0.5, "in (0, 0.5)")
    }

    /// One line on where the test stands after `tally` (A's results): its settings, the results
    /// (wins, draws, losses, the draws' share, score, Elo with its 95% interval), the
    /// log-likelihood ratio against its bounds, and the hypothesis accepted, if any.
    pub fn verdict(&self, tally: &Tally) -> String {
        let (lower, upper) = self.bounds();
        let decision = match self.state(tally) {
            SprtState::AcceptH1 => {
                format!("H1 accepted: A is stronger by {} Elo", signed_elo(self.elo1))
            }
            SprtState::AcceptH0 => {
                format!("H0 accepted: A is stronger by {} Elo at most", signed_elo(self.elo0))
            }
            SprtState::Continue => format!("no decision after {} games", tally.games()),
        };
        let draws = 100.0 * f64::from(tally.draws) / f64::from(tally.games().max(1));
        format!(
            "SPRT elo0 {} elo1 {} alpha {} beta {}: A +{} ={} -{} ({draws:.0}% draws), score {:.3}, Elo {}; LLR {:.2} in [{lower:.2}, {upper:.2}], {decision}",
            signed_elo(self.elo0),
            signed_elo(self.elo1),
            self.alpha,
            self.beta,
            tally.wins,
            tally.draws,
            tally.losses,
            tally.score(),
            tally.elo(),
            self.llr(tally),
        )
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

/// The inline table a config writes: `{elo0 = 0, elo1 = 35, alpha = 0.05, beta = 0.05}`.
impl ConfigText for SprtConfig {
    fn config_text(&self) -> String {
        let entries: [(&str, &dyn std::fmt::Display); 4] = [
            ("elo0", &self.elo0),
            ("elo1", &self.elo1),
            ("alpha", &self.alpha),
            ("beta", &self.beta),
        ];
        inline_table(None, &entries)
    }
}

/// `ELO0,ELO1[,ALPHA,BETA]` (alpha and beta 0.05 when left out), checked as
/// [`SprtConfig::validate`] does.
impl FromStr for SprtConfig {
    type Err = String;

    fn from_str(text: &str) -> Result<SprtConfig, String> {
        let numbers = text
            .split(',')
            .map(|x| x.trim().parse::<f64>().map_err(|_| format!("`{x}` is not a number")))
            .collect::<Result<Vec<f64>, String>>()
            .map_err(|e| format!("{e} (expected ELO0,ELO1[,ALPHA,BETA])"))?;
        let sprt = match numbers[..] {
            [elo0, elo1] => SprtConfig { elo0, elo1, ..SprtConfig::default() },
            [elo0, elo1, alpha, beta] => SprtConfig { elo0, elo1, alpha, beta },
            _ => {
                return Err(format!(
                    "{} numbers given, expected ELO0,ELO1[,ALPHA,BETA]",
                    numbers.len()
                ))
            }
        };
        sprt.validate().map_err(|e| e.to_string())?;
        Ok(sprt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_are_written_as_a_config_table() {
        let text = "{elo0 = 0, elo1 = 35, alpha = 0.05, beta = 0.05}";
        assert_eq!(SprtConfig::default().config_text(), text);
        assert_eq!(None::<SprtConfig>.config_text(), "none");
    }

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

    #[test]
    fn parsed_from_the_command_line_with_each_bad_setting_named() {
        let sprt: SprtConfig = "0,35".parse().unwrap();
        assert_eq!(sprt, SprtConfig::default());
        let full: SprtConfig = "-5, 10, 0.01, 0.1".parse().unwrap();
        assert_eq!(full, SprtConfig { elo0: -5.0, elo1: 10.0, alpha: 0.01, beta: 0.1 });
        for (text, named) in [
            ("10,5", "sprt.elo1"),
            ("0,35,0.6,0.05", "sprt.alpha"),
            ("0,35,0.05,0", "sprt.beta"),
            ("0,x", "`x` is not a number"),
            ("0,35,0.05", "3 numbers given"),
        ] {
            let err = text.parse::<SprtConfig>().unwrap_err();
            assert!(err.contains(named), "{text}: {err}");
        }
    }

    #[test]
    fn the_verdict_names_the_hypothesis_accepted_or_none() {
        let sprt = SprtConfig::default();
        let swept = sprt.verdict(&Tally { wins: 20, draws: 0, losses: 0 });
        assert!(swept.contains("H1 accepted: A is stronger by +35 Elo"), "{swept}");
        assert!(swept.contains("A +20 =0 -0 (0% draws), score 1.000, Elo +inf"), "{swept}");
        assert!(swept.contains("in [-2.94, 2.94]"), "{swept}");
        let lost = sprt.verdict(&Tally { wins: 0, draws: 2, losses: 12 });
        assert!(lost.contains("H0 accepted"), "{lost}");
        let even = sprt.verdict(&Tally { wins: 5, draws: 10, losses: 5 });
        assert!(even.ends_with("no decision after 20 games"), "{even}");
        assert!(even.contains("LLR -"), "{even}");
    }
}
