//! `checkers-zero bench --quick` on the tiny config with an inference server for self-play: every
//! figure of the JSON is there (the two net families', the alpha-beta engines' and the sparse
//! net's at each width too), with a finite positive value (timings are not checked: shared
//! machines are noisy).

use crate::helpers::{arg, succeed};

/// The JSON keys the bench promises (issue: "`checkers-zero bench`").
const NUMBERS: [&str; 26] = [
    "perft_nodes_per_s",
    "perft_depth",
    "perft_nodes",
    "mcts_sims_per_s",
    "forward_pos_per_s_b1",
    "forward_pos_per_s_b64",
    "forward_pos_per_s_b256",
    "forward_pos_per_s_b1024",
    "forward_pos_per_s_b4096",
    "selfplay_pos_per_s",
    "inference_efficiency",
    "selfplay_games_per_hour",
    "selfplay_server_pos_per_s",
    "selfplay_server_games_per_hour",
    "selfplay_server_mean_batch",
    "selfplay_server_speedup",
    "match_pos_per_s",
    "match_efficiency",
    "match_games_per_hour",
    "match_mean_batch",
    "train_samples_per_s",
    "train_sync_samples_per_s",
    "train_efficiency",
    "train_aux_samples_per_s",
    "train_aux_ratio",
    "threads",
];
const TEXTS: [&str; 4] = ["device", "version", "date", "machine"];
/// The figures of each family under `families` (the sparse net against the 4x32 ResNet).
const FAMILY_NUMBERS: [&str; 5] = [
    "evals_per_s_b1",
    "evals_per_s_b8",
    "search_playouts_per_s",
    "selfplay_pos_per_s",
    "selfplay_games_per_hour",
];
/// Shares in [0, 1] (0 is possible on the tiny config's short games).
const SHARES: [&str; 1] = ["selfplay_cache_hit_rate"];

#[test]
fn quick_bench_on_the_tiny_config_writes_every_figure() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let mut tiny = crate::helpers::shipped_config("tiny.toml");
    tiny.selfplay.server.threads = 1;
    let config = crate::helpers::write_config(dir.path(), "tiny-served.toml", &tiny);
    let text = succeed(&[
        "bench",
        "--quick",
        "--config",
        arg(&config),
        "--device",
        "cpu",
        "--json",
        arg(&json),
    ]);
    assert!(text.contains("| inference efficiency |"), "no table:\n{text}");
    assert!(text.contains("| match efficiency |"), "no match figures:\n{text}");
    assert!(text.contains("| self-play through a server |"), "no server figures:\n{text}");

    let figures: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for key in NUMBERS {
        let value = figures
            .get(key)
            .and_then(|v| v.as_f64())
            .unwrap_or_else(|| panic!("{key} missing or not a number: {figures:?}"));
        assert!(value.is_finite() && value > 0.0, "{key} = {value}");
    }
    for key in SHARES {
        let value = figures.get(key).and_then(|v| v.as_f64());
        assert!(value.is_some_and(|v| (0.0..=1.0).contains(&v)), "{key} = {value:?}");
    }
    for key in TEXTS {
        assert!(
            figures.get(key).and_then(|v| v.as_str()).is_some_and(|s| !s.is_empty()),
            "{key} missing: {figures:?}"
        );
    }
    // The two families side by side: each figure for both, and the table's ratio rows.
    for family in ["resnet", "sparse"] {
        let figures = &figures["families"][family];
        for key in FAMILY_NUMBERS {
            let value = figures[key].as_f64().unwrap_or_else(|| panic!("{family}.{key}"));
            assert!(value.is_finite() && value > 0.0, "{family}.{key} = {value}");
        }
    }
    assert!(text.contains("| sparse / ResNet, evaluations/s, batch 1 |"), "no ratios:\n{text}");
    // The alpha-beta engines with the shipped net, and what each refinement saves.
    let alphabeta = &figures["alphabeta"];
    for engine in ["classic_static", "net_incremental", "net_full_recompute"] {
        for key in ["nodes_per_s", "mean_depth"] {
            let value = alphabeta[engine][key].as_f64().unwrap_or_else(|| panic!("{engine}.{key}"));
            assert!(value.is_finite() && value > 0.0, "{engine}.{key} = {value}");
        }
    }
    let ratios = alphabeta["feature_node_ratios"].as_array().expect("the refinements' ratios");
    let names: Vec<&str> = ratios.iter().filter_map(|pair| pair[0].as_str()).collect();
    assert_eq!(names, ["pvs", "aspiration", "killers", "history", "policy", "keep_table"]);
    assert!(ratios.iter().all(|pair| pair[1].as_f64().is_some_and(|r| r > 0.0)), "{ratios:?}");
    assert!(text.contains("| alpha-beta, net incremental |"), "no alpha-beta rows:\n{text}");
    // The sparse net at each size: both rates, and a table row each.
    let sizes = figures["sizes"].as_array().expect("the sizes");
    let shapes: Vec<(u64, u64)> = sizes
        .iter()
        .filter_map(|s| Some((s["accumulator"].as_u64()?, s["buckets"].as_u64()?)))
        .collect();
    assert_eq!(shapes, [(128, 1), (128, 4), (256, 1), (512, 1)]);
    for size in sizes {
        for key in ["evals_per_s", "alphabeta_nodes_per_s"] {
            let value = size[key].as_f64().unwrap_or_else(|| panic!("sizes.{key}"));
            assert!(value.is_finite() && value > 0.0, "{size}: {key} = {value}");
        }
        assert!(text.contains(&format!("| size: {} |", size["net"].as_str().unwrap())), "{text}");
    }
    assert_eq!(
        figures.len(),
        NUMBERS.len() + TEXTS.len() + SHARES.len() + 3,
        "exactly the promised keys: {:?}",
        figures.keys().collect::<Vec<_>>()
    );
    assert_eq!(figures["device"], "cpu");
}
