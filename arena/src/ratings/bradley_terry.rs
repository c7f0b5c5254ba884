//! Bradley-Terry ratings by maximum likelihood, with draws counted as half a win for each side,
//! anchored at one player, with 95% intervals from the Fisher information.
//!
//! Model: player i scores against j with expectation `1 / (1 + 10^((r_j - r_i) / 400))`. A draw
//! adds half a point to each side's tally, so the fit is a quasi-likelihood; with draws the true
//! variance of a game is below the model's, so the intervals are slightly conservative.
//! Every pair that met also gets `virtual_draws` drawn games, which keeps the ratings finite when a
//! player won or lost all its games (a clean sweep has no finite maximum).

use std::f64::consts::LN_10;

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;
/// Elo points per natural-log odds unit.
const ELO_PER_NAT: f64 = 400.0 / LN_10;

/// Games between two players: `points` scored by `a` out of `games`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairResult {
    pub a: usize,
    pub b: usize,
    pub games: f64,
    pub points: f64,
}

/// One player's fitted rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fitted {
    pub elo: f64,
    /// Half the width of the 95% interval (0 for the anchor).
    pub margin: f64,
}

/// Fits `players` ratings from `pairs`, player `anchor` fixed at 0. Every player must be connected
/// to the anchor through games; `Err` names those that are not (by index).
pub fn fit(
    players: usize,
    pairs: &[PairResult],
    anchor: usize,
    virtual_draws: f64,
) -> Result<Vec<Fitted>, Vec<usize>> {
    let unreached = unconnected(players, pairs, anchor);
    if !unreached.is_empty() {
        return Err(unreached);
    }
    let pairs: Vec<PairResult> = pairs
        .iter()
        .map(|p| PairResult {
            games: p.games + virtual_draws,
            points: p.points + 0.5 * virtual_draws,
            ..*p
        })
        .collect();
    // Free parameters: every player but the anchor, in order.
    let free: Vec<usize> = (0..players).filter(|&i| i != anchor).collect();
    let slot = |i: usize| free.iter().position(|&f| f == i);
    let mut theta = vec![0.0f64; players];
    let mut info = vec![vec![0.0; free.len()]; free.len()];
    for _ in 0..200 {
        let mut grad = vec![0.0; free.len()];
        info.iter_mut().for_each(|row| row.iter_mut().for_each(|x| *x = 0.0));
        for p in &pairs {
            let expected = 1.0 / (1.0 + (theta[p.b] - theta[p.a]).exp());
            let residual = p.points - p.games * expected;
            let weight = p.games * expected * (1.0 - expected);
            let (sa, sb) = (slot(p.a), slot(p.b));
            if let Some(a) = sa {
                grad[a] += residual;
                info[a][a] += weight;
            }
            if let Some(b) = sb {
                grad[b] -= residual;
                info[b][b] += weight;
            }
            if let (Some(a), Some(b)) = (sa, sb) {
                info[a][b] -= weight;
                info[b][a] -= weight;
            }
        }
        let step = solve(&info, &grad);
        let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        // Damped Newton: at most one log-odds unit per player and iteration.
        let scale = if largest > 1.0 { 1.0 / largest } else { 1.0 };
        for (k, &i) in free.iter().enumerate() {
            theta[i] += scale * step[k];
        }
        if largest < 1e-10 {
            break;
        }
    }
    let covariance = invert(&info);
    Ok((0..players)
        .map(|i| Fitted {
            elo: theta[i] * ELO_PER_NAT,
            margin: slot(i).map_or(0.0, |k| Z95 * covariance[k][k].sqrt() * ELO_PER_NAT),
        })
        .collect())
}

/// Players not linked to `anchor` by a chain of games.
fn unconnected(players: usize, pairs: &[PairResult], anchor: usize) -> Vec<usize> {
    let mut reached = vec![false; players];
    let mut stack = vec![anchor];
    reached[anchor] = true;
    while let Some(i) = stack.pop() {
        for p in pairs.iter().filter(|p| p.games > 0.0) {
            for (from, to) in [(p.a, p.b), (p.b, p.a)] {
                if from == i && !reached[to] {
                    reached[to] = true;
                    stack.push(to);
                }
            }
        }
    }
    (0..players).filter(|&i| !reached[i]).collect()
}

/// Solves `m x = v` for a symmetric positive-definite `m` (Cholesky).
fn solve(m: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    let l = cholesky(m);
    let n = v.len();
    let mut y = vec![0.0; n];
    for i in 0..n {
        y[i] = (v[i] - (0..i).map(|k| l[i][k] * y[k]).sum::<f64>()) / l[i][i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        x[i] = (y[i] - (i + 1..n).map(|k| l[k][i] * x[k]).sum::<f64>()) / l[i][i];
    }
    x
}

fn invert(m: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = m.len();
    let columns: Vec<Vec<f64>> = (0..n)
        .map(|j| solve(m, &(0..n).map(|i| f64::from(u8::from(i == j))).collect::<Vec<_>>()))
        .collect();
    (0..n).map(|i| (0..n).map(|j| columns[j][i]).collect()).collect()
}

/// The lower-triangular `l` with `l l^T = m`.
fn cholesky(m: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = m.len();
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let sum: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            if i == j {
                l[i][i] = (m[i][i] - sum).max(1e-12).sqrt();
            } else {
                l[i][j] = (m[i][j] - sum) / l[j][j];
            }
        }
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ratings::tally::score_of_elo;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    const TRUE_ELO: [f64; 5] = [0.0, 120.0, 300.0, 450.0, 700.0];

    /// A round robin with `games` per pair; a third of the games that are not decisive by chance draw.
    fn season(rng: &mut StdRng, games: usize) -> Vec<PairResult> {
        let mut pairs = Vec::new();
        for (a, elo_a) in TRUE_ELO.iter().enumerate() {
            for (b, elo_b) in TRUE_ELO.iter().enumerate().skip(a + 1) {
                let expected = score_of_elo(elo_a - elo_b);
                let draw = 0.3 * 2.0 * expected.min(1.0 - expected);
                let win = expected - draw / 2.0;
                let points: f64 = (0..games)
                    .map(|_| {
                        let u: f64 = rng.random();
                        if u < win {
                            1.0
                        } else if u < win + draw {
                            0.5
                        } else {
                            0.0
                        }
                    })
                    .sum();
                pairs.push(PairResult { a, b, games: games as f64, points });
            }
        }
        pairs
    }

    #[test]
    fn the_fit_recovers_known_ratings_within_its_intervals() {
        let mut rng = StdRng::seed_from_u64(11);
        let fitted = fit(TRUE_ELO.len(), &season(&mut rng, 400), 0, 1.0).unwrap();
        for (f, truth) in fitted.iter().zip(TRUE_ELO) {
            assert!((f.elo - truth).abs() <= f.margin, "fitted {f:?}, true {truth}");
        }
        assert_eq!(fitted[0], Fitted { elo: 0.0, margin: 0.0 });
        assert!(fitted[4].margin > 10.0 && fitted[4].margin < 80.0, "{:?}", fitted[4]);
    }

    #[test]
    fn the_intervals_cover_the_truth_about_95_percent_of_the_time() {
        let mut rng = StdRng::seed_from_u64(5);
        let (mut covered, mut total) = (0, 0);
        for _ in 0..200 {
            let fitted = fit(TRUE_ELO.len(), &season(&mut rng, 60), 0, 1.0).unwrap();
            for (f, truth) in fitted.iter().zip(TRUE_ELO).skip(1) {
                total += 1;
                covered += usize::from((f.elo - truth).abs() <= f.margin);
            }
        }
        let coverage = covered as f64 / total as f64;
        assert!((0.92..=0.995).contains(&coverage), "coverage {coverage}");
    }

    #[test]
    fn a_clean_sweep_stays_finite_and_a_stranger_is_named() {
        let pairs = [PairResult { a: 0, b: 1, games: 20.0, points: 0.0 }];
        let fitted = fit(2, &pairs, 0, 1.0).unwrap();
        assert!(fitted[1].elo.is_finite() && fitted[1].elo > 400.0, "{fitted:?}");
        assert_eq!(fit(3, &pairs, 0, 1.0).unwrap_err(), vec![2]);
    }
}
