//! Games adjudicated by the endgame tables: at the first position they cover, after the rules.

use crate::entrant::{Entrant, NetOptions};
use crate::fixture::Fixture;
use crate::openings::Ballot;
use crate::play::{finish, Ending, PlayedGame, Side};
use crate::player::{Contestant, Player};
use crate::players::mcts::{MctsPlayer, Thinking};
use crate::record::ResultRecord;
use draughts::{Color, DrawRules, Game, GameResult, Outcome, Position, WinReason};
use egdb::{Tables, Wdl};
use search::UniformEvaluator;
use std::sync::{Arc, OnceLock};

/// Tables for up to 3 pieces, built once into a folder kept for the whole test run.
fn tables() -> &'static Arc<Tables> {
    static TABLES: OnceLock<(tempfile::TempDir, Arc<Tables>)> = OnceLock::new();
    &TABLES
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            egdb::build(dir.path(), 3, |_| {}).unwrap();
            let tables = Tables::open(dir.path()).unwrap();
            (dir, Arc::new(tables))
        })
        .1
}

/// Random players finish the game from `fen`, adjudicated by the tables.
fn finished(fen: &str) -> (Game, Ending) {
    let random = Entrant::load(&"random".parse().unwrap(), &NetOptions::default()).unwrap();
    let mut players: [Box<dyn Player>; 2] = [random.player(1).unwrap(), random.player(2).unwrap()];
    let mut game = Game::new(Position::from_fen(fen).unwrap(), DrawRules::default());
    let ending =
        finish(&mut game, &mut players, ["random", "random"], Some(tables().as_ref()), None)
            .unwrap();
    (game, ending)
}

#[test]
fn a_table_position_is_adjudicated_before_any_move() {
    // Two kings against one: Black wins.
    let (game, ending) = finished("B:WK32:BK14,K15");
    assert_eq!(game.ply(), 0);
    assert_eq!(ending, Ending::Tables { winner: Some(Color::Black) });
    assert_eq!(ending.result(), GameResult::BlackWins);
    assert_eq!(ending.score_for(Color::White), -1);
    // King against king: a draw.
    assert_eq!(finished("B:WK32:BK10").1, Ending::Tables { winner: None });
}

#[test]
fn a_game_is_adjudicated_when_it_reaches_the_tables() {
    // Four pieces: Black must take 14x23, and the three left are in the tables.
    let (game, ending) = finished("B:W18,K32:B14,K1");
    assert_eq!(game.ply(), 1);
    let Ending::Tables { winner } = ending else { panic!("{ending:?}") };
    let after = *game.position();
    let wdl = tables().probe(&after).unwrap();
    let expected = match wdl {
        Wdl::Win => Some(after.side_to_move()),
        Wdl::Loss => Some(after.side_to_move().other()),
        Wdl::Draw => None,
    };
    assert_eq!(winner, expected);

    let played = PlayedGame {
        fixture: Fixture {
            index: 0,
            ballot: Ballot { name: "endgame".into(), moves: Vec::new() },
            a_is_black: true,
        },
        black: Side { name: "random".into(), step: None },
        white: Side { name: "random".into(), step: None },
        game,
        ending,
    };
    let pdn = played.to_pdn("test").to_string();
    assert!(pdn.contains("[Termination \"endgame_tables\"]"), "{pdn}");
    let result = ending.result().pdn();
    assert!(pdn.contains(&format!("[Result \"{result}\"]")), "{pdn}");
    assert!(pdn.trim_end().ends_with(result), "{pdn}");
    let record = ResultRecord::of(&played);
    assert_eq!((record.ending.as_str(), record.result), ("endgame_tables", ending.result()));
}

#[test]
fn the_rules_come_before_the_tables() {
    // Black's man on 5 is blocked by White's men on 9 and 14: lost by the rules.
    let (game, ending) = finished("B:W9,14:B5");
    assert_eq!(game.ply(), 0);
    let rules = Outcome::Win { winner: Color::White, reason: WinReason::NoMoves };
    assert_eq!(ending, Ending::Rules(rules));
}

#[test]
fn an_mcts_player_with_the_tables_keeps_a_table_win() {
    let game = Game::new(Position::from_fen("B:WK32:BK14,K15").unwrap(), DrawRules::default());
    let mut player =
        MctsPlayer::new("uniform".into(), UniformEvaluator, Thinking::Playouts(100), 1)
            .with_tables(Some(Arc::clone(tables())));
    let choice = player.choose(&game).unwrap();
    assert!(choice.value.unwrap() > 0.9, "{choice:?}");
    let after = game.position().play(choice.mv);
    assert_eq!(tables().probe(&after), Some(Wdl::Loss));
}

#[test]
fn an_mcts_player_with_the_tables_wins_a_won_ending_over_the_board() {
    // Two kings against one, with the game's draw rules: shuffling would draw by repetition or
    // the no-progress rule; the tables' quickest moves win.
    let mut game = Game::new(Position::from_fen("B:WK32:BK14,K15").unwrap(), DrawRules::default());
    let mut winner = MctsPlayer::new("uniform".into(), UniformEvaluator, Thinking::Playouts(50), 1)
        .with_tables(Some(Arc::clone(tables())));
    let mut defender = crate::AlphaBetaPlayer::new(search::alphabeta::Limit::Depth(6));
    let plies = tables().distance(game.position()).unwrap() as usize;
    while game.outcome().is_none() {
        let choice = match game.position().side_to_move() {
            Color::Black => winner.choose(&game).unwrap(),
            Color::White => defender.choose(&game).unwrap(),
        };
        game.play(choice.mv).unwrap();
    }
    assert_eq!(game.outcome().unwrap().score_for(Color::Black), 1, "{:?}", game.outcome());
    assert!(game.ply() <= plies, "won in {} plies, the tables say {plies}", game.ply());
}

#[test]
fn a_gate_with_tables_ends_its_games_at_the_first_table_position() {
    let random = Entrant::load(&"random".parse().unwrap(), &NetOptions::default()).unwrap();
    let config = crate::GateConfig { games: 12, threads: 1, ..crate::GateConfig::default() };
    let deck = crate::standard_deck().unwrap();
    let report = crate::run_gate(
        &random,
        &random,
        &deck,
        DrawRules::default(),
        &config,
        Some(Arc::clone(tables())),
    )
    .unwrap();
    let adjudicated =
        report.games.iter().filter(|g| matches!(g.ending, Ending::Tables { .. })).count();
    assert!(adjudicated > 0, "none of {} random games reached three pieces", report.games.len());
    for game in report.games.iter().filter(|g| matches!(g.ending, Ending::Tables { .. })) {
        assert!(game.game.position().occupied().count() <= 3);
    }
}
