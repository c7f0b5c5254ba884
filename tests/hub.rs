//! `checkers-zero hub` driven by pydraughts' own `HubEngine` (English variant), every move checked
//! by pydraughts' referee (`tests/hub/drive.py`, run with `CHECKERS_ZERO_PYTHON`): whole games
//! against random moves and between two engines, a mid-game position sent as moves with captures
//! and a multi-jump, `stop` in an infinite search, `go ponder` then `ponder-hit`, garbage input,
//! and the `level` setting for people.

use model::checkpoint::save;
use model::{Extras, NetConfig, PolicyValueNet};
use std::path::Path;
use std::process::Command;

/// Runs one check of the driver against `hub PLAYER_ARGS`; its report lines.
fn drive(check: &str, player_args: &[&str]) -> String {
    drive_with(check, player_args, &[])
}

/// [`drive`] with the environment variables `env` set for the driver and the engine.
fn drive_with(check: &str, player_args: &[&str], env: &[(&str, &str)]) -> String {
    let python = crate::helpers::python();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hub/drive.py");
    let out = Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_checkers-zero"))
        .arg(check)
        .args(player_args)
        .envs(env.iter().copied())
        .output()
        .expect("python runs");
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "hub check {check} {player_args:?} failed:\n{text}");
    println!("{text}");
    text
}

#[test]
fn alphabeta_behind_hub_beats_random_moves_with_either_colour() {
    let out = drive("random", &["--player", "alphabeta:4"]);
    assert_eq!(out.matches("random: engine as side").count(), 2, "{out}");
}

#[test]
fn a_bare_alphabeta_behind_hub_takes_its_time_from_the_level() {
    let out = drive("random", &["--player", "alphabeta"]);
    assert_eq!(out.matches("random: engine as side").count(), 2, "{out}");
}

#[test]
fn two_hub_engines_play_a_whole_game_under_clock_and_node_levels() {
    drive("engines", &["--player", "alphabeta:4"]);
}

#[test]
fn a_mid_game_position_with_captures_and_a_multi_jump_is_taken_as_moves() {
    drive("midgame", &["--player", "alphabeta:4"]);
}

#[test]
fn stop_ends_an_infinite_search_promptly_with_a_legal_move() {
    drive("stop", &["--player", "alphabeta:40"]);
    drive("stop", &["--player", "random"]);
}

#[test]
fn ponder_hit_starts_the_clock_of_a_ponder_search() {
    drive("ponder", &["--player", "alphabeta:4"]);
}

#[test]
fn garbage_gets_error_lines_and_the_engine_stays_up() {
    drive("garbage", &[]);
}

#[test]
fn net_players_behind_hub_play_whole_games() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("net.safetensors");
    let net = PolicyValueNet::new(&NetConfig::new(1, 8), tch::Device::Cpu).unwrap();
    save(&ckpt, &net, 0, None, &Extras::default()).unwrap();
    let ckpt = ckpt.to_str().unwrap();
    drive("random", &["--net", ckpt, "--playouts", "32"]);
    drive("stop", &["--net", ckpt]);
    drive("random", &["--player", &format!("policy:{ckpt}")]);
}

#[test]
fn a_sparse_net_behind_hub_plays_whole_games_without_the_net_library() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = crate::helpers::untrained_sparse_net(dir.path(), 0);
    let ckpt = ckpt.to_str().unwrap();
    // Were libtorch needed, the engine would fail to load this library and the games with it.
    let no_library = [("CHECKERS_ZERO_NET_LIBRARY", "/nonexistent/libcheckers_zero_torch.so")];
    drive_with("random", &["--net", ckpt, "--playouts", "64"], &no_library);
    drive_with("engines", &["--net", ckpt], &no_library);
}

/// pydraughts' `HubEngine` splits every `id` token at `=`: with a player such as
/// `alphabeta,net=CKPT` it could not start the engine. Every kind of player, with settings, a
/// level and the shipped net played when no player is named.
#[test]
fn pydraughts_starts_the_engine_with_every_kind_of_player() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = crate::helpers::untrained_sparse_net(dir.path(), 0);
    let ckpt = ckpt.to_str().unwrap();
    let no_library = [("CHECKERS_ZERO_NET_LIBRARY", "/nonexistent/libcheckers_zero_torch.so")];
    for player in [
        "random".to_string(),
        "alphabeta:2".to_string(),
        "alphabeta".to_string(),
        format!("alphabeta:0.1s,net={ckpt}"),
        format!("mcts:{ckpt}:16,c_puct=2,solver=false"),
        format!("policy:{ckpt}"),
        "level:3".to_string(),
    ] {
        let out = drive_with("id", &["--player", &player], &no_library);
        assert!(out.contains("id: \"checkers-zero "), "{out}");
    }
    let out = drive_with("id", &[], &no_library);
    assert!(out.contains("id: \"checkers-zero "), "{out}");
}

/// The `level` setting (docs/hub.md): pydraughts reads it from the engine's `param` line and
/// sets it; out of range is refused; a level plays its own playouts whatever the move time, and
/// level 0 is the shipped net at full strength again.
#[test]
fn pydraughts_sets_a_level_for_people_and_back() {
    let no_library = [("CHECKERS_ZERO_NET_LIBRARY", "/nonexistent/libcheckers_zero_torch.so")];
    let out = drive_with("levels", &[], &no_library);
    assert!(out.contains("levels: level 1 played "), "{out}");
}
