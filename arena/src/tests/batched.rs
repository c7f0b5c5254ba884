//! The batched path: games on many threads whose players share an inference server play exactly
//! the games the direct path plays (each player with its own evaluator, one game at a time), for
//! an evaluator that answers from the position alone.

use crate::fixture::schedule;
use crate::openings::standard_deck;
use crate::player::{Contestant, Player};
use crate::players::mcts::{MctsPlayer, Thinking};
use crate::runner::{run_fixtures, MatchConfig};
use crate::ArenaError;
use draughts::DrawRules;
use search::{BoxedEvaluator, EvalError, EvalRequest, Evaluation, Evaluator, InferenceServer};
use std::ops::ControlFlow;

/// Priors and value from a hash of the position and the step: the same answer in any batch.
struct Hashed(u64);

impl Evaluator for Hashed {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        let mix = |h: u64| h.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self.0;
        Ok(requests
            .iter()
            .map(|r| {
                let h = mix(r.observation.position.hash());
                Evaluation {
                    priors: r
                        .policy_indices()
                        .map(|i| 1.0 + (mix(h ^ i as u64) % 7) as f32)
                        .collect(),
                    value: (h % 2001) as f32 / 1000.0 - 1.0,
                    draw: 0.0,
                }
            })
            .collect())
    }
}

/// An MCTS contestant over `Hashed(salt)`: each player's own, or a client of one server.
struct Side {
    name: &'static str,
    salt: u64,
    server: Option<InferenceServer>,
}

impl Side {
    fn new(name: &'static str, salt: u64, batched: bool) -> Side {
        let server = batched.then(|| InferenceServer::start(Box::new(Hashed(salt)), 256));
        Side { name, salt, server }
    }
}

impl Contestant for Side {
    fn name(&self) -> &str {
        self.name
    }

    fn player(&self, seed: u64) -> Result<Box<dyn Player>, ArenaError> {
        let evaluator: BoxedEvaluator = match &self.server {
            Some(server) => Box::new(server.client()),
            None => Box::new(Hashed(self.salt)),
        };
        let thinking = Thinking::Playouts(48);
        Ok(Box::new(MctsPlayer::new(self.name.into(), evaluator, thinking, seed)))
    }

    fn shares_batches(&self) -> bool {
        true
    }
}

#[test]
fn a_match_through_shared_servers_plays_the_same_games_as_the_direct_path() {
    let fixtures = schedule(&standard_deck().unwrap(), 24, 5);
    let play = |batched: bool, threads: usize| {
        let (a, b) = (Side::new("a", 1, batched), Side::new("b", 2, batched));
        let rules = DrawRules { max_plies: 120, ..DrawRules::default() };
        let config = MatchConfig { rules, seed: 3, threads, tables: None, clock: None };
        run_fixtures(&a, &b, &fixtures, config, |_| ControlFlow::Continue(())).unwrap()
    };
    let direct = play(false, 1);
    // threads 0: as many games at once as nets that share batches get (more than the fixtures).
    let batched = play(true, 0);
    assert_eq!(direct.len(), 24);
    for (d, b) in direct.iter().zip(&batched) {
        assert_eq!(d.game.moves(), b.game.moves(), "ballot {}", d.fixture.ballot.name);
        assert_eq!(d.ending, b.ending);
    }
}

/// Fails every batch from its `after`-th call on, as a device that ran out of memory would.
struct FailsAfter(usize);

impl Evaluator for FailsAfter {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        if self.0 == 0 {
            return Err(EvalError::new(requests.len(), "CUDA out of memory (a test's)"));
        }
        self.0 -= 1;
        Hashed(0).evaluate(requests)
    }
}

#[test]
fn a_failing_net_stops_the_match_with_one_line_naming_the_player_and_the_cause() {
    let failing = Side {
        name: "failing",
        salt: 0,
        server: Some(InferenceServer::start(Box::new(FailsAfter(40)), 256)),
    };
    let other = Side::new("other", 1, true);
    let fixtures = schedule(&standard_deck().unwrap(), 8, 5);
    let config =
        MatchConfig { rules: DrawRules::default(), seed: 3, threads: 0, tables: None, clock: None };
    let err = run_fixtures(&failing, &other, &fixtures, config, |_| ControlFlow::Continue(()))
        .expect_err("the match fails");
    let line = support::one_line(&err);
    assert!(
        line.contains("failing")
            && line.contains("evaluating a batch of")
            && line.contains("out of memory"),
        "{line}"
    );
    assert!(!line.contains('\n'), "{line}");
}
