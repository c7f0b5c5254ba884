//! The schedule of a match: which ballot each game opens with and who plays Black.
//!
//! Ballots come in pairs of games with colours swapped, so neither side profits from a lopsided
//! opening. A match shorter than the deck plays a seeded sample of it; a longer one goes round again.

use crate::openings::Ballot;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// One game of a match between players A and B.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixture {
    /// Position in the schedule, from 0.
    pub index: usize,
    /// The opening both players start from.
    pub ballot: Ballot,
    /// Whether player A plays Black (moves first, before the ballot's first move).
    pub a_is_black: bool,
}

/// `games` fixtures (rounded up to even): each chosen ballot twice, A first as Black then as White.
/// With fewer than two games per ballot, `seed` chooses which ballots; they are played in deck order.
pub fn schedule(deck: &[Ballot], games: usize, seed: u64) -> Vec<Fixture> {
    let pairs = games.div_ceil(2);
    let mut order: Vec<usize> = Vec::with_capacity(pairs);
    while order.len() < pairs {
        let left = pairs - order.len();
        if left >= deck.len() {
            order.extend(0..deck.len());
        } else {
            let mut sample: Vec<usize> = (0..deck.len()).collect();
            sample.shuffle(&mut StdRng::seed_from_u64(seed));
            sample.truncate(left);
            sample.sort_unstable();
            order.extend(sample);
        }
    }
    order
        .iter()
        .enumerate()
        .flat_map(|(pair, &b)| {
            [true, false].map(|a_is_black| Fixture {
                index: 2 * pair + usize::from(!a_is_black),
                ballot: deck[b].clone(),
                a_is_black,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openings::standard_deck;

    #[test]
    fn each_ballot_is_played_twice_with_colours_swapped() {
        let deck = standard_deck().unwrap();
        let fixtures = schedule(&deck, 20, 7);
        assert_eq!(fixtures.len(), 20);
        for (i, pair) in fixtures.chunks(2).enumerate() {
            assert_eq!(pair[0].ballot, pair[1].ballot);
            assert!(pair[0].a_is_black && !pair[1].a_is_black);
            assert_eq!((pair[0].index, pair[1].index), (2 * i, 2 * i + 1));
        }
        let mut names: Vec<_> = fixtures.iter().map(|f| f.ballot.name.clone()).collect();
        names.dedup();
        assert_eq!(names.len(), 10, "10 distinct ballots");
    }

    #[test]
    fn a_long_match_plays_the_whole_deck_in_order_then_goes_round() {
        let deck = standard_deck().unwrap();
        let fixtures = schedule(&deck, 2 * deck.len() + 4, 0);
        assert_eq!(fixtures[0].ballot.name, "001");
        assert_eq!(fixtures[2 * deck.len() - 1].ballot, deck[deck.len() - 1]);
        assert_eq!(fixtures.len(), 2 * deck.len() + 4);
    }
}
