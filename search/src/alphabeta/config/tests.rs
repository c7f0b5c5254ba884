//! `docs/alphabeta.md`'s table of search refinements against their declaration: every refinement
//! documented with its classic and full value and its values, and no documented one the code lacks.

use super::declare::Declared;
use super::SearchFeatures;

/// The rows of the first table after `heading` in `doc`: the setting without backticks, then its
/// classic value, full value and values.
fn rows_after(doc: &str, heading: &str) -> Vec<[String; 4]> {
    let start = doc.find(heading).unwrap_or_else(|| panic!("no `{heading}` in the doc"));
    let table = doc[start..]
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'));
    let cells = |row: &str| -> [String; 4] {
        let cell: Vec<&str> = row.split('|').map(str::trim).collect();
        let cell = |i: usize| cell.get(i).copied().unwrap_or("").to_string();
        [cell(1).trim_matches('`').to_string(), cell(2), cell(3), cell(4)]
    };
    table.skip(2).map(cells).collect()
}

/// Each difference between the documented `rows` and the `declared` refinements.
fn differences(rows: &[[String; 4]], declared: &[Declared]) -> Vec<String> {
    let mut problems = Vec::new();
    for d in declared {
        let expected = [d.name.to_string(), d.classic.clone(), d.full.clone(), d.values.clone()];
        match rows.iter().find(|row| row[0] == d.name) {
            None => problems.push(format!("`{}` is not documented", d.name)),
            Some(row) if *row != expected => {
                problems.push(format!("`{}`: documented {row:?}, declared {expected:?}", d.name))
            }
            Some(_) => {}
        }
    }
    let undeclared = rows.iter().filter(|row| !declared.iter().any(|d| d.name == row[0]));
    problems.extend(undeclared.map(|row| format!("`{}` is documented but not declared", row[0])));
    problems
}

#[test]
fn every_refinement_is_documented_with_its_values() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/alphabeta.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let rows = rows_after(&doc, "## Search refinements");
    let problems = differences(&rows, &SearchFeatures::declared());
    assert!(problems.is_empty(), "docs/alphabeta.md:\n{}", problems.join("\n"));
}

#[test]
fn a_wrong_row_is_found() {
    let doc = "## T\n\n| setting | classic | full | values | what |\n| --- | --- | --- | --- | --- |\n\
               | `threads` | 1 | 2 | a count from 1 to 64 | x |\n| `gone` | off | on | a switch | y |\n";
    let declared: Vec<Declared> =
        SearchFeatures::declared().into_iter().filter(|d| d.name != "pvs").collect();
    let problems = differences(&rows_after(doc, "## T"), &declared);
    assert!(problems.iter().any(|p| p == "`aspiration` is not documented"), "{problems:?}");
    assert!(problems.iter().any(|p| p.starts_with("`threads`: documented")), "{problems:?}");
    assert_eq!(problems.last().unwrap(), "`gone` is documented but not declared");
    assert_eq!(problems.len(), declared.len() + 1, "{problems:?}");
}

#[test]
fn the_declaration_gives_the_engines_and_the_spec_keys() {
    let (classic, full) = (SearchFeatures::classic(), SearchFeatures::full());
    assert!(!classic.pvs && classic.aspiration == 0 && classic.threads == 1);
    assert!(full.pvs && full.aspiration == 30 && full.partial_iterations && full.threads == 1);
    assert!(!classic.extensions && full.extensions && classic.futility == 0);
    assert_eq!((classic.verified_pruning, full.verified_pruning), (0, 30));
    assert!(classic.capture_table && !full.capture_table);
    assert!(!classic.time_management && !full.time_management);
    assert_eq!(SearchFeatures::default(), classic);
    let names: Vec<&str> = SearchFeatures::declared().iter().map(|d| d.name).collect();
    assert_eq!(names, SearchFeatures::KEYS);
    assert_eq!(SearchFeatures::KEYS.len(), 16);
    let mut features = SearchFeatures::classic();
    for (key, text) in [("pvs", "on"), ("aspiration", "1000"), ("threads", "64"), ("policy", "1")] {
        features.set(key, text).unwrap();
    }
    assert!(features.pvs && features.policy && features.aspiration == 1000);
    assert_eq!(features.threads, 64);
    let err = features.set("threads", "65").unwrap_err();
    assert_eq!(err, "`threads` is a count from 1 to 64, not `65`");
    let err = features.set("aspiration", "-5").unwrap_err();
    assert_eq!(err, "`aspiration` is a half-width from 0 to 1000 (a man is 100), not `-5`");
    let err = features.set("depth", "3").unwrap_err();
    assert!(err.starts_with("unknown alpha-beta setting `depth`; expected one of pvs, aspiration,"));
    assert!(err.ends_with("partial_iterations, threads"), "{err}");
    assert_eq!(features.threads, 64, "a refused value leaves the setting as it was");
}
