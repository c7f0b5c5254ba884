//! Wins, draws and losses of one player against another, its score and the Elo difference it
//! implies, with a 95% interval.
//!
//! The interval is Wilson's score interval with the per-game variance of the score (three outcomes,
//! so draws narrow it) in place of the binomial one; it stays informative at a clean sweep (one end
//! finite). Games count as independent: pairing by ballot is ignored.

use serde::{Deserialize, Serialize};

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Results from one side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// An Elo difference with its 95% interval; infinite at a score of 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// The point estimate (positive: the side is stronger).
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

/// `+E [LOW, HIGH]`, each as [`signed_elo`] writes it.
impl std::fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (elo, low, high) = (signed_elo(self.elo), signed_elo(self.low), signed_elo(self.high));
        write!(f, "{elo} [{low}, {high}]")
    }
}

/// An Elo figure with its sign, rounded; infinite ones as `+inf` / `-inf`.
pub fn signed_elo(elo: f64) -> String {
    if elo.is_infinite() {
        (if elo > 0.0 { "+inf" } else { "-inf" }).into()
    } else {
        format!("{elo:+.0}")
    }
}

impl Tally {
    /// Counts one game scored `points` (1, 0.5 or 0).
    pub fn add(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Games counted: wins, draws and losses together.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points per game; 0.5 before any game.
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(self.games())
    }

    /// The variance of one game's points.
    pub fn variance(&self) -> f64 {
        let n = f64::from(self.games());
        if n == 0.0 {
            return 0.0;
        }
        let s = self.score();
        let sq = |points: f64, count: u32| f64::from(count) * (points - s) * (points - s);
        (sq(1.0, self.wins) + sq(0.5, self.draws) + sq(0.0, self.losses)) / n
    }

    /// The Elo difference and its 95% interval.
    pub fn elo(&self) -> EloEstimate {
        let s = self.score();
        let n = f64::from(self.games().max(1));
        let z2 = Z95 * Z95;
        let centre = (s + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = Z95 / (1.0 + z2 / n) * (self.variance() / n + z2 / (4.0 * n * n)).sqrt();
        EloEstimate {
            elo: elo_of_score(s),
            low: elo_of_score(centre - half),
            high: elo_of_score(centre + half),
        }
    }

    /// The same results from the other side.
    pub fn flipped(&self) -> Tally {
        Tally { wins: self.losses, draws: self.draws, losses: self.wins }
    }
}

/// The Elo difference at which the expected score is `score` (logistic, 400 points = factor 10).
pub fn elo_of_score(score: f64) -> f64 {
    let s = score.clamp(0.0, 1.0);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The expected score at an Elo difference.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_even_match_is_zero_elo() {
        let tally = Tally { wins: 10, draws: 20, losses: 10 };
        let elo = tally.elo();
        assert_eq!(tally.score(), 0.5);
        assert!(elo.elo.abs() < 1e-9);
        assert!(elo.low < 0.0 && elo.high > 0.0 && (elo.low + elo.high).abs() < 1e-9);
    }

    #[test]
    fn score_and_elo_are_inverse() {
        for elo in [-600.0, -100.0, 0.0, 35.0, 400.0] {
            assert!((elo_of_score(score_of_elo(elo)) - elo).abs() < 1e-9);
        }
        assert!((elo_of_score(0.75) - 190.85).abs() < 0.01);
    }

    #[test]
    fn a_clean_sweep_is_infinite_with_a_finite_lower_bound() {
        let tally = Tally { wins: 20, draws: 0, losses: 0 };
        let elo = tally.elo();
        assert_eq!(elo.elo, f64::INFINITY);
        assert!(elo.high > 2000.0, "{elo:?}");
        assert!((elo.low - 285.0).abs() < 5.0, "{elo:?}");
        assert_eq!(tally.flipped().elo().elo, f64::NEG_INFINITY);
        assert!((tally.flipped().elo().high + elo.low).abs() < 1e-6, "the interval is symmetric");
    }
}
