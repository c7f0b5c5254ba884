//! End to end: `checkers-zero run` on the tiny config produces every artifact of a run, valid,
//! and a second call resumes the run instead of starting over (checks that the concurrent mode's
//! tests run too, see `concurrent_run.rs`).

use crate::helpers::{arg, checkers_zero, shipped_config, sorted_files, succeed, write_config};
use crate::train::tensorboard::read_with_tensorboard;
use runconfig::ScheduleConfig;
use rundata::RunDir;
use shard::{list_shards, read_shard};

#[test]
fn tiny_run_writes_every_artifact_and_resumes() {
    writes_every_artifact_and_resumes("configs/tiny.toml");
}

#[test]
fn tiny_sparse_run_writes_every_artifact_and_resumes() {
    writes_every_artifact_and_resumes("configs/tiny-sparse.toml");
}

/// A new run of `config` (a tiny one) writes every artifact, resumes with nothing left to do when
/// its budget is spent, and goes on with a bigger one.
pub fn writes_every_artifact_and_resumes(config: &str) {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let run_arg = arg(&run_dir);
    succeed(&["run", "--config", config, "--run-dir", run_arg]);

    let run = RunDir::existing(&run_dir).unwrap();
    let shards = list_shards(&run.shards_dir()).unwrap();
    assert!(!shards.is_empty(), "no shards");
    for shard in &shards {
        assert!(!read_shard(shard).unwrap().records.is_empty());
    }
    let candidates: Vec<_> = sorted_files(&run.nets_dir())
        .into_iter()
        .filter(|p| !p.ends_with("step-0000000000.safetensors"))
        .collect();
    assert!(!candidates.is_empty(), "no candidate net in {:?}", run.nets_dir());
    let gates = std::fs::read_to_string(run.gates_file()).unwrap();
    let record: arena::GateRecord = serde_json::from_str(gates.lines().next().unwrap()).unwrap();
    assert!(record.games > 0);
    assert!(
        sorted_files(&run.tb_dir().join("train"))
            .iter()
            .any(|p| p.to_string_lossy().contains("tfevents")),
        "no TensorBoard events"
    );
    let best = run.best_checkpoint().unwrap().expect("a best net");
    model::checkpoint::load(&best, None, tch::Device::Cpu).expect("the best net loads");
    assert!(run.config_file().exists());

    // The budget is spent: the same command resumes, finds nothing left to do, and keeps everything.
    let again = succeed(&["run", "--run-dir", run_arg]);
    assert!(again.contains("budget reached"), "{again}");
    assert_eq!(list_shards(&run.shards_dir()).unwrap(), shards);

    // A bigger budget goes on from where the run was.
    let more = succeed(&["run", "--run-dir", run_arg, "--selfplay-games", "24"]);
    assert!(more.contains("resumed training at step"), "{more}");
    assert!(list_shards(&run.shards_dir()).unwrap().len() > shards.len());
    let ladder = succeed(&["ladder", run_arg]);
    assert!(ladder.contains("Elo"), "{ladder}");
}

#[test]
fn a_cpu_hours_budget_stops_the_run_and_counts_over_its_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let run_arg = arg(&run_dir);
    // 3.6 s of the process's CPU time and no other limit: a budget on the command line replaces
    // the config's (its 16 games and 2 minutes).
    let budget = |hours| ["--cpu-hours", hours];
    let config = ["run", "--config", "configs/tiny-sparse.toml", "--run-dir", run_arg];
    let first = succeed(&[&config[..], &budget("0.001")[..]].concat());
    assert!(first.contains("budget reached: 0.00"), "{first}");
    assert!(first.contains("of 0.001 CPU hours"), "{first}");
    assert!(first.contains("spent over all its sessions: "), "{first}");
    let run = RunDir::existing(&run_dir).unwrap();
    let progress: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.progress_file()).unwrap()).unwrap();
    let cpu = progress["cpu_seconds"].as_f64().expect("progress.json keeps the CPU time");
    assert!(cpu >= 3.6, "{progress}");
    // Its hint to train on asks for half an hour more than the run has spent, whatever it spent.
    let wall = progress["wall_seconds"].as_f64().expect("and the wall time");
    let hint = format!("--wall-minutes {}", (wall / 60.0).ceil() + 30.0);
    assert!(first.contains(&hint), "{first}");
    let shards = list_shards(&run.shards_dir()).unwrap();

    // Resumed, the CPU time of the first session counts: nothing is left to play.
    let again = succeed(&[&["run", "--run-dir", run_arg][..], &budget("0.001")[..]].concat());
    assert!(again.contains("of 0.001 CPU hours"), "{again}");
    assert_eq!(list_shards(&run.shards_dir()).unwrap(), shards);
    // A bigger one goes on.
    let more = succeed(&[&["run", "--run-dir", run_arg][..], &budget("0.002")[..]].concat());
    assert!(more.contains("of 0.002 CPU hours"), "{more}");
    assert!(list_shards(&run.shards_dir()).unwrap().len() > shards.len(), "{more}");
}

#[test]
fn a_run_with_eval_rates_its_nets_against_the_fixed_anchor() {
    rates_its_nets_against_the_fixed_anchor("configs/tiny.toml");
}

/// A new run of `config` (the tiny config's `[eval]`) evaluates its first and its final net, and
/// every net promoted between, against the anchor, into eval.jsonl, the results and TensorBoard.
pub fn rates_its_nets_against_the_fixed_anchor(config: &str) {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let run_arg = arg(&run_dir);
    // The tiny config plays `alphabeta:1` over 2 games after every promotion and at the end.
    let out = succeed(&["run", "--config", config, "--run-dir", run_arg]);
    assert!(out.contains(" vs alphabeta:1: +"), "{out}");
    let run = RunDir::existing(&run_dir).unwrap();
    let evaluations = evaluation_records(&run);
    let best = run.best().unwrap().unwrap();
    assert_eq!(evaluations.first().map(|r| r.generation), Some(0), "the first net is the baseline");
    assert_eq!(
        evaluations.last().map(|r| r.generation),
        Some(best.generation),
        "and the final net"
    );
    for r in &evaluations {
        assert_eq!((r.opponent.as_str(), r.tally.games()), ("alphabeta:1", 2), "{r:?}");
    }
    // Each record carries the run's clocks, wall and CPU time; the learning curve is drawn along
    // its CPU time.
    let clocks: [fn(&arena::EvalRecord) -> Option<f64>; 2] =
        [|r| r.run_seconds, |r| r.run_cpu_seconds];
    for clock in clocks {
        let times: Vec<f64> =
            evaluations.iter().map(|r| clock(r).expect("the run's time")).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    }
    let results = std::fs::read_to_string(run.results_file()).unwrap();
    let anchor_games = results.lines().filter(|l| l.contains("\"alphabeta:1\"")).count();
    assert_eq!(anchor_games, 2 * evaluations.len(), "{results}");
    {
        let python = crate::helpers::python();
        let scalars = read_with_tensorboard(&python, &run.tb_dir().join("run"));
        let scores = &scalars["eval/alphabeta:1/score"];
        assert_eq!(scores.len(), evaluations.len(), "{scalars:?}");
        assert_eq!(scores.last().map(|p| p.0), evaluations.last().map(|r| r.step));
    }
    // The ladder rates the run on the fixed anchor.
    let ladder = succeed(&["ladder", run_arg]);
    assert!(ladder.contains("alphabeta:1 = 0"), "{ladder}");
    // And prints its learning curve against it, plotted both ways.
    let curve = ladder.split("learning curve against the fixed opponents: ").nth(1).expect(&ladder);
    assert!(
        curve.starts_with(&format!(
            "{} evaluations; core-hours of the run (its CPU time)",
            evaluations.len()
        )),
        "{ladder}"
    );
    assert!(curve.contains("score per core-hour: first half"), "{ladder}");
    for plot in ["curve.svg", "curve-time.svg"] {
        let svg = std::fs::read_to_string(run.root().join(plot)).unwrap();
        assert_eq!(svg.matches("<circle").count(), evaluations.len(), "{plot}");
    }
}

#[test]
fn with_earlier_minutes_each_promoted_net_plays_the_run_s_earlier_net_too() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny = shipped_config("tiny-sparse.toml");
    tiny.gate.always_promote = true;
    // A few milliseconds: the earlier net is the one evaluated before.
    tiny.eval.earlier_minutes = 0.0001;
    // A net among the fixed opponents, whose player name is not its spec: played once a net too.
    let reference =
        concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ab/2026-12-04-default-4h-best.safetensors");
    let reference = format!("mcts:{reference}");
    tiny.eval.opponents.push(reference.clone());
    let config = write_config(dir.path(), "earlier.toml", &tiny);
    let run_dir = dir.path().join("run");
    let out = succeed(&["run", "--config", arg(&config), "--run-dir", arg(&run_dir)]);
    let run = RunDir::existing(&run_dir).unwrap();
    let evaluations = evaluation_records(&run);
    let label = "earlier:0.0001m";
    let (earlier, fixed): (Vec<_>, Vec<_>) = evaluations.iter().partition(|r| r.opponent == label);
    // Every net after the first plays the one evaluated before it, once.
    let generations = |records: &[&arena::EvalRecord]| -> Vec<u32> {
        let mut g: Vec<u32> = records.iter().map(|r| r.generation).collect();
        g.dedup();
        g
    };
    let nets = generations(&fixed);
    assert!(nets.len() >= 2, "{evaluations:?}");
    assert_eq!(generations(&earlier), nets[1..], "{evaluations:?}");
    for spec in &tiny.eval.opponents {
        let played: Vec<_> =
            fixed.iter().copied().filter(|r| r.spec.as_ref() == Some(spec)).collect();
        assert_eq!(generations(&played), nets, "{spec}: once for each net: {evaluations:?}");
        assert_eq!(played.len(), nets.len(), "{spec}: once for each net: {evaluations:?}");
    }
    for r in &evaluations {
        let checkpoint = r.checkpoint.as_deref().expect("each record names its net");
        assert!(run.root().join(checkpoint).is_file(), "{r:?}");
    }
    assert!(out.contains(&format!(" vs {label}: +")), "{out}");
    assert!(out.contains(", the earlier net mcts:"), "{out}");
    // The ladder draws its curve beside the fixed opponents'.
    let ladder = succeed(&["ladder", arg(&run_dir)]);
    let curve = ladder.split("learning curve against the fixed opponents: ").nth(1).expect(&ladder);
    assert!(curve.contains(&format!("\n{label}\n")), "{ladder}");
}

/// The run's evaluation log, every record.
fn evaluation_records(run: &RunDir) -> Vec<arena::EvalRecord> {
    std::fs::read_to_string(run.root().join("eval.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn without_a_gate_every_candidate_plays_its_games_and_is_promoted() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny = shipped_config("tiny-sparse.toml");
    assert_eq!(tiny.gate.games, 4, "configs/tiny-sparse.toml changed its gate");
    tiny.gate.always_promote = true;
    let config = write_config(dir.path(), "no-gate.toml", &tiny);
    let run_dir = dir.path().join("run");
    let out = succeed(&["run", "--config", arg(&config), "--run-dir", arg(&run_dir)]);
    assert!(out.contains("promoted (gate.always_promote: no gate)"), "{out}");
    let gates = std::fs::read_to_string(run_dir.join("gates.jsonl")).unwrap();
    let records: Vec<arena::GateRecord> =
        gates.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(!records.is_empty(), "{out}");
    for r in &records {
        assert!(r.promoted && r.decided_by == arena::DecidedBy::Always, "{r:?}");
        assert_eq!(r.games, 4, "every game is played, to rate the candidate: {r:?}");
    }
    let best = RunDir::existing(&run_dir).unwrap().best().unwrap().unwrap();
    assert_eq!(best.generation as usize, records.len(), "each gate promoted its candidate");
}

#[test]
fn a_learning_rate_over_the_budget_decays_as_the_budget_is_spent() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny = shipped_config("tiny-sparse.toml");
    assert_eq!((tiny.budget.selfplay_games, tiny.budget.games_per_generation), (16, 8));
    tiny.train.warmup_steps = 0;
    tiny.train.schedule = ScheduleConfig::CosineBudget { final_fraction: 0.1 };
    let config = write_config(dir.path(), "cosine.toml", &tiny);
    let run_dir = dir.path().join("run");
    succeed(&["run", "--config", arg(&config), "--run-dir", arg(&run_dir)]);
    let python = crate::helpers::python();
    let scalars = read_with_tensorboard(&python, &run_dir.join("tb").join("train"));
    let rates: Vec<f32> = scalars["train/learning_rate"].iter().map(|p| p.1).collect();
    // Generation 0 trains with half the games of the budget played (8 of 16), generation 1 with
    // all of them: the cosine's middle, then its end (0.02 peak, 0.1 of it at the end).
    let near = |a: f32, b: f32| (a - b).abs() < 1e-4;
    assert!(rates.iter().all(|&r| near(r, 0.011) || near(r, 0.002)), "{rates:?}");
    assert!(near(rates[0], 0.011) && near(*rates.last().unwrap(), 0.002), "{rates:?}");
}

#[test]
fn a_different_config_for_an_existing_run_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let run_arg = arg(&run_dir);
    succeed(&["selfplay", "--config", "configs/tiny.toml", "--run-dir", run_arg, "--games", "1"]);
    let out = checkers_zero()
        .args(["run", "--config", "configs/default.toml", "--run-dir", run_arg])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("different config"), "{err}");
}

#[test]
fn self_play_from_the_openings_deck_starts_every_game_from_a_ballot_and_a_bad_deck_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny = shipped_config("tiny-sparse.toml");
    tiny.selfplay.openings.deck = runconfig::OpeningsConfig::STANDARD.into();
    let config = write_config(dir.path(), "openings.toml", &tiny);
    let run_dir = dir.path().join("run");
    succeed(&["run", "--config", arg(&config), "--run-dir", arg(&run_dir)]);
    let deck: Vec<String> = arena::standard_deck().unwrap().iter().map(|b| b.text()).collect();
    let mut starts = std::collections::HashSet::new();
    for file in sorted_files(&run_dir.join("games")) {
        for game in draughts::read_pdn(&std::fs::read_to_string(&file).unwrap()).unwrap() {
            let first: Vec<String> = game.moves.iter().take(3).map(|m| m.to_string()).collect();
            let first = first.join(" ");
            assert!(deck.contains(&first), "{}: a game starts with {first}", file.display());
            starts.insert(first);
        }
    }
    assert!(starts.len() >= 8, "16 games drew from the deck's 157 ballots: {starts:?}");

    // A deck file that does not parse stops the run before it starts, naming the key and the
    // file's line.
    let bad = dir.path().join("bad-deck.txt");
    std::fs::write(&bad, "001 9-13 21-17 5-9\n002 9-14 31-9\n").unwrap();
    tiny.selfplay.openings.deck = arg(&bad).into();
    let config = write_config(dir.path(), "bad.toml", &tiny);
    let other = dir.path().join("other");
    let (ok, out, err) =
        crate::helpers::run_to_end(&["run", "--config", arg(&config), "--run-dir", arg(&other)]);
    assert!(!ok, "{out}");
    crate::helpers::assert_no_panic(&err);
    assert!(err.contains("selfplay.openings.deck") && err.contains("bad-deck.txt"), "{err}");
    assert!(err.contains("31-9") && err.contains(":2:"), "the bad ballot is named: {err}");
}
