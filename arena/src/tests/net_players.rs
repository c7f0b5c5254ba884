//! Net players from a real (untrained, tiny) checkpoint in a run directory: loading through
//! `best.json`, names and steps, and whole games of legal moves.

use crate::entrant::{Entrant, NetOptions};
use crate::fixture::schedule;
use crate::openings::standard_deck;
use crate::play::Ending;
use crate::player::Contestant;
use crate::runner::{run_fixtures, MatchConfig};
use draughts::{DrawRules, Game, Position};
use model::{Extras, NetConfig, PolicyValueNet};
use std::ops::ControlFlow;
use std::path::Path;

/// A run directory whose best net is a fresh 1-block, 8-channel net saved at step 42.
fn tiny_run(dir: &Path) {
    std::fs::create_dir_all(dir.join("nets")).unwrap();
    let net = PolicyValueNet::new(&NetConfig::new(1, 8), tch::Device::Cpu).unwrap();
    model::checkpoint::save(
        &dir.join("nets/step-00000042.safetensors"),
        &net,
        42,
        None,
        &Extras::default(),
    )
    .unwrap();
    let best = r#"{"checkpoint": "nets/step-00000042.safetensors", "step": 42, "generation": 0, "promoted_at": 0}"#;
    std::fs::write(dir.join("best.json"), best).unwrap();
    std::fs::write(dir.join("config.toml"), "").unwrap();
}

#[test]
fn net_players_load_a_runs_best_net_and_play_legal_games() {
    let dir = tempfile::tempdir().unwrap();
    tiny_run(dir.path());
    let run = dir.path().display();
    let nets = Some(std::sync::Arc::new(model::TorchNetLoader) as _);
    let options = NetOptions { playouts: 8, nets, ..NetOptions::default() };
    let mcts = Entrant::load(&format!("mcts:{run}:16").parse().unwrap(), &options).unwrap();
    let policy = Entrant::load(&format!("policy:{run}").parse().unwrap(), &options).unwrap();
    assert_eq!((mcts.name(), mcts.step()), ("mcts:step-00000042:16", Some(42)));
    assert_eq!((policy.name(), policy.step()), ("policy:step-00000042", Some(42)));
    assert_eq!(mcts.run_dir(), Some(dir.path()));

    let start = Game::new(Position::start(), DrawRules::default());
    let choice = mcts.player(0).unwrap().choose(&start).unwrap();
    assert!(
        choice.value.is_some_and(|v| (-1.0..=1.0).contains(&v))
            && choice.pv.first() == Some(&choice.mv)
    );

    let rules = DrawRules { max_plies: 80, ..DrawRules::default() };
    let fixtures = schedule(&standard_deck().unwrap(), 2, 0);
    let config = MatchConfig { rules, seed: 0, threads: 2, tables: None, clock: None };
    let games =
        run_fixtures(&mcts, &policy, &fixtures, config, |_| ControlFlow::Continue(())).unwrap();
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g.game.outcome().map(Ending::Rules) == Some(g.ending)));
}

#[test]
fn without_a_net_loader_a_net_player_is_refused_naming_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    tiny_run(dir.path());
    let spec = format!("mcts:{}", dir.path().display()).parse().unwrap();
    let err = Entrant::load(&spec, &NetOptions::default()).err().unwrap().to_string();
    assert!(err.contains("step-00000042.safetensors") && err.contains("no net loader"), "{err}");
}

#[test]
fn nets_of_other_runs_are_named_by_their_run_and_alike_names_are_told_apart_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (run_a, run_b) = (dir.path().join("wide"), dir.path().join("narrow"));
    tiny_run(&run_a);
    tiny_run(&run_b);
    let nets = Some(std::sync::Arc::new(model::TorchNetLoader) as _);
    let options = NetOptions { playouts: 8, nets, ..NetOptions::default() };
    let load = |spec: String| Entrant::load(&spec.parse().unwrap(), &options).unwrap();

    // The best nets of two runs at the same step: named alike until told apart.
    let (mut a, mut b) =
        (load(format!("mcts:{}", run_a.display())), load(format!("mcts:{}", run_b.display())));
    assert_eq!(a.name(), b.name());
    Entrant::distinguish(&mut a, &mut b).unwrap();
    assert_eq!((a.name(), b.name()), ("mcts:wide/step-00000042:8", "mcts:narrow/step-00000042:8"));

    // In its own run's records a net keeps its bare name, whether named by the run or by the
    // checkpoint file in the run's nets/; in another run's it is named by its run, once.
    let file = run_a.join("nets/step-00000042.safetensors");
    let mut own = load(format!("policy:{}", file.display()));
    own.qualify_outside(&run_a);
    assert_eq!(own.name(), "policy:step-00000042");
    own.qualify_outside(&run_b);
    own.qualify_outside(&run_b);
    assert_eq!(own.name(), "policy:wide/step-00000042");
    // A `nets/` folder outside a run (the shipped net's) is named by its folder, not its parent.
    let shipped = dir.path().join("repo/nets");
    std::fs::create_dir_all(&shipped).unwrap();
    std::fs::copy(&file, shipped.join("default.safetensors")).unwrap();
    let mut level = load(format!("policy:{}", shipped.join("default.safetensors").display()));
    level.qualify_outside(&run_a);
    assert_eq!(level.name(), "policy:nets/default");
    let mut engine = load(format!("alphabeta:2,net={}", run_b.display()));
    engine.qualify_outside(&run_a);
    assert_eq!(engine.name(), "alphabeta:2,net=narrow/step-00000042");

    // The same net on both sides keeps its name; two runs in folders of one name are refused.
    let (mut x, mut y) =
        (load(format!("mcts:{}", run_a.display())), load(format!("mcts:{}", run_a.display())));
    Entrant::distinguish(&mut x, &mut y).unwrap();
    assert_eq!(x.name(), "mcts:step-00000042:8");
    let twin = dir.path().join("other/wide");
    tiny_run(&twin);
    let mut twin = load(format!("mcts:{}", twin.display()));
    let mut a = load(format!("mcts:{}", run_a.display()));
    let err = Entrant::distinguish(&mut a, &mut twin).unwrap_err().to_string();
    assert!(err.contains("mcts:wide/step-00000042:8") && err.contains("rename"), "{err}");
}
