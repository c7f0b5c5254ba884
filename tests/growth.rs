//! A run that grows, end to end on the tiny sparse config with the levers of a long run on
//! (`configs/scaling.toml`'s keys): averaged weights as the candidates, a learning-rate drop at
//! a number of positions read, and the net widened by raising `net.accumulator` in the run's own
//! `config.toml`: self-play plays the narrower best net on, the trainer resumes widened, and the
//! wider candidates are gated and promoted; and a run whose `train.grow` widens its net on
//! schedule; and a run warm-started from a trained net (`train.init`).

use crate::helpers::{arg, shipped_config, sorted_files, succeed, write_config};
use crate::train::tensorboard::read_with_tensorboard;
use model::{NetConfig, SparseConfig};
use runconfig::{GrowSchedule, Progress, RateDrop, ScheduleConfig, Widening};
use rundata::RunDir;

#[test]
fn a_run_widened_in_its_config_trains_and_gates_the_wider_net() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny = shipped_config("tiny-sparse.toml");
    assert_eq!(
        tiny.net,
        NetConfig::Sparse(SparseConfig { accumulator: 16, hidden: 8, layers: 1, buckets: 1 })
    );
    tiny.gate.always_promote = true;
    tiny.train.warmup_steps = 0;
    tiny.train.ema_decay = 0.9;
    let drops = vec![RateDrop { at: 200, share: 0.5 }];
    tiny.train.schedule = ScheduleConfig::Drops { by: Progress::Positions, drops };
    let config = write_config(dir.path(), "growing.toml", &tiny);
    let run_dir = dir.path().join("run");
    succeed(&["run", "--config", arg(&config), "--run-dir", arg(&run_dir)]);

    let run = RunDir::existing(&run_dir).unwrap();
    let text = std::fs::read_to_string(run.config_file()).unwrap();
    assert!(text.contains("accumulator = 16\n"), "{text}");
    std::fs::write(run.config_file(), text.replace("accumulator = 16\n", "accumulator = 32\n"))
        .unwrap();
    let more = succeed(&["run", "--run-dir", arg(&run_dir), "--selfplay-games", "32"]);
    assert!(more.contains("resumed training at step"), "{more}");
    // The resumed trainer has read its 200 positions: its replay lines give the dropped rate.
    assert!(more.contains("samples trained per position; learning rate 0.0100)"), "{more}");
    assert!(!more.contains("learning rate 0.0200"), "{more}");
    assert!(more.contains("is a sparse 16-8x1, the config's a sparse 32-8x1: grown"), "{more}");
    let best = run.best_checkpoint().unwrap().expect("a best net");
    let best = model::checkpoint::load(&best, None, tch::Device::Cpu).unwrap();
    let wide =
        NetConfig::Sparse(SparseConfig { accumulator: 32, hidden: 8, layers: 1, buckets: 1 });
    assert_eq!(best.meta.config, wide, "a wider candidate was promoted");

    // 32 games of 60 plies at most read far more than 200 positions: the rate drops to half.
    let python = crate::helpers::python();
    let scalars = read_with_tensorboard(&python, &run.tb_dir().join("train"));
    let rates: Vec<f32> = scalars["train/learning_rate"].iter().map(|p| p.1).collect();
    assert!(rates.iter().all(|&r| r == 0.02 || r == 0.01), "{rates:?}");
    assert_eq!(rates.last(), Some(&0.01), "{rates:?}");
}

#[test]
fn a_run_with_a_growth_schedule_widens_its_net_when_the_data_reaches_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny = shipped_config("tiny-sparse.toml");
    tiny.gate.always_promote = true;
    tiny.train.grow = GrowSchedule(vec![Widening { at: 200, accumulator: 32 }]);
    let config = write_config(dir.path(), "scheduled.toml", &tiny);
    let run_dir = dir.path().join("run");
    let out = succeed(&["run", "--config", arg(&config), "--run-dir", arg(&run_dir)]);
    assert!(out.contains("train.grow: the net's accumulator widened from 16 to 32 at "), "{out}");
    let run = RunDir::existing(&run_dir).unwrap();
    let best = run.best_checkpoint().unwrap().expect("a best net");
    let best = model::checkpoint::load(&best, None, tch::Device::Cpu).unwrap();
    let wide =
        NetConfig::Sparse(SparseConfig { accumulator: 32, hidden: 8, layers: 1, buckets: 1 });
    assert_eq!(best.meta.config, wide, "a grown candidate was promoted");

    // Resumed, the grown state loads as it is: no second widening.
    let more = succeed(&["run", "--run-dir", arg(&run_dir), "--selfplay-games", "16"]);
    assert!(more.contains("resumed training at step"), "{more}");
    assert!(!more.contains("widened"), "{more}");
}

#[test]
fn a_run_warm_started_from_a_narrower_net_begins_with_it_widened() {
    let dir = tempfile::tempdir().unwrap();
    let narrow =
        NetConfig::Sparse(SparseConfig { accumulator: 16, hidden: 8, layers: 1, buckets: 1 });
    tch::manual_seed(5);
    let trained = model::PolicyValueNet::new(&narrow, tch::Device::Cpu).unwrap();
    let init = dir.path().join("trained.safetensors");
    model::checkpoint::save(&init, &trained, 999, None, &model::Extras::default()).unwrap();
    let mut tiny = shipped_config("tiny-sparse.toml");
    tiny.net =
        NetConfig::Sparse(SparseConfig { accumulator: 32, hidden: 8, layers: 1, buckets: 1 });
    tiny.train.init = arg(&init).into();
    let config = write_config(dir.path(), "warm.toml", &tiny);
    let run_dir = dir.path().join("run");
    succeed(&[
        "run",
        "--config",
        arg(&config),
        "--run-dir",
        arg(&run_dir),
        "--selfplay-games",
        "16",
    ]);

    let run = RunDir::existing(&run_dir).unwrap();
    let first = train::candidate_path(&run.nets_dir(), 0);
    let first = model::checkpoint::load(&first, None, tch::Device::Cpu).unwrap();
    assert_eq!(first.meta.config, tiny.net, "generation 0 has the config's width");
    let xs =
        model::encoding::Input::Features.encode_batch(&model::sample::random_observations(50, 3));
    let diff = tch::no_grad(|| {
        use tch::nn::ModuleT;
        (trained.forward_t(&xs, false) - first.net.forward_t(&xs, false)).abs().max()
    })
    .double_value(&[]);
    assert!(diff < 1e-5, "generation 0 is the init net (widened): outputs differ by {diff}");

    // A new run whose init file is missing stops before it starts, naming the key and the file.
    tiny.train.init = arg(&dir.path().join("missing.safetensors")).into();
    let config = write_config(dir.path(), "missing.toml", &tiny);
    let other = dir.path().join("other");
    let (ok, out, err) = crate::helpers::run_to_end(&[
        "run",
        "--config",
        arg(&config),
        "--run-dir",
        arg(&other),
        "--selfplay-games",
        "16",
    ]);
    assert!(!ok, "{out}");
    crate::helpers::assert_no_panic(&err);
    assert!(err.contains("train.init") && err.contains("missing.safetensors"), "{err}");
}

#[test]
fn a_run_resumed_without_its_shards_counts_what_it_read_and_trains_once_its_window_refills() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny = shipped_config("tiny-sparse.toml");
    // Every net evaluated also plays the one evaluated before it (which net, when older nets are
    // gone, is `gate::anchors`' unit test).
    tiny.gate.always_promote = true;
    tiny.eval.earlier_minutes = 0.0001;
    let config = write_config(dir.path(), "moved.toml", &tiny);
    let run_dir = dir.path().join("run");
    succeed(&["run", "--config", arg(&config), "--run-dir", arg(&run_dir)]);
    let run = RunDir::existing(&run_dir).unwrap();
    let python = crate::helpers::python();
    let seen = |run: &RunDir| -> Vec<(u64, f32)> {
        read_with_tensorboard(&python, &run.tb_dir().join("train"))["replay/seen"].clone()
    };
    let before = *seen(&run).last().unwrap();

    // Moved to another machine without its shards (the bulk of a run folder) and without its
    // candidates but the best net.
    std::fs::remove_dir_all(run.shards_dir()).unwrap();
    let best = run.best_checkpoint().unwrap().expect("a best net");
    for net in sorted_files(&run.nets_dir()).into_iter().filter(|net| *net != best) {
        std::fs::remove_file(net).unwrap();
    }
    // With its window gone, the trainer waits for `train.window.min` positions, not only
    // `train.min_positions` (64).
    let idle = succeed(&["train", "--run-dir", arg(&run_dir)]);
    assert!(idle.contains("the window holds 0 positions (256 needed first)"), "{idle}");
    let more = succeed(&["run", "--run-dir", arg(&run_dir), "--selfplay-games", "32"]);
    assert_eq!(more.matches("shards of the replay window are gone").count(), 1, "{more}");
    // Training waits until the window holds `train.window.min` (256) positions again, then
    // trains the steps they pay for: the reuse cap counts what was read before the move.
    assert!(more.contains("training waits until the window holds 256 positions again"), "{more}");
    let windows: Vec<usize> = more
        .lines()
        .filter_map(|l| l.split_once("trained to step ")?.1.split_once(" (")?.1.split_once(' '))
        .map(|(held, _)| held.parse().unwrap())
        .collect();
    assert!(!windows.is_empty() && windows.iter().all(|&n| n >= 256), "{windows:?}: {more}");
    // The positions read go on from the count before the move, not from zero.
    let after: Vec<(u64, f32)> = seen(&run).into_iter().filter(|p| p.0 > before.0).collect();
    assert!(!after.is_empty() && after.iter().all(|p| p.1 > before.1), "{before:?} then {after:?}");
    // The evaluations after the move play an earlier net that is still there.
    assert!(more.contains(", the earlier net mcts:"), "{more}");
}

#[test]
fn a_sequential_run_whose_newest_candidate_is_gone_writes_it_again_and_gates_it_first() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "tiny.toml", &shipped_config("tiny-sparse.toml"));
    let run_dir = dir.path().join("run");
    succeed(&["run", "--config", arg(&config), "--run-dir", arg(&run_dir)]);
    // More games, trained on outside the run: the newest training state is ungated.
    succeed(&["selfplay", "--run-dir", arg(&run_dir), "--games", "32"]);
    succeed(&["train", "--run-dir", arg(&run_dir)]);
    let run = RunDir::existing(&run_dir).unwrap();
    let states = sorted_files(&run.train_dir());
    let newest = states.iter().filter_map(|s| s.file_name()?.to_str()?.strip_prefix("state-"));
    let step: u64 =
        newest.filter_map(|s| s.strip_suffix(".safetensors")?.parse().ok()).max().unwrap();
    // The run moved with that state but not its candidate.
    std::fs::remove_file(train::candidate_path(&run.nets_dir(), step)).unwrap();

    let more = succeed(&["run", "--run-dir", arg(&run_dir), "--selfplay-games", "32"]);
    let note = format!(
        "note: the candidate of step {step} was gone; written again from the training state"
    );
    assert!(more.contains(&note), "{more}");
    let gates = std::fs::read_to_string(run_dir.join("gates.jsonl")).unwrap();
    let gated = gates.lines().map(|l| serde_json::from_str::<arena::GateRecord>(l).unwrap());
    assert!(gated.into_iter().any(|g| g.candidate_step == Some(step)), "{gates}");
}
