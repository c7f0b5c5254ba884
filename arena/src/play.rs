//! One game of a match: the ballot's moves from the start position, then the players in turn
//! until the rules engine declares the game over (its draw rules included), or, with endgame
//! tables, until the first position at the start of a move that they cover: the game is then
//! adjudicated with the tables' value. The rules come first: a position that is over by them
//! (no move, a repetition, no progress) ends the game by them even when the tables cover it.
//! Under a game clock ([`GameClock`]) each move is thought about within its budget, and a side
//! whose clock runs out loses on time.

use crate::clock::GameClock;
use crate::error::ArenaError;
use crate::fixture::Fixture;
use crate::player::{Choice, Contestant, Player};
use crate::record::ending;
use crate::runner::MatchConfig;
use draughts::{Color, Game, GameResult, Outcome, PdnGame, Position};
use egdb::Tables;
use search::{SearchControl, ThinkRequest};
use std::time::Instant;
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
    pub ending: Ending,
}

/// How a game of a match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// By the rules: a side without pieces or moves, or a draw by the draw rules.
    Rules(Outcome),
    /// Adjudicated at the first position the endgame tables cover, with their value.
    Tables {
        /// The side that wins with best play; `None` for a draw.
        winner: Option<Color>,
    },
    /// A side's clock ran out (a game under a [`GameClock`]).
    Time {
        /// The side out of time.
        loser: Color,
    },
}

impl Ending {
    /// 1 when `color` won, 0 for a draw, -1 when it lost.
    pub fn score_for(self, color: Color) -> i8 {
        match self {
            Ending::Rules(outcome) => outcome.score_for(color),
            Ending::Tables { winner: None } => 0,
            Ending::Tables { winner: Some(winner) } => {
                if winner == color {
                    1
                } else {
                    -1
                }
            }
            Ending::Time { loser } => {
                if loser == color {
                    -1
                } else {
                    1
                }
            }
        }
    }

    /// The game's result.
    pub fn result(self) -> GameResult {
        match self {
            Ending::Rules(outcome) => GameResult::from_outcome(Some(outcome)),
            Ending::Tables { winner: Some(Color::Black) } => GameResult::BlackWins,
            Ending::Tables { winner: Some(Color::White) } => GameResult::WhiteWins,
            Ending::Tables { winner: None } => GameResult::Draw,
            Ending::Time { loser: Color::White } => GameResult::BlackWins,
            Ending::Time { loser: Color::Black } => GameResult::WhiteWins,
        }
    }

    /// How the game ended, in one word (see [`crate::ending`]); `endgame_tables` when adjudicated,
    /// `time` when a clock ran out.
    pub fn word(self) -> &'static str {
        match self {
            Ending::Rules(outcome) => ending(outcome),
            Ending::Tables { .. } => "endgame_tables",
            Ending::Time { .. } => "time",
        }
    }
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
        f64::from(self.ending.score_for(a) + 1) / 2.0
    }

    /// The game as PDN: the roster (`Round` is the game's number in the match, from 1), the ballot
    /// (`Ballot` its name, `BallotMoves` its moves, which also open the move text) and how it ended
    /// (`Termination`, `endgame_tables` for a game the tables adjudicated, whose `Result` is then
    /// theirs).
    pub fn to_pdn(&self, event: &str) -> PdnGame {
        let mut pdn = PdnGame::from_game(&self.game);
        pdn.result = self.ending.result();
        pdn.set_tag("Event", event);
        pdn.set_tag("Round", (self.fixture.index + 1).to_string());
        pdn.set_tag("Black", &self.black.name);
        pdn.set_tag("White", &self.white.name);
        pdn.set_tag("Ballot", &self.fixture.ballot.name);
        pdn.set_tag("BallotMoves", self.fixture.ballot.text());
        pdn.set_tag("Termination", self.ending.word());
        pdn
    }
}

/// Plays `fixture` between `a` and `b` as `config` says: its draw rules, its seed (each game and
/// side gets its own from it), its endgame tables (the game adjudicated at the first position
/// they cover, the ballot's positions included; see the module documentation) and its clock.
pub fn play_fixture(
    a: &dyn Contestant,
    b: &dyn Contestant,
    fixture: &Fixture,
    config: &MatchConfig,
) -> Result<PlayedGame, ArenaError> {
    let (rules, seed, tables) = (config.rules, config.seed, config.tables.as_deref());
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
    let ending = finish(&mut game, &mut players, names, tables, config.clock)?;
    Ok(PlayedGame {
        fixture: fixture.clone(),
        black: Side::of(black),
        white: Side::of(white),
        game,
        ending,
    })
}

/// Lets the players (Black's first) move until the game is over, `tables` cover its position, or
/// (under `clock`) a side's time runs out; every move is checked.
pub(crate) fn finish(
    game: &mut Game,
    players: &mut [Box<dyn Player>; 2],
    names: [&str; 2],
    tables: Option<&Tables>,
    clock: Option<GameClock>,
) -> Result<Ending, ArenaError> {
    // Seconds left on each side's clock, before its next move's increment.
    let mut left = clock.map_or([0.0; 2], |clock| [clock.base; 2]);
    loop {
        if let Some(outcome) = game.outcome() {
            return Ok(Ending::Rules(outcome));
        }
        if let Some(ending) = tables.and_then(|t| adjudicate(t, game.position())) {
            return Ok(ending);
        }
        let mover = game.position().side_to_move();
        let side = mover.index();
        let choice = match clock {
            None => players[side].choose(game)?,
            Some(clock) => {
                let started = Instant::now();
                let choice = think_under(clock, left[side], players[side].as_mut(), game)?;
                left[side] = clock.after_move(left[side], started.elapsed().as_secs_f64());
                if left[side] < 0.0 {
                    return Ok(Ending::Time { loser: mover });
                }
                choice
            }
        };
        let before = *game.position();
        game.play(choice.mv).map_err(|_| ArenaError::IllegalMove {
            player: names[side].to_string(),
            mv: choice.mv.to_string(),
            ply: game.ply(),
            fen: before.to_fen(),
        })?;
    }
}

/// `player`'s move in `game` within the budget of a move with `left` seconds on its `clock`.
fn think_under(
    clock: GameClock,
    left: f64,
    player: &mut dyn Player,
    game: &Game,
) -> Result<Choice, ArenaError> {
    let control = SearchControl::new();
    let request =
        ThinkRequest { budget: clock.budget(left), control: &control, report: &mut |_| {} };
    player.think(game, request)
}

/// The tables' verdict on `position` (at the start of a move) when it has at most
/// [`Tables::max_pieces`] pieces and they cover it.
fn adjudicate(tables: &Tables, position: &Position) -> Option<Ending> {
    search::table_winner(tables, position).map(|winner| Ending::Tables { winner })
}
