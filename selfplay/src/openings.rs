//! Where self-play games start: the start position, or an opening ballot's position (a deck's
//! moves played from the start position) for a given share of the games. Which, and which
//! ballot, follow from the game's seed alone, so a game does not depend on the worker that plays
//! it. Starting from a deck spreads the games over the openings matches are played from: from the
//! start position alone the net's own preferences narrow self-play to a few of them.

use draughts::{DrawRules, Game, Move, Position};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;

/// Mixed into the game's seed for the choice of its opening, so it differs from the search's.
const OPENING_SEED_SALT: u64 = 0x0BE2_1265_0000_0002;

/// The ballots self-play starts from, and the share of games that start from one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Openings {
    ballots: Arc<[Vec<Move>]>,
    share: f64,
}

impl Openings {
    /// Every game from the start position.
    pub fn none() -> Openings {
        Openings::default()
    }

    /// A share `share` (in 0..=1) of the games from a ballot of `ballots` drawn uniformly, each
    /// ballot the moves from the start position (legal; a deck is checked when it is read). With
    /// no ballots every game starts from the start position.
    pub fn new(ballots: Vec<Vec<Move>>, share: f64) -> Openings {
        Openings { ballots: ballots.into(), share: share.clamp(0.0, 1.0) }
    }

    /// The game a self-play game with seed `seed` starts from, under `rules`.
    pub fn start(&self, seed: u64, rules: DrawRules) -> Game {
        let mut game = Game::new(Position::start(), rules);
        if self.ballots.is_empty() {
            return game;
        }
        let mut rng = StdRng::seed_from_u64(seed ^ OPENING_SEED_SALT);
        if rng.random::<f64>() < self.share {
            for &mv in &self.ballots[rng.random_range(0..self.ballots.len())] {
                game.play_unchecked(mv);
            }
        }
        game
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two ballots of the ACF deck.
    fn ballots() -> Vec<Vec<Move>> {
        let deck = arena::parse_deck("001 9-13 21-17 5-9\n150 12-16 24-19 8-12\n", "two").unwrap();
        deck.into_iter().map(|ballot| ballot.moves).collect()
    }

    fn openings_played(openings: &Openings) -> Vec<Vec<Move>> {
        (0..400).map(|seed| openings.start(seed, DrawRules::default()).moves().to_vec()).collect()
    }

    #[test]
    fn the_share_of_games_from_a_ballot_and_every_ballot_are_played() {
        let ballots = ballots();
        let from_deck = openings_played(&Openings::new(ballots.clone(), 0.5));
        let count = |ballot: &Vec<Move>| from_deck.iter().filter(|m| *m == ballot).count();
        let (first, second) = (count(&ballots[0]), count(&ballots[1]));
        let at_start = from_deck.iter().filter(|m| m.is_empty()).count();
        assert_eq!(first + second + at_start, 400, "a game starts from a ballot or the start");
        assert!(
            (150..250).contains(&(first + second)),
            "about half from a ballot: {first} + {second}"
        );
        assert!(first > 50 && second > 50, "both ballots drawn: {first}, {second}");
        let all = openings_played(&Openings::new(ballots.clone(), 1.0));
        assert!(all.iter().all(|m| ballots.contains(m)));
    }

    #[test]
    fn without_ballots_or_share_every_game_starts_at_the_start_and_the_seed_decides() {
        for openings in [Openings::none(), Openings::new(ballots(), 0.0)] {
            assert!(openings_played(&openings).iter().all(Vec::is_empty));
        }
        let openings = Openings::new(ballots(), 0.5);
        assert_eq!(openings_played(&openings), openings_played(&openings.clone()));
        let game = openings.start(7, DrawRules::default());
        assert_eq!(game.start(), &Position::start(), "the ballot's moves are the game's first");
    }
}
