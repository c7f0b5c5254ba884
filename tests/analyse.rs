//! `checkers-zero analyse`: a 100-game match annotated by the shipped net and read back by the
//! project's PDN reader and by pydraughts'; a blunder planted from the endgame tables (a move that
//! turns a won position into a lost one) flagged with a winning move; bad PDN refused by game and
//! move, or by its size when over the limit.

use crate::helpers::{arg, assert_no_panic, python, run_to_end, succeed};
use draughts::{read_pdn, Move, Position};
use egdb::{Tables, Wdl};
use std::path::Path;
use std::process::Command;

/// Each game's moves in PDN and its result, as the project's reader reads `pdn`.
fn moves_and_results(pdn: &Path) -> Vec<(Vec<String>, &'static str)> {
    let games = read_pdn(&std::fs::read_to_string(pdn).unwrap()).unwrap();
    games.iter().map(|g| (g.moves.iter().map(Move::to_string).collect(), g.result.pdn())).collect()
}

#[test]
fn a_hundred_games_annotated_read_back_in_both_readers() {
    let dir = tempfile::tempdir().unwrap();
    let (games, annotated) = (dir.path().join("games.pdn"), dir.path().join("annotated.pdn"));
    succeed(&[
        "match",
        "alphabeta:1",
        "random",
        "--games",
        "100",
        "--threads",
        "1",
        "--pdn",
        arg(&games),
    ]);
    let out = succeed(&["analyse", arg(&games), "--playouts", "4", "--out", arg(&annotated)]);
    assert!(out.contains("game 100/100: Black "), "{out}");
    let original = moves_and_results(&games);
    assert_eq!(original.len(), 100);
    assert_eq!(moves_and_results(&annotated), original);
    let text = std::fs::read_to_string(&annotated).unwrap();
    let plies: usize = original.iter().map(|(moves, _)| moves.len()).sum();
    // A comment on every move and a summary before each game's first.
    assert_eq!(text.matches('{').count(), plies + 100, "{text}");
    assert_eq!(text.matches("[Annotator \"checkers-zero analyse mcts:default:4\"]").count(), 100);
    assert!(text.contains("mistake") || text.contains("blunder"), "random never erred?\n{text}");

    let script = "import json, sys\nfrom draughts.PDN import PDNReader\n\
                  games = PDNReader(filename=sys.argv[1]).games\n\
                  print(json.dumps([[g.moves, g.game_ending, g.variant] for g in games]))";
    let read = Command::new(python()).args(["-c", script, arg(&annotated)]).output().unwrap();
    assert!(read.status.success(), "{}", String::from_utf8_lossy(&read.stderr));
    let pydraughts: Vec<(Vec<String>, String, String)> =
        serde_json::from_slice(&read.stdout).unwrap();
    assert_eq!(pydraughts.len(), 100);
    for (index, ((moves, result, variant), (ours, our_result))) in
        pydraughts.iter().zip(&original).enumerate()
    {
        assert_eq!(
            (moves, result.as_str(), variant.as_str()),
            (ours, *our_result, "english"),
            "game {}",
            index + 1
        );
    }
}

/// A position with Black to move that the tables call won, and a move that turns it into a loss
/// (a win for White to move): Black's king and man against White's king and man.
fn won_position_and_losing_move(tables: &Tables) -> (Position, Move) {
    for black_king in 1..=32 {
        for black_man in 1..=28 {
            for white_king in 1..=32 {
                for white_man in 5..=32 {
                    let squares = [black_king, black_man, white_king, white_man];
                    if (1..4).any(|i| squares[..i].contains(&squares[i])) {
                        continue;
                    }
                    let fen = format!("B:WK{white_king},{white_man}:BK{black_king},{black_man}");
                    let Ok(position) = Position::from_fen(&fen) else { continue };
                    if tables.probe(&position) != Some(Wdl::Win) {
                        continue;
                    }
                    let losing = position
                        .legal_moves()
                        .into_iter()
                        .find(|&mv| tables.probe(&position.play_unchecked(mv)) == Some(Wdl::Win));
                    if let Some(mv) = losing {
                        return (position, mv);
                    }
                }
            }
        }
    }
    panic!("no won position with a losing move");
}

#[test]
fn a_planted_blunder_is_flagged_with_a_winning_move() {
    let dir = tempfile::tempdir().unwrap();
    let egdb = dir.path().join("egdb");
    succeed(&["egdb", "build", "--pieces", "4", "--dir", arg(&egdb)]);
    let tables = Tables::open(&egdb).unwrap();
    let (position, blunder) = won_position_and_losing_move(&tables);
    let pdn = dir.path().join("blunder.pdn");
    let text = format!("[FEN \"{}\"]\n\n1. {blunder} *\n", position.to_fen());
    std::fs::write(&pdn, text).unwrap();
    let out = dir.path().join("annotated.pdn");
    let args = ["analyse", arg(&pdn), "--egdb", arg(&egdb), "--playouts", "16", "--out", arg(&out)];
    let stderr = succeed(&args);
    assert!(stderr.contains("game 1/1: Black 0 mistakes, 1 blunder; White 0 mistakes, 0 blunders"));
    let annotated = std::fs::read_to_string(&out).unwrap();
    let words = annotated.split_whitespace().collect::<Vec<_>>().join(" ");
    let flagged = format!(
        "{blunder} {{+1.00 (W 100% D 0% L 0%) -> -1.00 (W 0% D 0% L 100%); blunder (2.00): best "
    );
    let at = words.find(&flagged).unwrap_or_else(|| panic!("{flagged}\n{annotated}"));
    let best = words[at + flagged.len()..].split(' ').next().unwrap();
    let best = position.parse_move(best).unwrap();
    assert_eq!(tables.probe(&position.play_unchecked(best)), Some(Wdl::Loss), "{annotated}");
}

#[test]
fn bad_pdn_is_refused_naming_the_game_and_move() {
    let dir = tempfile::tempdir().unwrap();
    let pdn = dir.path().join("bad.pdn");
    std::fs::write(&pdn, "1. 11-15 23-19 *\n\n1. 11-15 23-19 2. 8-11 23-18 *\n").unwrap();
    let (ok, out, err) = run_to_end(&["analyse", arg(&pdn), "--playouts", "1"]);
    assert!(!ok, "{out}{err}");
    assert_no_panic(&err);
    assert!(
        err.contains("bad.pdn") && err.contains("PDN game 2") && err.contains("move 2"),
        "{err}"
    );
    std::fs::write(&pdn, "").unwrap();
    let (ok, _, err) = run_to_end(&["analyse", arg(&pdn)]);
    assert!(!ok && err.contains("no games"), "{err}");
    // A file over the limit is refused by its size, before it is read.
    std::fs::File::create(&pdn).unwrap().set_len((16 << 20) + 1).unwrap();
    let (ok, _, err) = run_to_end(&["analyse", arg(&pdn)]);
    assert!(!ok, "{err}");
    assert!(
        err.contains("bad.pdn: 16777217 bytes is more than the 16777216-byte limit of a PDN file (raise it with CHECKERS_ZERO_MAX_FILE_MB=MIB)"),
        "{err}"
    );
}
