//! Our event files read by TensorBoard's own reader (`EventAccumulator`, through the Python in
//! `CHECKERS_ZERO_PYTHON`): the scalars are there with the right steps and values.

use super::*;
use std::collections::BTreeMap;
use std::process::Command;
use train::{EvalFigures, SelfPlayFigures, TbLogger};

const READER: &str = r#"
import json, sys
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
acc = EventAccumulator(sys.argv[1])
acc.Reload()
print(json.dumps({tag: [[e.step, e.value] for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}))
"#;

/// Every scalar of the event files in `dir`: tag -> [(step, value)].
pub fn read_with_tensorboard(python: &str, dir: &Path) -> BTreeMap<String, Vec<(u64, f32)>> {
    let out = Command::new(python).arg("-c").arg(READER).arg(dir).output().expect("python runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn tensorboard_reads_our_scalars_with_their_steps_and_values() {
    let python = crate::helpers::python();
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 1000);
    let (mut trainer, _) = open(&paths, quick_config(1000));
    assert_eq!(super::train_to(dir.path(), &mut trainer, 20), 20);
    drop(trainer);
    let scalars = read_with_tensorboard(&python, &paths.tb);
    for tag in [
        "loss/policy",
        "loss/value",
        "loss/moves_left",
        "loss/total",
        "policy/entropy",
        "value/accuracy",
        "train/samples_per_s",
    ] {
        let points = &scalars[tag];
        assert_eq!(points.iter().map(|p| p.0).collect::<Vec<_>>(), [5, 10, 15, 20], "{tag}");
        assert!(points.iter().all(|p| p.1.is_finite()), "{tag}: {points:?}");
    }
    assert_eq!(scalars["train/learning_rate"], [(5, 0.02), (10, 0.02), (15, 0.02), (20, 0.02)]);
    assert_eq!(scalars["replay/seen"][0], (5, 1000.0));
    // 5 steps of 32 samples over the 1000 positions read, then 10, 15, 20.
    assert_eq!(scalars["replay/reuse"], [(5, 0.16), (10, 0.32), (15, 0.48), (20, 0.64)]);

    let figures_dir = dir.path().join("tb/selfplay");
    let mut logger = TbLogger::create(&figures_dir).unwrap();
    let selfplay = SelfPlayFigures {
        games_per_s: 2.5,
        positions_per_s: 180.25,
        mean_game_length: 71.5,
        wins: 3,
        draws: 4,
        losses: 1,
        resign_false_positive_rate: Some(0.125),
        rescored: 2,
    };
    logger.selfplay(8, &selfplay).unwrap();
    logger
        .evaluation(
            500,
            &EvalFigures { wins: 10, draws: 20, losses: 10, elo: 35.5, promoted: true },
        )
        .unwrap();
    drop(logger);
    let scalars = read_with_tensorboard(&python, &figures_dir);
    let expected = [
        ("selfplay/games_per_s", 8, 2.5),
        ("selfplay/positions_per_s", 8, 180.25),
        ("selfplay/game_length", 8, 71.5),
        ("selfplay/win_rate", 8, 0.375),
        ("selfplay/draw_rate", 8, 0.5),
        ("selfplay/loss_rate", 8, 0.125),
        ("selfplay/resign_false_positives", 8, 0.125),
        ("selfplay/rescored_share", 8, 0.25),
        ("eval/score", 500, 0.5),
        ("eval/elo", 500, 35.5),
        ("eval/draws", 500, 20.0),
        ("eval/promoted", 500, 1.0),
    ];
    for (tag, step, value) in expected {
        assert_eq!(scalars[tag], [(step, value)], "{tag}");
    }
}
