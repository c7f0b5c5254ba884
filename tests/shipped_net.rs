//! The shipped net (`nets/default.safetensors`, built into the binary): the player of `bestmove`,
//! `play` and `hub` when none is named, written to the cache folder with its SHA-256 checked (a
//! damaged copy written again), loaded natively (no net library), and playing legal games; its
//! levels (`level:N`) as players.

use crate::helpers::{arg, checkers_zero, output_with_input};
use draughts::{read_pdn, GameResult};
use std::path::Path;
use std::process::Output;

/// The net library's path in the tests: none there, so a command that needed it would fail.
const NO_NET_LIBRARY: &str = "/nonexistent/libcheckers_zero_torch.so";

/// Runs `checkers-zero ARGS` with `cache` as its cache folder, no net library, and `input` on its
/// standard input.
fn run_without_net_library(cache: &Path, args: &[&str], input: &str) -> Output {
    output_with_input(
        checkers_zero()
            .args(args)
            .env("CHECKERS_ZERO_CACHE", cache)
            .env("CHECKERS_ZERO_NET_LIBRARY", NO_NET_LIBRARY),
        input,
    )
}

/// Standard output of a run that must succeed.
fn succeed(cache: &Path, args: &[&str], input: &str) -> String {
    let out = run_without_net_library(cache, args, input);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_default_player_is_the_shipped_net_natively_and_it_plays_legal_games() {
    let cache = tempfile::tempdir().unwrap();
    let start = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";
    let out = succeed(cache.path(), &["bestmove", "--fen", start, "--playouts", "32"], "");
    assert!(out.starts_with("move ") && out.contains("\nvalue ") && out.contains("\npv "));
    let shipped = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/nets/default.safetensors"));
    let sha256 = include_str!("../nets/default.safetensors.sha256");
    let copy = cache.path().join(format!("nets/{}/default.safetensors", &sha256[..16]));
    assert_eq!(std::fs::read(&copy).unwrap(), shipped.unwrap());

    // A damaged copy is written again.
    std::fs::write(&copy, b"not a net").unwrap();
    let out = succeed(cache.path(), &["play", "--playouts", "8"], "quit\n");
    assert!(out.contains("You play Black against mcts:default:8."), "{out}");
    assert!(std::fs::read(&copy).unwrap().len() > 100_000);
    let out = succeed(cache.path(), &["hub", "--playouts", "8"], "hub\nquit\n");
    let id = out.lines().find(|line| line.starts_with("id name=")).expect(&out);
    assert!(id.contains("mcts") && id.contains("default"), "{out}");

    let pdn = cache.path().join("games.pdn");
    let player = format!("mcts:{}:16", arg(&copy));
    let args = ["match", &player, "random", "--games", "4", "--threads", "1", "--pdn", arg(&pdn)];
    succeed(cache.path(), &args, "");
    // The reader checks every move.
    let games = read_pdn(&std::fs::read_to_string(&pdn).unwrap()).unwrap();
    assert_eq!(games.len(), 4);
    let net_wins = games
        .iter()
        .filter(|g| {
            let net_is_black = g.tag("Black").is_some_and(|name| name.starts_with("mcts:"));
            g.result == if net_is_black { GameResult::BlackWins } else { GameResult::WhiteWins }
        })
        .count();
    assert!(net_wins >= 3, "the shipped net won {net_wins} of 4 against random");
}

#[test]
fn levels_play_natively_wherever_a_player_is_named() {
    let cache = tempfile::tempdir().unwrap();
    let args =
        ["match", "level:1", "level:8", "--games", "2", "--threads", "1", "--pdn", "/dev/null"];
    let out = succeed(cache.path(), &args, "");
    assert!(out.contains("mcts:default:8,move_temperature=4,policy_temperature=10"), "{out}");
    assert!(out.contains("mcts:default:400,policy_temperature=1.6"), "{out}");
    let out = succeed(cache.path(), &["play", "--opponent", "level:3"], "quit\n");
    assert!(
        out.contains(
            "You play Black against mcts:default:8,move_temperature=2,policy_temperature=1.6."
        ),
        "{out}"
    );
    let out = run_without_net_library(cache.path(), &["play", "--opponent", "level:9"], "");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("from 1 to 8"));
}

#[test]
fn the_board_page_may_start_the_levels() {
    let server = crate::serve::start(&["--player", "alphabeta:1"]);
    let new_game = |player: &str| {
        let body = format!(r#"{{"player": "{player}", "human": "white"}}"#);
        crate::helpers::http(&server.address, "POST", "/api/games", Some(&body))
    };
    let (status, body) = new_game("level:2");
    let game = crate::serve::json_of(status, &body, 201);
    let id = game["id"].as_str().unwrap();
    let (status, stream) =
        crate::helpers::http(&server.address, "GET", &format!("/api/games/{id}/think"), None);
    assert_eq!(status, 200, "{stream}");
    assert!(stream.contains("event: state"), "{stream}");
    let (status, body) = new_game("level:9");
    assert!((400..500).contains(&status) && body.contains("from 1 to 8"), "{status} {body}");
}
