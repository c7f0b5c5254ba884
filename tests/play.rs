//! `checkers-zero play` as a person meets it: the binary reading moves from its standard input.

use crate::helpers::{checkers_zero, output_with_input};
use model::checkpoint::save;
use model::{Extras, NetConfig, PolicyValueNet};

/// Runs `checkers-zero play ARGS` with `input` on its standard input; success and what it printed.
fn play(args: &[&str], input: &str) -> (bool, String) {
    let out = output_with_input(checkers_zero().arg("play").args(args), input);
    (
        out.status.success(),
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
    )
}

#[test]
fn a_scripted_game_is_won_through_standard_input() {
    let (ok, out) = play(&["--opponent", "random", "--fen", "B:W21:B9"], "9-22\n9-14\n14x21\n");
    assert!(ok, "{out}");
    assert!(out.contains("\"9-22\" is not a legal move here"), "{out}");
    assert!(out.contains("White (random) plays 21-17"), "{out}");
    assert!(out.contains("Black wins: White has no pieces left. Game over, you win."), "{out}");
}

#[test]
fn a_net_opens_as_black_with_its_value_and_variation() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("net.safetensors");
    tch::manual_seed(3);
    let net = PolicyValueNet::new(&NetConfig::new(1, 8), tch::Device::Cpu).unwrap();
    save(&ckpt, &net, 0, None, &Extras::default()).unwrap();
    let (ok, out) =
        play(&["--net", ckpt.to_str().unwrap(), "--playouts", "16", "--color", "white"], "fen\n");
    assert!(ok, "{out}");
    assert!(out.contains("You play White against mcts:net:16."), "{out}");
    let line = out.lines().find(|l| l.starts_with("Black (mcts:net:16) plays ")).expect(&out);
    assert!(line.contains(" value ") && line.contains(" pv "), "{line}");
    assert!(out.contains("End of input: game left unfinished."), "{out}");
}

#[test]
fn a_missing_net_is_an_error_not_a_game() {
    let (ok, out) = play(&["--net", "no/such/net.safetensors"], "");
    assert!(!ok, "{out}");
    assert!(
        out.contains("no checkpoint file or run directory at no/such/net.safetensors"),
        "{out}"
    );
}
