//! Evaluation: players (nets with or without search, alpha-beta, random), matches over opening
//! ballots, gating, and what the results say (Elo, SPRT, the ladder, the learning curve and their
//! plots, in `ratings/`).
//!
//! Three layers make a side of a match, from the command line down: a [`PlayerSpec`] is the text
//! (`mcts:RUN:400`), checked; an [`Entrant`] is that spec made ready (its net loaded once, its
//! name and step known), the usual [`Contestant`] — the trait a match plays, which any other side
//! (a test's, a benchmark's) can implement too; a [`Player`] is what a contestant makes for each
//! game, with that game's state (a search tree, a seed), so that games run in parallel.

mod anchors;
mod clock;
mod entrant;
mod error;
mod fixture;
mod gate;
mod openings;
mod play;
mod player;
mod players;
mod ratings;
mod record;
mod runner;
mod spec;

pub use anchors::{play_anchor, EvalConfig, EvalRecord};
pub use clock::GameClock;
pub use entrant::{Entrant, NetOptions};
pub use error::{ArenaError, BallotError, PlayerFailure};
pub use fixture::{schedule, Fixture};
pub use gate::{run_gate, DecidedBy, GateConfig, GateRecord, GateReport};
pub use openings::{parse_deck, read_deck, standard_deck, Ballot, STANDARD_DECK};
pub use play::{play_fixture, Ending, PlayedGame, Side};
pub use player::{Choice, Contestant, Player};
pub use players::alphabeta::AlphaBetaPlayer;
pub use players::mcts::{player_config, MctsPlayer, Thinking, PLAYER_PLAYOUTS};
pub use players::policy::PolicyPlayer;
pub use players::random::RandomPlayer;
pub use ratings::curve::{AnchorCurve, Clock, CurvePoint, LearningCurve, Slope, Span};
pub use ratings::ladder::{default_anchor, linked_to, rate, Rating, VIRTUAL_DRAWS};
pub use ratings::plot::{curve_svg, elo_svg, XAxis};
pub use ratings::sprt::{SprtConfig, SprtState};
pub use ratings::tally::{elo_of_score, score_of_elo, signed_elo, EloEstimate, Tally};
pub use record::{black_points, ending, run_results_file, ResultRecord};
pub use runner::{run_fixtures, run_fixtures_until, MatchConfig, GAMES_SHARING_NETS};
pub use spec::{names_a_net, NetSource, PlayerSpec, SearchLimit, MAX_DEPTH};

#[cfg(test)]
mod tests;
