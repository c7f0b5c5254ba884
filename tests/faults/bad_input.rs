//! Bad input everywhere a user types or names something: configs, run directories, FEN, player
//! specs, checkpoint, export and openings paths, arguments. Each is refused with one line
//! `error: ...` naming what is wrong and where, a non-zero exit, and no panic or backtrace
//! (`RUST_BACKTRACE=1` is set).

use super::{arg, assert_no_panic, run_to_end};
use model::{NetConfig, PolicyValueNet};
use std::path::Path;

const FEN: &str = "B:W21,22:B1,2";

/// Files for the cases: configs broken in each way, a directory, a text file, a real checkpoint.
fn fixtures(dir: &Path) {
    let tiny =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/tiny.toml"))
            .unwrap();
    for (name, from, to) in [
        ("unknown.toml", "[selfplay]", "[selfplay]\nworkerz = 3"),
        ("badvalue.toml", "workers = 1", "workers = 257"),
        ("wrongtype.toml", "workers = 1", "workers = \"two\""),
        ("syntax.toml", "[net]", "[net"),
        ("nonet.toml", "[net]", "[nett]"),
    ] {
        std::fs::write(dir.join(name), tiny.replacen(from, to, 1)).unwrap();
    }
    std::fs::create_dir(dir.join("folder")).unwrap();
    std::fs::write(dir.join("text.safetensors"), "not a net\n").unwrap();
    let net = PolicyValueNet::new(&NetConfig::new(1, 8), tch::Device::Cpu).unwrap();
    model::checkpoint::save(&dir.join("net.safetensors"), &net, 0, None, &Default::default())
        .unwrap();
}

#[test]
fn bad_input_gets_a_one_line_error_naming_what_and_where() {
    let dir = tempfile::tempdir().unwrap();
    fixtures(dir.path());
    let p = |name: &str| arg(&dir.path().join(name)).to_string();
    let (net, text, folder, missing) =
        (p("net.safetensors"), p("text.safetensors"), p("folder"), p("missing.safetensors"));
    let run = |config: &str| {
        vec!["run".to_string(), "--config".into(), p(config), "--run-dir".into(), p("run")]
    };
    let bestmove =
        |player: &str| vec!["bestmove".to_string(), player.into(), "--fen".into(), FEN.into()];
    let export = |ckpt: &str, out: &str| {
        vec![
            "export".to_string(),
            ckpt.into(),
            "--format".into(),
            "onnx".into(),
            "--out".into(),
            out.into(),
        ]
    };
    let cases: Vec<(Vec<String>, &[&str])> = vec![
        (run("missing.toml"), &["missing.toml", "No such file"]),
        (run("folder"), &["folder", "not a regular file (a folder)"]),
        (run("unknown.toml"), &["unknown.toml", "line 18", "`selfplay.workerz`", "unknown field"]),
        (run("badvalue.toml"), &["badvalue.toml", "`selfplay.workers`"]),
        (
            run("wrongtype.toml"),
            &["wrongtype.toml", "line 18", "`selfplay.workers`", "invalid type"],
        ),
        (run("syntax.toml"), &["syntax.toml", "line"]),
        (run("nonet.toml"), &["nonet.toml", "nett"]),
        (
            vec![
                "run".into(),
                "--config".into(),
                "configs/tiny.toml".into(),
                "--run-dir".into(),
                text.clone(),
            ],
            &["text.safetensors", "not a directory"],
        ),
        (
            vec![
                "run".into(),
                "--config".into(),
                "configs/tiny.toml".into(),
                "--run-dir".into(),
                p("r"),
                "--wall-minutes".into(),
                "NaN".into(),
            ],
            &["budget.wall_minutes"],
        ),
        (
            vec![
                "selfplay".into(),
                "--config".into(),
                "configs/tiny.toml".into(),
                "--run-dir".into(),
                p("r"),
                "--workers".into(),
                "257".into(),
            ],
            &["selfplay.workers"],
        ),
        (
            vec!["train".into(), "--run-dir".into(), text.clone()],
            &["text.safetensors", "not a directory"],
        ),
        (
            vec!["perft".into(), "3".into(), "--fen".into(), "B:W99:B1".into()],
            &["--fen", "\"99\" is not a square"],
        ),
        (
            vec!["bestmove".into(), "random".into(), "--fen".into(), "W:W21:Bfoo".into()],
            &["FEN", "\"foo\""],
        ),
        (vec!["bestmove".into(), "random".into(), "--fen".into(), "".into()], &["FEN \"\""]),
        (bestmove("foo"), &["player `foo`", "unknown kind of player"]),
        (bestmove("alphabeta:x"), &["player `alphabeta:x`", "depth `x`"]),
        (bestmove("alphabeta:99"), &["depth `99`"]),
        (bestmove("random:3"), &["player `random:3`"]),
        (
            bestmove(&format!("mcts:{missing}")),
            &["missing.safetensors", "no checkpoint file or run directory"],
        ),
        (bestmove(&format!("mcts:{folder}")), &["folder", "no best net"]),
        (
            bestmove(&format!("policy:{text}")),
            &["text.safetensors", "not a checkers-zero checkpoint"],
        ),
        (bestmove(&format!("mcts:{net}:0")), &["playouts `0`"]),
        (export(&missing, &p("x.onnx")), &["missing.safetensors", "No such file"]),
        (export(&folder, &p("x.onnx")), &["folder", "not a regular file (a folder)"]),
        (export(&text, &p("x.onnx")), &["text.safetensors", "not a checkers-zero checkpoint"]),
        (export(&net, &p("nowhere/x.onnx")), &["nowhere/x.onnx"]),
        (export(&net, &folder), &["folder"]),
        (
            vec![
                "match".into(),
                "random".into(),
                "alphabeta:1".into(),
                "--openings".into(),
                text.clone(),
            ],
            &["text.safetensors:1", "bad ballot"],
        ),
        (
            vec![
                "match".into(),
                "random".into(),
                "alphabeta:1".into(),
                "--openings".into(),
                missing.clone(),
            ],
            &["missing.safetensors", "No such file"],
        ),
        (vec!["ladder".into(), missing.clone()], &["missing.safetensors", "No such file"]),
        (vec!["ladder".into(), text.clone()], &["text.safetensors", "not a directory"]),
        // Argument errors are clap's: `error: ...` first, then the usage.
        (
            vec![
                "export".into(),
                net.clone(),
                "--format".into(),
                "pickle".into(),
                "--out".into(),
                p("x"),
            ],
            &["'pickle'", "--format"],
        ),
        (
            vec!["run".into(), "--selfplay-games".into(), "many".into()],
            &["'many'", "--selfplay-games"],
        ),
        (vec!["bench".into(), "--device".into(), "tpu".into()], &["device `tpu`"]),
        (vec!["frobnicate".into()], &["'frobnicate'"]),
        (vec!["perft".into()], &["required arguments"]),
        (vec!["perft".into(), "500".into()], &["500", "0..=25"]),
    ];
    for (args, expected) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (ok, _, stderr) = run_to_end(&args);
        assert!(!ok, "{args:?} succeeded");
        assert_no_panic(&stderr);
        let first = stderr.lines().next().unwrap_or_default();
        assert!(first.starts_with("error: "), "{args:?}: {stderr}");
        for what in *expected {
            assert!(first.contains(what), "{args:?}: `{what}` not in {first}");
        }
        let from_clap = stderr.contains("Usage:") || stderr.contains("--help");
        assert!(
            from_clap || stderr.lines().count() == 1,
            "{args:?}: more than one line:\n{stderr}"
        );
    }
    println!("bad input: {} cases, each a one-line error, no panic", cases.len());
}

/// Input with line breaks and terminal escapes, and a long one, is echoed escaped and cut: the
/// error is one line of printable text.
#[test]
fn input_with_line_breaks_escapes_or_great_length_is_echoed_on_one_short_line() {
    let long = format!("mcts:{}", "x".repeat(100_000));
    for args in [
        ["bestmove", "alpha\nbeta\u{1b}[2J", "--fen", FEN],
        ["bestmove", "alphabeta:2", "--fen", "B:W99\n\r:B1"],
        ["bestmove", &long, "--fen", FEN],
    ] {
        let (ok, _, err) = run_to_end(&args);
        assert!(!ok);
        assert_no_panic(&err);
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{err}");
        assert!(lines[0].starts_with("error: ") && lines[0].len() < 3000, "{}", &err[..200]);
        assert!(!lines[0].chars().any(char::is_control), "{err}");
    }
}
