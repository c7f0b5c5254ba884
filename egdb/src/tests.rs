//! Tests over real tables: the 4-piece set is built once (seconds) into a temporary folder and
//! shared. They check the counts, that every value and distance is the best over the successors
//! (all positions up to 3 pieces, a random sample of 4), terminal positions, classic endings from
//! the literature, that won positions are won over the board by following the tables, and that
//! damaged files are refused.

use crate::file::{data_len, table_path, Kind};
use crate::index::Layout;
use crate::material::Material;
use crate::verify::{check_position, check_sample};
use crate::{build, positions_with_pieces, BuildEvent, EgdbError, Tables, Wdl};
use draughts::{Color, Position};
use std::path::Path;
use std::sync::OnceLock;
use support::SplitMix64;

/// The tables up to 4 pieces, built once for all tests.
fn tables() -> &'static (tempfile::TempDir, Tables) {
    static TABLES: OnceLock<(tempfile::TempDir, Tables)> = OnceLock::new();
    TABLES.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let start = std::time::Instant::now();
        let report = build(dir.path(), 4, |_| {}).expect("the 4-piece build");
        eprintln!("built up to 4 pieces in {:.2} s", start.elapsed().as_secs_f64());
        assert_eq!(report.slices_built, 4 + 10 + 20 + 35);
        let tables = Tables::open(dir.path()).expect("the tables just built");
        (dir, tables)
    })
}

fn fen(text: &str) -> Position {
    Position::from_fen(text).unwrap_or_else(|e| panic!("{e}"))
}

/// Board `i` of `m`'s slice as a position with Black to move.
fn position(m: Material, i: u64) -> Position {
    Layout::new(m).unrank(i).to_position()
}

#[test]
fn counts_match_the_index_and_the_built_files() {
    let (dir, t) = tables();
    assert_eq!(t.max_pieces(), 4);
    assert!(t.has_distances());
    for n in 1..=4 {
        let mut from_files = 0;
        for m in Material::with_pieces(n) {
            let wdl = std::fs::metadata(table_path(dir.path(), m, Kind::Wdl)).unwrap().len();
            let dist = std::fs::metadata(table_path(dir.path(), m, Kind::Distance)).unwrap().len();
            let positions = Layout::new(m).size();
            assert_eq!(wdl, 64 + positions.div_ceil(4), "{m}");
            assert!(dist == 64 + positions || dist == 64 + 2 * positions, "{m}");
            from_files += positions;
        }
        assert_eq!(from_files, positions_with_pieces(n));
    }
    let published = [120, 6_972, 261_224, 7_092_774, 148_688_232, 2_503_611_964u64];
    for (n, want) in (1..=6).zip(published) {
        assert_eq!(positions_with_pieces(n), want);
    }
}

#[test]
fn every_position_up_to_three_pieces_is_consistent() {
    let (_, t) = tables();
    let mut checked = 0;
    for n in 1..=3 {
        for m in Material::with_pieces(n) {
            for i in 0..Layout::new(m).size() {
                let pos = position(m, i);
                check_position(t, &pos).unwrap_or_else(|e| panic!("{e}"));
                // The same position with White to move, turned round, has the same value.
                let turned = pos.mirrored();
                assert_eq!(t.probe(&turned), t.probe(&pos));
                assert_eq!(t.distance(&turned), t.distance(&pos));
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 120 + 6_972 + 261_224);
}

#[test]
fn a_random_sample_of_four_pieces_is_consistent() {
    check_sample(&tables().1, 4, 200_000, 2024).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_slice_built_wrong_is_found_inconsistent_by_its_fen() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 3, |_| {}).unwrap();
    let good = Tables::open(dir.path()).unwrap();
    check_sample(&good, 3, 20_000, 5).unwrap();
    // Two kings against one, every entry rewritten as one value, its checksums made anew: the
    // files load, and the sample finds the positions whose successors say otherwise.
    let m = Material::new(0, 2, 0, 1);
    let n = Layout::new(m).size();
    let path = table_path(dir.path(), m, Kind::Wdl);
    crate::file::write_table(&path, Kind::Wdl, m, 2, n, &vec![0; data_len(n, 2) as usize]).unwrap();
    let wrong = Tables::open(dir.path()).unwrap();
    let err = check_sample(&wrong, 3, 20_000, 5).unwrap_err();
    assert!(Position::from_fen(&err.fen).is_ok(), "{err}");
    assert!(err.to_string().contains("its successors give"), "{err}");
}

#[test]
fn terminal_positions_are_lost_at_once() {
    let (_, t) = tables();
    // No piece (White to move after Black took the last one), and all pieces blocked.
    for text in ["W:W:B5", "W:W:BK18,K14,11", "B:W8,11:B4", "B:W8,11,K15:B4"] {
        let pos = fen(text);
        assert!(pos.legal_moves().is_empty(), "{text}");
        assert_eq!(t.probe(&pos), Some(Wdl::Loss), "{text}");
        assert_eq!(t.distance(&pos), Some(0), "{text}");
        assert_eq!(t.best_move(&pos).map(|p| p.best), Some(None), "{text}");
    }
    assert_eq!(t.probe(&fen("B:W:B")), Some(Wdl::Loss));
}

#[test]
fn positions_not_covered_answer_none() {
    let (_, t) = tables();
    // Five pieces, a man on its crowning row, the start position.
    assert_eq!(t.probe(&fen("B:W21,22,23:B1,2")), None);
    assert_eq!(t.probe(&fen("B:W21:B30")), None);
    assert_eq!(t.probe(&fen("B:W2:B12")), None);
    assert_eq!(t.probe(&Position::start()), None);
    assert_eq!(t.best_move(&Position::start()), None);
    assert_eq!(Tables::empty().probe(&fen("B:WK1:BK32")), None);
}

#[test]
fn kings_in_the_open() {
    let (_, t) = tables();
    // Two kings against one win, whoever moves; one king against one draws in the open.
    for text in ["B:WK22:BK7,K16", "W:WK22:BK7,K16", "W:WK14,K21:BK27"] {
        let pos = fen(text);
        let stronger =
            if pos.pieces(pos.side_to_move()).count() == 2 { Wdl::Win } else { Wdl::Loss };
        assert_eq!(t.probe(&pos), Some(stronger), "{text}");
    }
    for text in ["B:WK10:BK23", "W:WK10:BK23", "B:WK19:BK14", "B:WK14:BK27"] {
        assert_eq!(t.probe(&fen(text)), Some(Wdl::Draw), "{text}");
    }
}

/// Classic endings with published outcomes (all within 4 pieces).
///
/// - Edward Lasker, *Chess and Checkers: The Way to Mastership* (1918), the checkers part,
///   "Elementary tactics" and "The First Position"
///   (<https://bitlit.ru/chapter/en/edward-lasker/chess-and-checkers-the-way-to-mastership/elementary-tactics-25>,
///   <https://bitlit.ru/chapter/en/edward-lasker/chess-and-checkers-the-way-to-mastership/the-first-position-27>):
///   Diagram 88, king 32 against king 26: White to move wins by taking the opposition, Black to
///   move draws (26-31). Diagram 89, two kings on 19 and 23 against a king in the double corner
///   on 32: White wins. Diagram 93, the First Position, White kings 19 and 23 against Black's
///   king on 28 and man on 12: "White to Move and Win ... If Black has the move the ending is a
///   draw."
/// - American Checker Federation, Standard Positions, "Winning 1st Position"
///   (<http://www.acfcheckers.com/std2.html>): White king 15 and man 20 against Red's king 28
///   and man 12, White moves first (15-19, 20-16, ... crowns, then First Position): White wins.
/// - Bob Newell, Checker School, "Without" (<http://www.bobnewell.net/nucleus/checkers.php?itemid=1071>),
///   a "First Position without": `B:W22,K5:BK15,K6`, Black to play and win.
///
/// Second Position (Anderson) has six pieces or more, beyond what these tests build.
#[test]
fn classic_endings_have_their_published_outcomes() {
    let (_, t) = tables();
    let cases = [
        ("W:WK32:BK26", Wdl::Win),
        ("B:WK32:BK26", Wdl::Draw),
        ("W:WK19,K23:BK32", Wdl::Win),
        ("W:WK19,K23:BK28,12", Wdl::Win),
        ("B:WK19,K23:BK28,12", Wdl::Draw),
        ("W:WK15,20:BK28,12", Wdl::Win),
        ("B:W22,K5:BK15,K6", Wdl::Win),
    ];
    for (text, want) in cases {
        assert_eq!(t.probe(&fen(text)), Some(want), "{text}");
    }
}

/// Plays `pos` out with the tables' best move for both sides; the plies played and the loser.
fn play_out(t: &Tables, mut pos: Position) -> (u16, Color) {
    let mut plies = 0;
    loop {
        let probe = t.best_move(&pos).expect("covered");
        let Some(mv) = probe.best else {
            return (plies, pos.side_to_move());
        };
        pos = pos.play_unchecked(mv);
        plies += 1;
        assert!(plies < 1000, "no end in sight");
    }
}

#[test]
fn won_positions_are_won_over_the_board_in_their_distance() {
    let (_, t) = tables();
    for text in ["W:WK19,K23:BK28,12", "W:WK15,20:BK28,12", "B:W22,K5:BK15,K6", "W:WK32:BK26"] {
        let pos = fen(text);
        let probe = t.best_move(&pos).unwrap();
        assert_eq!(probe.wdl, Wdl::Win);
        let d = probe.distance.expect("distances are stored");
        assert_eq!(Some(d), t.distance(&pos));
        let (plies, loser) = play_out(t, pos);
        assert_eq!(plies, d, "{text}");
        assert_eq!(loser, pos.side_to_move().other(), "{text}");
    }
    let mut rng = SplitMix64::new(5);
    let m = Material::new(1, 1, 0, 2);
    let mut played = 0;
    while played < 300 {
        let pos = position(m, rng.below(Layout::new(m).size()));
        let probe = t.best_move(&pos).unwrap();
        if probe.wdl == Wdl::Draw {
            continue;
        }
        let (plies, loser) = play_out(t, pos);
        assert_eq!(Some(plies), probe.distance, "{}", pos.to_fen());
        let lost =
            if probe.wdl == Wdl::Win { pos.side_to_move().other() } else { pos.side_to_move() };
        assert_eq!(loser, lost);
        played += 1;
    }
}

#[test]
fn best_move_keeps_the_value() {
    let (_, t) = tables();
    let mut rng = SplitMix64::new(11);
    for _ in 0..20_000 {
        let m = Material::new(1, 1, 1, 1);
        let pos = position(m, rng.below(Layout::new(m).size()));
        let probe = t.best_move(&pos).unwrap();
        assert_eq!(Some(probe.wdl), t.probe(&pos));
        if let Some(mv) = probe.best {
            assert_eq!(t.probe(&pos.play(mv)).map(Wdl::flip), Some(probe.wdl), "{}", pos.to_fen());
        } else {
            assert!(pos.legal_moves().is_empty());
        }
    }
}

/// Copies every table of the 4-piece build into a new folder.
fn copy_tables(to: &Path) {
    let (dir, _) = tables();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let entry = entry.unwrap();
        if !entry.file_name().to_string_lossy().starts_with('.') {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

#[test]
fn damaged_or_foreign_tables_are_refused_by_name() {
    let m = Material::new(1, 1, 1, 0);
    type Spoil = fn(&mut Vec<u8>);
    let damage: [(&str, Spoil); 4] = [
        ("flipped byte", |b| b[200] ^= 0x10),
        ("truncated", |b| b.truncate(b.len() - 7)),
        ("foreign", |b| b[..8].copy_from_slice(b"\x89PNG\r\n\x1a\n")),
        ("other version", |b| b[8] = 77),
    ];
    for kind in [Kind::Wdl, Kind::Distance] {
        for (what, spoil) in damage {
            let dir = tempfile::tempdir().unwrap();
            copy_tables(dir.path());
            let path = table_path(dir.path(), m, kind);
            let mut bytes = std::fs::read(&path).unwrap();
            spoil(&mut bytes);
            std::fs::write(&path, &bytes).unwrap();
            let err = Tables::open(dir.path()).unwrap_err();
            assert!(err.to_string().contains(&path.display().to_string()), "{what}: {err}");
            let expected = match what {
                "flipped byte" => matches!(err, EgdbError::Checksum { .. }),
                "truncated" => matches!(err, EgdbError::Length { .. }),
                "foreign" => matches!(err, EgdbError::Foreign { .. }),
                _ => matches!(err, EgdbError::Version { found: 77, .. }),
            };
            assert!(expected, "{what}: {err:?}");
        }
    }
}

#[test]
fn absent_tables_are_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tables::open(&dir.path().join("nothing here")).unwrap();
    assert_eq!(t.max_pieces(), 0);
    copy_tables(dir.path());
    std::fs::remove_file(table_path(dir.path(), Material::new(2, 0, 1, 1), Kind::Wdl)).unwrap();
    let t = Tables::open(dir.path()).unwrap();
    assert_eq!(t.max_pieces(), 3);
    assert_eq!(t.probe(&fen("B:W21,K30:B1,2")), None);
    assert_eq!(
        t.probe(&fen("W:W21,K30:B1,2")),
        Some(tables().1.probe(&fen("W:W21,K30:B1,2")).unwrap())
    );
    std::fs::remove_file(table_path(dir.path(), Material::new(1, 0, 1, 1), Kind::Distance))
        .unwrap();
    let t = Tables::open(dir.path()).unwrap();
    assert!(!t.has_distances());
    assert!(t.probe(&fen("B:W21,K30:B1")).is_some());
    assert_eq!(t.distance(&fen("B:W21,K30:B1")), None);
}

#[test]
fn an_interrupted_build_reuses_finished_slices() {
    let dir = tempfile::tempdir().unwrap();
    let first = build(dir.path(), 3, |_| {}).unwrap();
    assert_eq!((first.slices_built, first.slices_reused), (34, 0));
    // No temporary file is left; one that a crashed build left behind is cleared away.
    let names = || -> Vec<String> {
        let entries = std::fs::read_dir(dir.path()).unwrap();
        entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
    };
    assert!(names().iter().all(|n| !n.ends_with(".tmp")));
    let stale = dir.path().join(".0m1k-0m1k.wdl.999999999-0.tmp");
    std::fs::write(&stale, b"half a table").unwrap();
    let again = build(dir.path(), 3, |_| {}).unwrap();
    assert_eq!((again.slices_built, again.slices_reused), (0, 34));
    assert!(!stale.exists());
    // One slice lost, one damaged: only their pairs are built again.
    std::fs::remove_file(table_path(dir.path(), Material::new(1, 1, 1, 0), Kind::Distance))
        .unwrap();
    let damaged = table_path(dir.path(), Material::new(0, 2, 0, 1), Kind::Wdl);
    let mut bytes = std::fs::read(&damaged).unwrap();
    bytes[64] ^= 1;
    std::fs::write(&damaged, bytes).unwrap();
    let mut events = Vec::new();
    let third = build(dir.path(), 3, |e| events.push(e.clone())).unwrap();
    assert_eq!((third.slices_built, third.slices_reused), (4, 30));
    assert!(events.iter().any(|e| matches!(e, BuildEvent::Rebuilding { reason, .. }
            if reason.contains(&damaged.display().to_string()))));
    let t = Tables::open(dir.path()).unwrap();
    assert_eq!(t.max_pieces(), 3);
    assert_eq!(t.probe(&fen("B:WK5:BK18,K27")), Some(Wdl::Win));
}

#[test]
fn a_build_refuses_bad_piece_counts() {
    let dir = tempfile::tempdir().unwrap();
    for n in [0, 7] {
        assert!(matches!(build(dir.path(), n, |_| {}), Err(EgdbError::Pieces { .. })));
    }
}

#[test]
fn sampled_positions_are_covered_playable_and_fixed_by_the_seed() {
    let (dir, t) = tables();
    let sample = t.sample_positions(11, 4000);
    assert_eq!(sample.len(), 4000);
    assert_eq!(sample, t.sample_positions(11, 4000), "the same seed draws the same set");
    assert_ne!(sample, t.sample_positions(12, 4000));
    let mut by_side = [0; 2];
    let mut four = 0;
    for (pos, wdl) in &sample {
        assert_eq!(t.probe(pos), Some(*wdl), "{}", pos.to_fen());
        assert!(!pos.is_lost(), "a position that is over: {}", pos.to_fen());
        let pieces = pos.occupied().count();
        assert!((1..=4).contains(&pieces), "{}", pos.to_fen());
        four += usize::from(pieces == 4);
        by_side[usize::from(pos.side_to_move() == Color::White)] += 1;
    }
    // Slices are drawn by size: 4-piece positions are about 96% of all up to 4.
    let share = four as f64 / sample.len() as f64;
    assert!((0.94..0.98).contains(&share), "share of 4 pieces {share}");
    assert!(by_side.iter().all(|&n| n > 1800), "both sides to move: {by_side:?}");
    // Fewer tables loaded: fewer pieces drawn.
    let three = Tables::open_up_to(dir.path(), 3).unwrap().sample_positions(11, 500);
    assert!(three.iter().all(|(pos, _)| pos.occupied().count() <= 3));
    assert!(Tables::empty().sample_positions(1, 10).is_empty());
}
