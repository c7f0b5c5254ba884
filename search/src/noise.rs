//! Dirichlet noise mixed into the root priors, for exploration in self-play.

use rand::Rng;
use rand_distr::{Distribution, Gamma};

/// Replaces `priors` by `(1 - fraction) * prior + fraction * noise`, with `noise` drawn from a
/// symmetric Dirichlet(`alpha`) (normalised Gamma(`alpha`, 1) draws). A single prior is left alone.
pub(crate) fn mix_dirichlet(priors: &mut [f32], alpha: f32, fraction: f32, rng: &mut impl Rng) {
    if priors.len() < 2 || fraction <= 0.0 {
        return;
    }
    let gamma = Gamma::new(alpha, 1.0).expect("alpha was validated to be positive and finite");
    let mut noise: smallvec::SmallVec<[f32; 48]> =
        priors.iter().map(|_| gamma.sample(rng)).collect();
    let total: f32 = noise.iter().sum();
    if total <= 0.0 || !total.is_finite() {
        // Every draw underflowed (tiny alpha): the noise degenerates to one random step.
        noise.iter_mut().for_each(|x| *x = 0.0);
        let pick = rng.random_range(0..noise.len());
        noise[pick] = 1.0;
    } else {
        noise.iter_mut().for_each(|x| *x /= total);
    }
    for (prior, eta) in priors.iter_mut().zip(&noise) {
        *prior = (1.0 - fraction) * *prior + fraction * eta;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn noise_moves_priors_by_the_configured_fraction() {
        let mut rng = StdRng::seed_from_u64(1);
        let base = [0.5, 0.25, 0.125, 0.125];
        let mut priors = base;
        mix_dirichlet(&mut priors, 0.3, 0.25, &mut rng);
        assert!((priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        // What was added is `0.25 * noise`, a distribution: non-negative, summing to 0.25.
        let added: Vec<f32> = priors.iter().zip(&base).map(|(p, b)| p - 0.75 * b).collect();
        assert!(added.iter().all(|&x| x >= -1e-6), "{added:?}");
        assert!((added.iter().sum::<f32>() - 0.25).abs() < 1e-5);
        assert_ne!(priors, base);
    }
}
