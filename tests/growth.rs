//! A run that grows, end to end on the tiny sparse config with the levers of a long run on
//! (`configs/scaling.toml`'s keys): averaged weights as the candidates, a learning-rate drop at
//! a number of positions read, and the net widened by raising `net.accumulator` in the run's own
//! `config.toml`: self-play plays the narrower best net on, the trainer resumes widened, and the
//! wider candidates are gated and promoted; and a run whose `train.grow` widens its net on
//! schedule.

use crate::helpers::{arg, shipped_config, succeed, write_config};
use crate::train::tensorboard::read_with_tensorboard;
use model::{NetConfig, SparseConfig};
use runconfig::{GrowSchedule, Progress, RateDrop, ScheduleConfig, Widening};
use rundata::RunDir;

#[test]
fn a_run_widened_in_its_config_trains_and_gates_the_wider_net() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny = shipped_config("tiny-sparse.toml");
    assert_eq!(tiny.net, NetConfig::Sparse(SparseConfig { accumulator: 16, hidden: 8, layers: 1 }));
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
    assert!(more.contains("an accumulator of 16, the config 32: widened"), "{more}");
    let best = run.best_checkpoint().unwrap().expect("a best net");
    let best = model::checkpoint::load(&best, None, tch::Device::Cpu).unwrap();
    let wide = NetConfig::Sparse(SparseConfig { accumulator: 32, hidden: 8, layers: 1 });
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
    let wide = NetConfig::Sparse(SparseConfig { accumulator: 32, hidden: 8, layers: 1 });
    assert_eq!(best.meta.config, wide, "a grown candidate was promoted");

    // Resumed, the grown state loads as it is: no second widening.
    let more = succeed(&["run", "--run-dir", arg(&run_dir), "--selfplay-games", "16"]);
    assert!(more.contains("resumed training at step"), "{more}");
    assert!(!more.contains("widened"), "{more}");
}
