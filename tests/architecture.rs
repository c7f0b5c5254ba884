//! `docs/architecture.md`'s crate table against the workspace: every crate has a row, every row's
//! folder is a crate (or an existing folder of another kind, like `tests/`), and the crates named
//! in a row's "depends on" column are exactly the workspace crates its `Cargo.toml` depends on
//! (`cargo metadata`; dev-dependencies aside).

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace's packages, as `cargo metadata` describes them.
fn packages() -> Vec<Value> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(root())
        .output()
        .expect("running cargo metadata");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let metadata: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON");
    metadata["packages"].as_array().expect("packages").clone()
}

/// The names of what `package` depends on, dev-dependencies aside.
fn dependencies(package: &Value) -> impl Iterator<Item = &str> {
    let all = package["dependencies"].as_array().expect("dependencies");
    all.iter()
        .filter(|d| d["kind"].as_str() != Some("dev"))
        .map(|d| d["name"].as_str().expect("a dependency's name"))
}

/// Each workspace crate by the folder that holds its code (`src` for the root package), with the
/// workspace crates it depends on (normal and build dependencies), by folder too.
fn workspace_crates() -> BTreeMap<String, BTreeSet<String>> {
    let packages = packages();
    let folder_of = |package: &Value| {
        let source = Path::new(package["targets"][0]["src_path"].as_str().expect("src_path"));
        let relative = source.strip_prefix(root()).expect("a crate inside the workspace");
        let folder = relative.components().next().expect("a folder");
        folder.as_os_str().to_string_lossy().into_owned()
    };
    let folders: BTreeMap<&str, String> =
        packages.iter().map(|p| (p["name"].as_str().expect("name"), folder_of(p))).collect();
    packages
        .iter()
        .map(|package| {
            let depends =
                dependencies(package).filter_map(|name| folders.get(name)).cloned().collect();
            (folder_of(package), depends)
        })
        .collect()
}

/// The names in backticks of a table cell, each without a trailing `/`.
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).map(|span| span.trim_end_matches('/').to_string()).collect()
}

/// The crate table's rows: the folder (the first code span of the first cell) and the names in
/// backticks of the "depends on" cell.
fn table_rows(doc: &str) -> Vec<(String, BTreeSet<String>)> {
    let mut lines = doc.lines().skip_while(|line| !line.starts_with("| crate |"));
    assert!(lines.next().is_some_and(|header| header.contains("| depends on |")), "no crate table");
    lines
        .skip(1)
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').collect();
            let folder = code_spans(cells[0]).into_iter().next().expect("a folder in backticks");
            let depends = code_spans(cells.last().expect("cells")).into_iter().collect();
            (folder, depends)
        })
        .collect()
}

#[test]
fn the_crate_table_names_every_crate_and_its_dependencies() {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let rows = table_rows(&doc);
    let crates = workspace_crates();
    let mut wrong = Vec::new();
    for (folder, depends) in &crates {
        match rows.iter().find(|(row, _)| row == folder) {
            None => wrong.push(format!("{folder}/: a crate without a row")),
            Some((_, documented)) if documented != depends => wrong.push(format!(
                "{folder}/: Cargo.toml depends on {depends:?}; the table says {documented:?} \
                 (missing: {:?}; not a dependency: {:?})",
                depends.difference(documented).collect::<Vec<_>>(),
                documented.difference(depends).collect::<Vec<_>>()
            )),
            Some(_) => {}
        }
    }
    for (folder, _) in &rows {
        if !crates.contains_key(folder) && !root().join(folder).is_dir() {
            wrong.push(format!("{folder}/: a row for a folder that does not exist"));
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/architecture.md's crate table is out of date:\n{}",
        wrong.join("\n")
    );
}

/// The packages of the command line itself: its schema and the commands without a net (`cli`),
/// the binary, and the net library that is the binary's libtorch half.
const FRONT_DOOR: [&str; 3] = ["cli", "checkers-zero", "checkers-zero-torch"];

#[test]
fn no_library_depends_on_the_binary_or_on_the_command_line_parser() {
    let mut wrong = Vec::new();
    for package in packages() {
        let name = package["name"].as_str().expect("name");
        for dependency in dependencies(&package) {
            if dependency == "checkers-zero" {
                wrong.push(format!("{name} depends on the binary's package"));
            }
            if dependency == "clap" && !FRONT_DOOR.contains(&name) {
                wrong.push(format!("{name} depends on clap: a library takes options of its own"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_table_is_read_as_folders_and_the_crates_in_backticks() {
    let doc = "| crate | holds | depends on |\n| --- | --- | --- |\n\
               | `shard/` | samples | `draughts`, `support` (no tch) |\n\
               | root (`cli/`) | the binary | `arena`, `hub` |\n";
    let rows = table_rows(doc);
    let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(rows[0], ("shard".to_string(), names(&["draughts", "support"])));
    assert_eq!(rows[1], ("cli".to_string(), names(&["arena", "hub"])));
}
