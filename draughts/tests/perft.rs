//! The perft suites in `tests/perft/*.perft`: every count must match the engine, and the slow
//! reference generator too where the tree is small enough for it.

use crate::support::fen;
use draughts::perft;
use std::path::{Path, PathBuf};

/// Counts up to this many leaves are also checked against the reference generator.
const REFERENCE_LIMIT: u64 = 300_000;

/// One position of a suite and its counts by depth.
struct Case {
    /// `file:line` of its `id` line, for messages.
    at: String,
    id: String,
    fen: String,
    counts: Vec<(u32, u64)>,
}

fn suite_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/perft");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "perft"))
        .collect();
    files.sort();
    files
}

/// The cases of a suite file: `id`, `fen`, then `perft DEPTH NODES` lines; `#` starts a comment.
fn parse(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_name().unwrap().to_string_lossy();
    let mut cases: Vec<Case> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = format!("{name}:{}", i + 1);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once(' ').unwrap_or_else(|| panic!("{at}: `{line}`"));
        match key {
            "id" => cases.push(Case {
                at,
                id: value.to_string(),
                fen: String::new(),
                counts: Vec::new(),
            }),
            "fen" => {
                cases.last_mut().unwrap_or_else(|| panic!("{at}: fen before id")).fen =
                    value.to_string()
            }
            "perft" => {
                let (depth, nodes) = value.split_once(' ').unwrap_or_else(|| panic!("{at}"));
                let count = (depth.parse().expect(&at), nodes.parse().expect(&at));
                cases
                    .last_mut()
                    .unwrap_or_else(|| panic!("{at}: perft before id"))
                    .counts
                    .push(count);
            }
            _ => panic!("{at}: unknown key `{key}`"),
        }
    }
    cases
}

#[test]
fn perft_suites_match_the_engine_and_the_reference() {
    let files = suite_files();
    assert!(files.len() >= 4, "suites: {files:?}");
    let (mut positions, mut checked_by_reference) = (0, 0);
    for path in &files {
        for case in parse(path) {
            assert!(!case.fen.is_empty() && !case.counts.is_empty(), "{}: incomplete", case.at);
            let pos = fen(&case.fen);
            for &(depth, nodes) in &case.counts {
                let what = format!("{} ({}) depth {depth}", case.id, case.at);
                assert_eq!(perft(&pos, depth), nodes, "engine, {what}");
                if nodes <= REFERENCE_LIMIT {
                    assert_eq!(crate::reference::perft(&pos, depth), nodes, "reference, {what}");
                    checked_by_reference += 1;
                }
            }
            positions += 1;
        }
    }
    assert!(positions >= 15 && checked_by_reference >= 100, "{positions}, {checked_by_reference}");
}
