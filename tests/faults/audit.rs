//! The run-directory audit: every file of a run is complete and readable by its reader, or a
//! writer's temporary file (`.NAME...tmp`) that readers ignore. Used after every fault.

use arena::{GateRecord, ResultRecord};
use model::NetConfig;
use runconfig::RunConfig;
use rundata::{BestNet, RunDir};
use shard::read_shard;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use tch::Device;

/// What a run directory holds, and every file that is not what it should be.
#[derive(Debug, Default)]
pub struct Audit {
    /// Complete shard files (names).
    pub shards: BTreeSet<String>,
    /// Self-play games the run's `progress.json` counts.
    pub counted_games: u64,
    /// Training step of the newest training state.
    pub newest_state: Option<u64>,
    pub best: Option<BestNet>,
    pub gates: usize,
    /// Candidate steps with more than one gate record.
    pub doubled_gates: Vec<u64>,
    pub results: usize,
    /// Records in `eval.jsonl`.
    pub evaluations: usize,
    /// Temporary files left behind by killed writers (`.NAME...tmp`, the store's `NAME#N`).
    pub temporaries: usize,
    /// Files that are neither complete nor temporary, each named with what is wrong.
    pub problems: Vec<String>,
}

impl Audit {
    /// Panics naming every damaged file.
    pub fn assert_clean(&self) {
        assert!(
            self.problems.is_empty(),
            "damaged files in the run directory:\n{}",
            self.problems.join("\n")
        );
    }
}

/// Checks every file of the run directory at `root` (whose writers must have stopped). A run
/// killed before it wrote its config holds nothing yet.
pub fn audit(root: &Path) -> Audit {
    let mut audit = Audit::default();
    let Ok(text) = std::fs::read_to_string(root.join("config.toml")) else {
        return audit;
    };
    let run = RunDir::existing(root).expect("a run directory");
    let RunConfig { net, train, .. } = RunConfig::parse(&text).expect("config.toml reads");

    for path in files(&run.shards_dir(), &mut audit) {
        match read_shard(&path) {
            Ok(_) => drop(audit.shards.insert(name(&path))),
            Err(e) => audit.problems.push(e.to_string()),
        }
    }
    for path in files(&run.nets_dir(), &mut audit) {
        if let Err(e) = model::checkpoint::load(&path, Some(&net), Device::Cpu) {
            audit.problems.push(e.to_string());
        }
    }
    for path in files(&run.train_dir(), &mut audit) {
        match train::state::load_state(&path, &net, &train, Device::Cpu) {
            Ok(restored) => audit.newest_state = audit.newest_state.max(Some(restored.state.step)),
            Err(e) => audit.problems.push(e.to_string()),
        }
    }
    for path in files(&run.games_dir(), &mut audit) {
        if path.extension().is_some_and(|e| e == "pdn") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if let Err(e) = draughts::read_pdn(&text) {
                audit.problems.push(format!("{}: {e}", path.display()));
            }
        } else if path == run.results_file() {
            audit.results = json_lines::<ResultRecord>(&path, &mut audit.problems);
        } else {
            audit.problems.push(format!("{}: unexpected file", path.display()));
        }
    }
    // The per-generation best-net pointers (and the old layout's best.json, read too).
    let pointers = files(&run.root().join("best"), &mut audit);
    for path in &pointers {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        match serde_json::from_str::<BestNet>(&text) {
            Ok(best) if name(path) == format!("gen-{:06}.json", best.generation) => {}
            Ok(best) => audit.problems.push(format!(
                "{}: names generation {}",
                path.display(),
                best.generation
            )),
            Err(e) => audit.problems.push(format!("{}: {e}", path.display())),
        }
    }
    if !pointers.is_empty() || run.best_file().exists() {
        check_best(&run, &net, &mut audit);
    }
    for path in files(run.root(), &mut audit) {
        match name(&path).as_str() {
            "config.toml" | "best.json" => {}
            "progress.json" => match serde_json::from_str::<serde_json::Value>(
                &std::fs::read_to_string(&path).unwrap_or_default(),
            ) {
                Ok(v) => audit.counted_games = v["games"].as_u64().unwrap_or(0),
                Err(e) => audit.problems.push(format!("{}: {e}", path.display())),
            },
            "gates.jsonl" => {
                audit.gates = json_lines::<GateRecord>(&path, &mut audit.problems);
                audit.doubled_gates = doubled_gates(&path);
            }
            "eval.jsonl" => {
                audit.evaluations = json_lines::<arena::EvalRecord>(&path, &mut audit.problems)
            }
            _ => audit.problems.push(format!("{}: unexpected file", path.display())),
        }
    }
    audit
}

/// The best-net pointer parses and names a complete net of the run's architecture.
fn check_best(run: &RunDir, net: &NetConfig, audit: &mut Audit) {
    match run.best() {
        Ok(Some(best)) => {
            let path = run.root().join(&best.checkpoint);
            if let Err(e) = model::checkpoint::load(&path, Some(net), Device::Cpu) {
                audit
                    .problems
                    .push(format!("the best-net pointer names a net that does not load: {e}"));
            }
            audit.best = Some(best);
        }
        Ok(None) => {}
        Err(e) => audit.problems.push(e.to_string()),
    }
}

/// The plain files directly in `dir`, temporary files counted and left out.
fn files(dir: &Path, audit: &mut Audit) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten() {
        let path = entry.expect("a folder entry").path();
        let file = name(&path);
        if path.is_dir() {
            continue;
        } else if file.starts_with('.') && file.ends_with(".tmp") || is_staged(&file) {
            audit.temporaries += 1;
        } else {
            paths.push(path);
        }
    }
    paths
}

/// Whether `file` is the store's staging file of a create-if-absent write (`NAME#N`, e.g. a
/// best-net pointer being promoted when a kill came), which its listings ignore.
fn is_staged(file: &str) -> bool {
    file.rsplit_once('#')
        .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The records of a JSON-lines file; a line that does not parse is a problem.
fn json_lines<T: serde::de::DeserializeOwned>(path: &Path, problems: &mut Vec<String>) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut count = 0;
    for (i, line) in text.lines().enumerate() {
        match serde_json::from_str::<T>(line) {
            Ok(_) => count += 1,
            Err(e) => problems.push(format!("{} line {}: {e}", path.display(), i + 1)),
        }
    }
    count
}

/// The candidate steps of a gate log that were gated more than once.
fn doubled_gates(path: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut seen = BTreeSet::new();
    let steps = text.lines().filter_map(|line| serde_json::from_str::<GateRecord>(line).ok());
    steps.filter_map(|gate| gate.candidate_step).filter(|&step| !seen.insert(step)).collect()
}

fn name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}
