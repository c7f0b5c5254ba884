//! One game of a match: the ballot's moves from the start position, then the players in turn
//! until the rules engine declares the game over (its draw rules included).

use crate::error::ArenaError;
use crate::fixture::Fixture;
use crate::player::{Contestant, Player};
use crate::record::ending;
use draughts::{Color, DrawRules, Game, Outcome, PdnGame, Position};
use support::mix;

/// A finished game with who played it.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    /// Which ballot was played and who had Black.
    pub fixture: Fixture,
    /// The player of Black (the side that moves first).
    pub black: Side,
    /// The player of White.
    pub white: Side,
    /// The whole game from the start position, the ballot's moves first.
    pub game: Game,
    /// How the game ended.
    pub outcome: Outcome,
}

/// A player's identity in a finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    /// The player's name (see [`crate::Contestant::name`]).
    pub name: String,
    /// Training step of the player's checkpoint, for net players.
    pub step: Option<u64>,
}

impl Side {
    fn of(contestant: &dyn Contestant) -> Side {
        Side { name: contestant.name().to_string(), step: contestant.step() }
    }
}

impl PlayedGame {
    /// Player A's points: 1 win, 0.5 draw, 0 loss.
    pub fn score_of_a(&self) -> f64 {
        let a = if self.fixture.a_is_black { Color::Black } else { Color::White };
        f64::from(self.outcome.score_for(a) + 1) / 2.0
    }

    /// The game as PDN: the roster (`Round` is the game's number in the match, from 1), the ballot
    /// (`Ballot` its name, `BallotMoves` its moves, which also open the move text) and how it ended
    /// (`Termination`).
    pub fn to_pdn(&self, event: &str) -> PdnGame {
        let mut pdn = PdnGame::from_game(&self.game);
        pdn.set_tag("Event", event);
        pdn.set_tag("Round", (self.fixture.index + 1).to_string());
        pdn.set_tag("Black", &self.black.name);
        pdn.set_tag("White", &self.white.name);
        pdn.set_tag("Ballot", &self.fixture.ballot.name);
        pdn.set_tag("BallotMoves", self.fixture.ballot.text());
        pdn.set_tag("Termination", ending(self.outcome));
        pdn
    }
}

/// Plays `fixture` between `a` and `b`. `seed` is the match's; each game and side gets its own.
pub fn play_fixture(
    a: &dyn Contestant,
    b: &dyn Contestant,
    fixture: &Fixture,
    rules: DrawRules,
    seed: u64,
) -> Result<PlayedGame, ArenaError> {
    let (black, white) = if fixture.a_is_black { (a, b) } else { (b, a) };
    // Items are counted from 1, as they always were: the same seed plays the same games.
    let game_seed = mix(seed, fixture.index as u64 + 1);
    let mut players = [black.player(mix(game_seed, 1))?, white.player(mix(game_seed, 2))?];
    let names = [black.name(), white.name()];
    let mut game = Game::new(Position::start(), rules);
    for &mv in &fixture.ballot.moves {
        // A deck's ballots were checked when it was read.
        game.play_unchecked(mv);
    }
    let outcome = finish(&mut game, &mut players, names)?;
    Ok(PlayedGame {
        fixture: fixture.clone(),
        black: Side::of(black),
        white: Side::of(white),
        game,
        outcome,
    })
}

/// Lets the players (Black's first) move until the game is over; every move is checked.
fn finish(
    game: &mut Game,
    players: &mut [Box<dyn Player>; 2],
    names: [&str; 2],
) -> Result<Outcome, ArenaError> {
    loop {
        if let Some(outcome) = game.outcome() {
            return Ok(outcome);
        }
        let side = game.position().side_to_move().index();
        let choice = players[side].choose(game)?;
        let before = *game.position();
        game.play(choice.mv).map_err(|_| ArenaError::IllegalMove {
            player: names[side].to_string(),
            mv: choice.mv.to_string(),
            ply: game.ply(),
            fen: before.to_fen(),
        })?;
    }
}
