//! The run config's tests: the shipped configs, and bad TOML, keys and values named on one line.

use super::*;

fn shipped(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs").join(name))
        .unwrap()
}

#[test]
fn shipped_configs_are_valid_and_round_trip() {
    for name in
        ["default.toml", "scaling.toml", "resnet.toml", "gpu.toml", "tiny.toml", "tiny-sparse.toml"]
    {
        let config = RunConfig::parse(&shipped(name)).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        assert_eq!(RunConfig::parse(&config.to_toml()).unwrap(), config, "{name}");
    }
}

#[test]
fn egdb_keys_are_checked() {
    let with = |extra: &str| RunConfig::parse(&format!("{}\n{extra}", shipped("tiny.toml")));
    let err = format!("{:#}", with("[egdb]\npieces = 7").unwrap_err());
    assert!(err.contains("egdb.pieces"), "{err}");
    let err = format!("{:#}", with("[egdb]\npeices = 3").unwrap_err());
    assert!(err.contains("peices"), "{err}");
    let text = shipped("tiny.toml").replace("[selfplay]", "[selfplay]\nadjudicate_egdb = true");
    let err = format!("{:#}", RunConfig::parse(&text).unwrap_err());
    assert!(err.contains("selfplay.adjudicate_egdb"), "{err}");
    let text = shipped("tiny.toml").replace("[selfplay]", "[selfplay]\nrescore_egdb = true");
    let err = format!("{:#}", RunConfig::parse(&text).unwrap_err());
    assert!(err.contains("selfplay.rescore_egdb"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let missing = EgdbConfig { path: dir.path().to_path_buf(), pieces: 2 };
    let err = format!("{:#}", missing.load().unwrap_err());
    assert!(err.contains("egdb build --pieces 2"), "{err}");
    ::egdb::build(dir.path(), 2, |_| {}).unwrap();
    assert_eq!(missing.load().unwrap().unwrap().max_pieces(), 2);
    assert!(EgdbConfig::default().load().unwrap().is_none());
}

#[test]
fn alpha_beta_value_targets_need_the_sparse_net() {
    let with_nodes = |name: &str| {
        let text = shipped(name).replace("[selfplay]", "[selfplay]\nvalue_search_nodes = 2000");
        RunConfig::parse(&text)
    };
    assert_eq!(with_nodes("tiny-sparse.toml").unwrap().selfplay.value_search_nodes, 2000);
    let err = format!("{:#}", with_nodes("resnet.toml").unwrap_err());
    assert!(err.contains("selfplay.value_search_nodes") && err.contains("sparse"), "{err}");
}

#[test]
fn a_growth_schedule_is_checked_against_the_net() {
    let grow = |config: &str, widenings: &str| {
        let text = shipped(config).replace("[train]", &format!("[train]\ngrow = {widenings}"));
        RunConfig::parse(&text).map_err(|e| format!("{e:#}"))
    };
    let grown =
        grow("tiny-sparse.toml", "[{at = 500, accumulator = 32}, {at = 900, accumulator = 64}]");
    assert_eq!(grown.unwrap().train.grow.widths().collect::<Vec<_>>(), [32, 64]);
    for (config, widenings, expected) in [
        ("tiny.toml", "[{at = 500, accumulator = 32}]", "only a sparse net grows"),
        ("tiny-sparse.toml", "[{at = 500, accumulator = 16}]", "above `net.accumulator` = 16"),
        ("tiny-sparse.toml", "[{at = 500, accumulator = 5000}]", "accumulator = 5000"),
        (
            "tiny-sparse.toml",
            "[{at = 900, accumulator = 32}, {at = 500, accumulator = 64}]",
            "in section [train]: `grow`",
        ),
        ("tiny-sparse.toml", "[{at = 500, acumulator = 32}]", "acumulator"),
    ] {
        let err = grow(config, widenings).unwrap_err();
        assert!(err.contains(expected) && !err.contains('\n'), "{widenings}: {err}");
    }
}

#[test]
fn unknown_key_is_named() {
    let text = shipped("tiny.toml").replace("[selfplay]", "[selfplay]\nworkerz = 3");
    let err = format!("{:#}", RunConfig::parse(&text).unwrap_err());
    assert!(err.contains("workerz"), "{err}");
}

#[test]
fn toml_errors_were_several_lines_without_the_key() {
    for (from, to, expected) in [
        (
            "workers = 1",
            "workers = \"two\"",
            "line 18, column 11, `selfplay.workers`: invalid type: string \"two\"",
        ),
        (
            "[selfplay]",
            "[selfplay]\nworkerz = 3",
            "line 18, column 1, `selfplay.workerz`: unknown field `workerz`",
        ),
        ("seed = 7", "seed = -", "line 3, column 9, `seed`: invalid integer"),
    ] {
        let err = format!(
            "{:#}",
            RunConfig::parse(&shipped("tiny.toml").replacen(from, to, 1)).unwrap_err()
        );
        assert!(err.starts_with(expected) && !err.contains('\n'), "{err}");
    }
    let err = format!("{:#}", RunConfig::parse("seed = 1").unwrap_err());
    assert!(err.contains("missing field `net`") && !err.contains('\n'), "{err}");
}

#[test]
fn bad_value_is_named_with_its_section() {
    let text = shipped("tiny.toml").replace("workers = 1", "workers = 257");
    let err = format!("{:#}", RunConfig::parse(&text).unwrap_err());
    assert!(err.contains("selfplay.workers"), "{err}");
    let text = shipped("tiny.toml").replace("games = 4", "games = 3");
    let err = format!("{:#}", RunConfig::parse(&text).unwrap_err());
    assert!(err.contains("games") && err.contains("[gate]"), "{err}");
}

#[test]
fn run_mode_is_read_and_a_bad_one_is_named() {
    let with =
        |mode: &str| RunConfig::parse(&format!("{}\n[run]\nmode = {mode}\n", shipped("tiny.toml")));
    assert_eq!(with("\"concurrent\"").unwrap().run.mode, RunMode::Concurrent);
    assert_eq!(RunConfig::parse(&shipped("tiny.toml")).unwrap().run.mode, RunMode::Sequential);
    let err = format!("{:#}", with("\"parallel\"").unwrap_err());
    assert!(
        err.contains("`run.mode`") && err.contains("concurrent") && !err.contains('\n'),
        "{err}"
    );
    assert_eq!(RunConfig::parse(&shipped("gpu.toml")).unwrap().run.mode, RunMode::Concurrent);
}

#[test]
fn bad_device_is_named() {
    let text = shipped("tiny.toml").replace("device = \"cpu\"", "device = \"tpu\"");
    let err = format!("{:#}", RunConfig::parse(&text).unwrap_err());
    assert!(err.contains("device") && err.contains("tpu"), "{err}");
}

/// What CI's property test found after 682 cases: an `[eval] opponents` value holding a line
/// break was echoed as is, and the error spanned two lines. Now every echoed value is escaped,
/// and a long one cut.
#[test]
fn an_echoed_value_with_a_line_break_stayed_on_one_line() {
    let tiny = shipped("tiny.toml");
    for (from, to) in [
        ("opponents = [\"alphabeta:1\"]", "opponents = [\"alpha\\nbeta:1\"]"),
        ("opponents = [\"alphabeta:1\"]", "opponents = [\"mcts:a\\rb:\\u001b\"]"),
        ("workers = 1", "\"work\\ners\" = 1"),
        ("workers = 1", "workers = \"two\\nthree\""),
    ] {
        let err = format!("{:#}", RunConfig::parse(&tiny.replacen(from, to, 1)).unwrap_err());
        assert!(!err.chars().any(char::is_control), "{err}");
    }
    let long = format!("opponents = [\"{}\"]", "x".repeat(1_000_000));
    let err = RunConfig::parse(&tiny.replacen("opponents = [\"alphabeta:1\"]", &long, 1));
    let err = format!("{:#}", err.unwrap_err());
    assert!(err.len() < 2000 && err.contains("bytes in all"), "{err}");
}

/// Reading `/dev/zero` as a config grew without bound.
#[test]
fn a_config_that_is_not_a_regular_file_or_too_big_is_refused_before_it_is_read() {
    let err = format!("{:#}", RunConfig::load(Path::new("/dev/zero")).unwrap_err());
    assert!(err.contains("/dev/zero") && err.contains("not a regular file"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.toml");
    std::fs::write(&big, vec![b'#'; MAX_CONFIG_BYTES as usize + 1]).unwrap();
    let err = format!("{:#}", RunConfig::load(&big).unwrap_err());
    assert!(
        err.contains("limit of a config") && err.contains("CHECKERS_ZERO_MAX_FILE_MB"),
        "{err}"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(support::property_cases(10_000)))]

    /// The tiny config with a slice of it replaced by any text: a config or a one-line error,
    /// never a panic.
    #[test]
    fn damaged_config_text_is_refused_on_one_line_without_panicking(
        at in 0.0..1.0f64, cut in 0usize..40, insert in "[\\[\\]=a-z0-9_.\"' \n#-]{0,16}|\\PC{0,8}"
    ) {
        let tiny = shipped("tiny.toml"); // ASCII: every byte index is a char boundary
        let start = (at * tiny.len() as f64) as usize;
        let end = (start + cut).min(tiny.len());
        let text = format!("{}{insert}{}", &tiny[..start], &tiny[end..]);
        if let Err(e) = RunConfig::parse(&text) {
            proptest::prop_assert!(!format!("{e:#}").chars().any(char::is_control), "{e:#}");
        }
    }
}
