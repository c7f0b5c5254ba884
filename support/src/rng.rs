//! SplitMix64: a tiny seeded generator whose whole state is one `u64` (so a checkpoint restores
//! the exact sequence), and its finaliser as a seed mixer for streams of items.

/// Added to the state at each step (2^64 / golden ratio).
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function: a bijection that spreads every input bit over the output.
const fn finalise(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A well-spread seed for item `i` of a stream seeded `seed` (e.g. game `i` of a run), the same
/// whichever thread asks.
pub const fn mix(seed: u64, i: u64) -> u64 {
    finalise(seed ^ i.wrapping_mul(GOLDEN))
}

/// A seeded SplitMix64 generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    /// The whole state: save it to resume the sequence.
    pub state: u64,
}

impl SplitMix64 {
    /// A generator whose sequence is fixed by `seed`.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits (usable in `const` code, e.g. to build tables at compile time).
    pub const fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        finalise(self.state)
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift (bias below 2^-32 for any `n` below 2^32).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = SplitMix64::new(3);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[rng.below(7) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| (800..1200).contains(&c)), "{seen:?}");
    }

    #[test]
    fn the_sequence_is_splitmix64() {
        // The first outputs for seed 1234567 of the reference implementation (Vigna's splitmix64.c).
        let mut rng = SplitMix64::new(1234567);
        assert_eq!(rng.next_u64(), 6457827717110365317);
        assert_eq!(rng.next_u64(), 3203168211198807973);
    }

    #[test]
    fn mix_spreads_neighbouring_items() {
        let (a, b) = (mix(7, 0), mix(7, 1));
        assert_ne!(a, b);
        assert!((a ^ b).count_ones() > 16, "{a:x} {b:x}");
        assert_eq!(mix(7, 1), mix(7, 1));
    }
}
