//! `docs/configs.md` against the code's declarations: every key of `[selfplay]`, its search
//! `[selfplay.mcts]`, `[train]`, `[gate]` and `[eval]`, and every player setting, documented with
//! the default and the range the code declares, and no documented key that the code lacks.

use arena::{player_config, EvalConfig, GateConfig, Thinking, PLAYER_PLAYOUTS};
use runconfig::{SelfPlayConfig, TrainConfig};
use search::settings::Key;
use search::{MctsConfig, MOVE_TEMPERATURE};
use std::collections::BTreeMap;
use std::time::Duration;

fn configs_md() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/configs.md");
    std::fs::read_to_string(path).unwrap()
}

/// The rows of the table that follows `heading` in `doc`: its first column without backticks,
/// mapped to the next two columns (the default without backticks).
fn table_after(doc: &str, heading: &str) -> BTreeMap<String, (String, String)> {
    let start = doc.find(heading).unwrap_or_else(|| panic!("no `{heading}` in docs/configs.md"));
    let rows = doc[start..]
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2);
    rows.map(|row| {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (key, default) = (cells[1].trim_matches('`'), cells[2].trim_matches('`'));
        (key.to_string(), (default.to_string(), cells[3].to_string()))
    })
    .collect()
}

/// Each difference between the documented rows and `keys`, whose default is `default(key)`.
fn differences(
    documented: &BTreeMap<String, (String, String)>,
    keys: &[Key],
    prefix: &str,
    default: impl Fn(&Key) -> String,
) -> Vec<String> {
    let mut problems = Vec::new();
    for key in keys {
        let name = format!("{prefix}{}", key.name);
        let expected = (default(key), key.range.clone());
        match documented.get(&name) {
            None => problems.push(format!("`{name}` is not documented")),
            Some(found) if *found != expected => problems.push(format!(
                "`{name}`: documented default and range {found:?}, declared {expected:?}"
            )),
            Some(_) => {}
        }
    }
    for name in documented.keys() {
        if !keys.iter().any(|key| format!("{prefix}{}", key.name) == *name) {
            problems.push(format!("`{name}` is documented but not declared"));
        }
    }
    problems
}

/// Each declared section: the heading of its table, the prefix its keys take there, its keys.
fn sections() -> [(&'static str, &'static str, Vec<Key>); 5] {
    [
        ("### Self-play: `[selfplay]`", "", SelfPlayConfig::keys()),
        ("### The search: `[selfplay.mcts]`", "selfplay.mcts.", MctsConfig::keys()),
        ("### Training: `[train]`", "train.", TrainConfig::keys()),
        ("### The gate: `[gate]`", "gate.", GateConfig::keys()),
        ("### Evaluation against anchors: `[eval]`", "eval.", EvalConfig::keys()),
    ]
}

#[test]
fn every_declared_key_is_documented_with_its_default_and_range() {
    let doc = configs_md();
    let mut problems = Vec::new();
    for (heading, prefix, keys) in sections() {
        let documented = table_after(&doc, heading);
        problems.extend(differences(&documented, &keys, prefix, |k| k.default.clone()));
    }
    let first = table_after(&doc, "# Configs");
    for (_, prefix, keys) in sections() {
        let again =
            keys.iter().map(|k| format!("{prefix}{}", k.name)).filter(|n| first.contains_key(n));
        problems.extend(again.map(|name| format!("`{name}` is in the first table too")));
    }
    assert!(problems.is_empty(), "docs/configs.md:\n{}", problems.join("\n"));
}

/// A player's default for `key` under a playout budget, and under a clock where that differs.
fn player_default(key: &Key) -> String {
    let text = |config: MctsConfig| match key.name {
        MOVE_TEMPERATURE => config.temperature.at(0).to_string(),
        name => config.text(name).unwrap(),
    };
    let playouts = text(player_config(Thinking::Playouts(PLAYER_PLAYOUTS)));
    let timed = text(player_config(Thinking::Time(Duration::from_millis(100))));
    match playouts == timed {
        true => playouts,
        false => format!("{playouts}; {timed} under a clock"),
    }
}

#[test]
fn every_player_setting_is_documented_with_the_players_default_and_range() {
    let doc = configs_md();
    let documented = table_after(&doc, "### Player settings");
    let problems = differences(&documented, &MctsConfig::player_keys(), "", player_default);
    assert!(problems.is_empty(), "docs/configs.md:\n{}", problems.join("\n"));
    let playouts = format!("default {PLAYER_PLAYOUTS}, `arena::PLAYER_PLAYOUTS`");
    assert!(doc.contains(&playouts), "docs/configs.md does not say `{playouts}`");
}

#[test]
fn a_wrong_row_is_found() {
    let doc = "## T\n\n| key | default | range | meaning |\n| --- | --- | --- | --- |\n\
               | `a.c_puct` | 1.5 | any | x |\n| `a.gone` | 1 | any | y |\n";
    let documented = table_after(doc, "## T");
    let keys: Vec<Key> = MctsConfig::keys().into_iter().filter(|k| k.name == "c_puct").collect();
    let problems = differences(&documented, &keys, "a.", |k| k.default.clone());
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("`a.c_puct`") && problems[0].contains("a finite number > 0"));
    assert!(problems[1].contains("`a.gone` is documented but not declared"));
}
