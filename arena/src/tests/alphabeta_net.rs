//! The alpha-beta player with a net at its leaves, loaded through a fake `NetLoader`: its name,
//! step and batches, the net's preference steering its move, and a failing net reported as the
//! player's failure.

use crate::entrant::{Entrant, NetOptions};
use crate::error::{ArenaError, PlayerFailure};
use crate::player::Contestant;
use draughts::{DrawRules, Game, Position};
use search::{
    BoxedEvaluator, EvalError, EvalRequest, Evaluation, Evaluator, LoadedNet, NetLoader,
    ScriptedEvaluator, SearchError,
};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use support::DeviceSpec;

/// Loads every checkpoint as a net at step 7 whose evaluators are copies of one evaluator.
#[derive(Debug)]
struct Copies<E>(E);

impl<E: Evaluator + Clone + Send + Sync + std::fmt::Debug + 'static> NetLoader for Copies<E> {
    fn load(
        &self,
        _checkpoint: &Path,
        _device: DeviceSpec,
    ) -> Result<LoadedNet, Box<dyn std::error::Error + Send + Sync>> {
        let evaluator = self.0.clone();
        let evaluators = Box::new(move || Box::new(evaluator.clone()) as BoxedEvaluator);
        Ok(LoadedNet { step: 7, evaluators, leaves_per_batch: None, leaf_evaluators: None })
    }
}

/// A net whose every batch fails.
#[derive(Clone, Debug)]
struct Broken;

impl Evaluator for Broken {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        Err(EvalError::new(requests.len(), "the net's device is gone"))
    }
}

/// The entrant `alphabeta{limit},net=<dir>/tiny.safetensors`, its net from `loader`.
fn entrant(
    dir: &Path,
    limit: &str,
    loader: impl NetLoader + 'static,
    time: Option<Duration>,
) -> Result<Entrant, ArenaError> {
    let checkpoint = dir.join("tiny.safetensors");
    std::fs::write(&checkpoint, "the fake loader never reads it").unwrap();
    let spec = format!("alphabeta{limit},net={}", checkpoint.display()).parse().unwrap();
    let options = NetOptions { time, nets: Some(Arc::new(loader)), ..NetOptions::default() };
    Entrant::load(&spec, &options)
}

#[test]
fn an_alphabeta_player_loads_its_net_through_the_loader() {
    let dir = tempfile::tempdir().unwrap();
    let zero = || Copies(ScriptedEvaluator::new());
    let by_depth = entrant(dir.path(), ":2", zero(), None).unwrap();
    assert_eq!((by_depth.name(), by_depth.step()), ("alphabeta:2,net=tiny", Some(7)));
    assert!(by_depth.has_net() && !by_depth.shares_batches());
    let by_time = entrant(dir.path(), ":0.1s", zero(), None).unwrap();
    assert_eq!(by_time.name(), "alphabeta:0.1s,net=tiny");
    let match_time = entrant(dir.path(), "", zero(), Some(Duration::from_millis(250))).unwrap();
    assert_eq!(match_time.name(), "alphabeta:0.25s,net=tiny");

    let builtin = Entrant::load(&"alphabeta:2".parse().unwrap(), &NetOptions::default()).unwrap();
    assert!(!builtin.has_net());
    let spec = format!("alphabeta:2,net={}", dir.path().join("tiny.safetensors").display());
    let unloaded = Entrant::load(&spec.parse().unwrap(), &NetOptions::default());
    assert!(matches!(unloaded, Err(ArenaError::NoNets { .. })));
}

#[test]
fn the_net_steers_the_alphabeta_players_move() {
    // Two kings a side on the far back ranks: nothing happens within two plies.
    let position = Position::from_fen("B:WK30,K32:BK1,K3").unwrap();
    let game = Game::new(position, DrawRules::default());
    let dir = tempfile::tempdir().unwrap();
    let plain = Entrant::load(&"alphabeta:1".parse().unwrap(), &NetOptions::default()).unwrap();
    let usual = plain.player(0).unwrap().choose(&game).unwrap().mv;
    let favourite = *position.legal_moves().iter().find(|&&mv| mv != usual).unwrap();
    // The position after the favourite is bad for White, who moves there.
    let net = ScriptedEvaluator::new().with_value(position.play(favourite), -0.9);
    let steered = entrant(dir.path(), ":1", Copies(net), None).unwrap();
    let choice = steered.player(0).unwrap().choose(&game).unwrap();
    assert_eq!(choice.mv, favourite);
    assert!((choice.value.unwrap() - 0.9).abs() < 0.01, "{choice:?}");
}

#[test]
fn a_failing_net_fails_the_alphabeta_player() {
    let dir = tempfile::tempdir().unwrap();
    let player = entrant(dir.path(), ":3", Copies(Broken), None).unwrap();
    let game = Game::new(Position::start(), DrawRules::default());
    let error = player.player(0).unwrap().choose(&game).unwrap_err();
    let ArenaError::PlayerFailed { player, ply, source } = &error else { panic!("{error:?}") };
    assert_eq!((player.as_str(), *ply), ("alphabeta:3,net=tiny", 0));
    assert!(
        matches!(source, PlayerFailure::Search(SearchError::Evaluator(e)) if e.batch == 1),
        "{source:?}"
    );
    assert_eq!(error.to_string(), "player alphabeta:3,net=tiny failed at ply 0");
}
