//! The value head measured against the endgame tables: a fixed set of table positions, drawn once
//! from the run's seed, and at each checkpoint the share the net classes right (the most likely of
//! its win/draw/loss outcomes is the exact one) and the mean absolute error of its expected score.
//!
//! Each measurement is one JSON line in `RUN/train/egdb_accuracy.jsonl`:
//! `{"step": N, "positions": 20000, "accuracy": 0.713, "mae": 0.41}`.

use crate::error::TrainError;
use draughts::{DrawRules, Game, Observation, Position};
use egdb::{Tables, Wdl};
use model::encoding::Input;
use model::PolicyValueNet;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use tch::{Device, Kind};

/// Positions in the set a run measures its net on.
pub const ENDGAME_SET_SIZE: usize = 20_000;

/// The file, in the trainer's state folder (`RUN/train/`), that the measurements are appended to.
pub const ENDGAME_LOG_FILE: &str = "egdb_accuracy.jsonl";

/// Positions per forward pass.
const BATCH: usize = 1024;

/// Mixed into the run's seed so the set does not follow any other stream of the run.
const SEED_STREAM: u64 = 0x6567_6462; // "egdb"

/// A fixed set of table positions with their exact values for the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct EndgameSet {
    positions: Vec<(Position, Wdl)>,
}

/// One measurement of a net on an [`EndgameSet`]; also the line written to the log.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EndgameAccuracy {
    /// The training step of the net measured.
    pub step: u64,
    /// Positions measured.
    pub positions: usize,
    /// Share of positions whose most likely outcome (argmax of the WDL logits, mover's view) is
    /// the table's value.
    pub accuracy: f64,
    /// Mean of |P(win) - P(loss) - exact| with exact +1 (win), 0 (draw) or -1 (loss).
    pub mae: f64,
    /// Seconds the measurement took (not logged).
    #[serde(skip)]
    pub seconds: f64,
}

impl EndgameSet {
    /// [`ENDGAME_SET_SIZE`] positions of `tables` (see [`Tables::sample_positions`]), the same
    /// for the same `run_seed` and tables, so a resumed run measures on the same set.
    pub fn sample(tables: &Tables, run_seed: u64) -> EndgameSet {
        EndgameSet::new(
            tables.sample_positions(support::mix(run_seed, SEED_STREAM), ENDGAME_SET_SIZE),
        )
    }

    /// A set of given positions and values.
    pub fn new(positions: Vec<(Position, Wdl)>) -> EndgameSet {
        EndgameSet { positions }
    }

    /// Positions in the set.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the set has no position.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Measures `net` (in eval mode, without gradients, in batches on its device), as the net of
    /// training step `step`. Accuracy and error are 0 for an empty set.
    pub fn measure(&self, net: &PolicyValueNet, step: u64) -> EndgameAccuracy {
        self.measure_in_batches(net, step, BATCH)
    }

    fn measure_in_batches(&self, net: &PolicyValueNet, step: u64, batch: usize) -> EndgameAccuracy {
        let start = std::time::Instant::now();
        let (mut right, mut error) = (0usize, 0f64);
        for chunk in self.positions.chunks(batch) {
            let obs: Vec<Observation> = chunk
                .iter()
                .map(|(pos, _)| Game::new(*pos, DrawRules::default()).observation())
                .collect();
            let xs = Input::of(net.config()).encode_batch(&obs).to_device(net.device());
            let logits = tch::no_grad(|| net.forward_heads(&xs, false).wdl);
            let mut rows = vec![0f32; chunk.len() * 3];
            logits
                .to_kind(Kind::Float)
                .to_device(Device::Cpu)
                .contiguous()
                .copy_data(&mut rows, chunk.len() * 3);
            for ((_, wdl), row) in chunk.iter().zip(rows.chunks_exact(3)) {
                let (hit, err) = score(row.try_into().expect("three logits"), *wdl);
                right += usize::from(hit);
                error += err;
            }
        }
        let n = self.positions.len();
        let share = |x: f64| if n == 0 { 0.0 } else { x / n as f64 };
        EndgameAccuracy {
            step,
            positions: n,
            accuracy: share(right as f64),
            mae: share(error),
            seconds: start.elapsed().as_secs_f64(),
        }
    }
}

/// The net's output index of each value (the WDL head's order: win, draw, loss).
fn class(wdl: Wdl) -> usize {
    match wdl {
        Wdl::Win => 0,
        Wdl::Draw => 1,
        Wdl::Loss => 2,
    }
}

/// Whether the most likely class of `logits` is `exact`, and |P(win) - P(loss) - exact|.
fn score(logits: [f32; 3], exact: Wdl) -> (bool, f64) {
    let best = (0..3).fold(0, |best, i| if logits[i] > logits[best] { i } else { best });
    let max = logits.into_iter().fold(f32::NEG_INFINITY, f32::max);
    let p = logits.map(|l| f64::from(l - max).exp());
    let sum: f64 = p.iter().sum();
    let target = match exact {
        Wdl::Win => 1.0,
        Wdl::Draw => 0.0,
        Wdl::Loss => -1.0,
    };
    (best == class(exact), ((p[0] - p[2]) / sum - target).abs())
}

/// The measurements of an endgame log, and its lines that were not measurements.
#[derive(Debug)]
pub struct EndgameLog {
    /// The measurements by step (the last one of a step wins).
    pub by_step: BTreeMap<u64, EndgameAccuracy>,
    /// Each line that was not a measurement (cut short by a crash, even inside a character),
    /// naming the file and the line, for the caller to warn about.
    pub skipped: Vec<rundata::BadLine>,
}

/// The measurements logged in `path` (see [`rundata::read_json_lines`]: an absent file is an
/// empty log; one that is not a regular file or is bigger than the record logs' limit is an
/// error naming the limit and its setting; a damaged line is set aside, never the whole log).
pub fn read_endgame_log(path: &Path) -> Result<EndgameLog, TrainError> {
    let read = rundata::read_json_lines::<EndgameAccuracy>(path)?;
    let by_step = read.records.into_iter().map(|m| (m.step, m)).collect();
    Ok(EndgameLog { by_step, skipped: read.skipped })
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::NetConfig;
    use model::NetEval;
    use tch::nn::ModuleT;

    fn fen(text: &str) -> Position {
        Position::from_fen(text).unwrap()
    }

    #[test]
    fn accuracy_and_error_match_a_position_by_position_computation() {
        tch::manual_seed(3);
        let net = PolicyValueNet::new(&NetConfig::new(1, 8), Device::Cpu).unwrap();
        // Mixed values and sides to move; the test needs fixed labels, not true ones.
        let positions = vec![
            (fen("W:WK19,K23:BK28,12"), Wdl::Win),
            (fen("B:WK19,K23:BK28,12"), Wdl::Loss),
            (fen("B:W18:B14"), Wdl::Win),
            (fen("W:W18:B14"), Wdl::Loss),
            (fen("B:WK1:BK32"), Wdl::Draw),
            (fen("W:W25,K7:B10"), Wdl::Draw),
            (fen("B:WK5:B27"), Wdl::Win),
        ];
        let set = EndgameSet::new(positions.clone());
        let (mut right, mut error) = (0, 0.0);
        for (pos, exact) in &positions {
            let obs = Game::new(*pos, DrawRules::default()).observation();
            let out = tch::no_grad(|| net.forward_t(&model::encoding::encode_batch(&[obs]), false));
            let row: Vec<f32> = Vec::try_from(out.view([-1])).unwrap();
            let eval = NetEval::from_output_row(&row);
            let target = match exact {
                Wdl::Win => 0,
                Wdl::Draw => 1,
                Wdl::Loss => 2,
            };
            let most_likely = (0..3).max_by(|&a, &b| eval.wdl[a].total_cmp(&eval.wdl[b])).unwrap();
            right += usize::from(most_likely == target);
            error += f64::from((eval.value() - (1 - target as i32) as f32).abs());
        }
        for batch in [1, 3, 1024] {
            let m = set.measure_in_batches(&net, 40, batch);
            assert_eq!((m.step, m.positions), (40, 7));
            assert!((m.accuracy - right as f64 / 7.0).abs() < 1e-9, "{m:?} {right}");
            assert!((m.mae - error / 7.0).abs() < 1e-5, "{m:?} {error}");
        }
        let empty = EndgameSet::new(Vec::new()).measure(&net, 0);
        assert_eq!((empty.positions, empty.accuracy, empty.mae), (0, 0.0, 0.0));
    }

    #[test]
    fn scores_follow_the_most_likely_class() {
        assert!(score([2.0, 0.0, 0.0], Wdl::Win).0);
        assert!(!score([2.0, 0.0, 0.0], Wdl::Draw).0);
        assert!(score([0.0, 0.0, 5.0], Wdl::Loss).0);
        let (_, err) = score([0.0, 0.0, 0.0], Wdl::Win);
        assert!((err - 1.0).abs() < 1e-12);
        let (_, err) = score([30.0, 0.0, 0.0], Wdl::Loss);
        assert!((err - 2.0).abs() < 1e-9);
    }

    #[test]
    fn the_log_reads_back_by_step_and_skips_a_cut_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(ENDGAME_LOG_FILE);
        assert!(read_endgame_log(&path).unwrap().by_step.is_empty());
        let line = |step| {
            let m = EndgameAccuracy { step, positions: 5, accuracy: 0.4, mae: 0.5, seconds: 1.0 };
            serde_json::to_string(&m).unwrap()
        };
        std::fs::write(&path, format!("{}\n{}\n{{\"step\": 3, \"pos", line(1), line(2))).unwrap();
        let log = read_endgame_log(&path).unwrap();
        assert_eq!(log.by_step.keys().copied().collect::<Vec<_>>(), [1, 2]);
        let second = &log.by_step[&2];
        assert_eq!((second.accuracy, second.seconds), (0.4, 0.0), "seconds are not logged");
        assert_eq!(log.skipped.iter().map(|bad| bad.line).collect::<Vec<_>>(), [3]);
    }

    #[test]
    fn a_line_cut_inside_a_character_is_skipped_and_the_lines_after_it_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(ENDGAME_LOG_FILE);
        let line = |step| {
            let m = EndgameAccuracy { step, positions: 5, accuracy: 0.4, mae: 0.5, seconds: 1.0 };
            serde_json::to_string(&m).unwrap() + "\n"
        };
        let mut bytes = line(1).into_bytes();
        bytes.extend_from_slice(b"{\"step\": 2, \"note\": \"r\xc3\n");
        bytes.extend_from_slice(line(3).as_bytes());
        std::fs::write(&path, bytes).unwrap();
        let log = read_endgame_log(&path).unwrap();
        assert_eq!(log.by_step.keys().copied().collect::<Vec<_>>(), [1, 3]);
        let skipped: Vec<String> = log.skipped.iter().map(|bad| support::one_line(bad)).collect();
        assert_eq!(skipped.len(), 1);
        assert!(
            skipped[0].contains(":2: not a record") && skipped[0].contains("not UTF-8"),
            "{skipped:?}"
        );
    }
}
