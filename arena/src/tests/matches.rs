//! Matches with real players: legality, ballots and colours, PDN, parallel order, illegal moves,
//! and gates that stop early.

use crate::entrant::{Entrant, NetOptions};
use crate::error::ArenaError;
use crate::fixture::schedule;
use crate::gate::{run_gate, DecidedBy, GateConfig};
use crate::openings::{standard_deck, Ballot};
use crate::play::{Ending, PlayedGame};
use crate::player::{Choice, Contestant, Player};
use crate::players::mcts::{MctsPlayer, Thinking};
use crate::players::policy::PolicyPlayer;
use crate::ratings::sprt::SprtConfig;
use crate::ratings::tally::Tally;
use crate::runner::{run_fixtures, MatchConfig};
use draughts::{read_pdn, DrawReason, DrawRules, Game, Move, Outcome, Position};
use search::{ScriptedEvaluator, UniformEvaluator};
use std::ops::ControlFlow;

fn entrant(text: &str) -> Entrant {
    Entrant::load(&text.parse().unwrap(), &NetOptions::default()).unwrap()
}

fn config(threads: usize) -> MatchConfig {
    MatchConfig { rules: DrawRules::default(), seed: 1, threads, tables: None, clock: None }
}

fn play(
    a: &dyn Contestant,
    b: &dyn Contestant,
    games: usize,
) -> Result<Vec<PlayedGame>, ArenaError> {
    run_fixtures(a, b, &schedule(&standard_deck().unwrap(), games, 9), config(2), |_| {
        ControlFlow::Continue(())
    })
}

/// Every move of `game` was legal where it was played.
fn all_legal(game: &Game) -> bool {
    let mut position = *game.start();
    game.moves().iter().all(|&mv| {
        let legal = position.legal_moves().contains(&mv);
        position = position.play(mv);
        legal
    })
}

#[test]
fn alphabeta_beats_random_with_legal_moves_only() {
    let (alphabeta, random) = (entrant("alphabeta:4"), entrant("random"));
    let games = play(&alphabeta, &random, 12).unwrap();
    assert_eq!(games.len(), 12);
    assert!(games
        .iter()
        .all(|g| all_legal(&g.game) && g.game.outcome().map(Ending::Rules) == Some(g.ending)));
    let mut tally = Tally::default();
    games.iter().for_each(|g| tally.add(g.score_of_a()));
    assert!(tally.score() >= 0.9, "{tally:?}");
}

#[test]
fn each_ballot_opens_two_games_with_colours_swapped_and_shows_in_the_pdn() {
    let (a, b) = (entrant("alphabeta:1"), entrant("random"));
    let games = play(&a, &b, 6).unwrap();
    for pair in games.chunks(2) {
        let ballot = &pair[0].fixture.ballot;
        assert_eq!(&pair[1].fixture.ballot, ballot);
        assert_eq!(
            (pair[0].black.name.as_str(), pair[0].white.name.as_str()),
            ("alphabeta:1", "random")
        );
        assert_eq!(
            (pair[1].black.name.as_str(), pair[1].white.name.as_str()),
            ("random", "alphabeta:1")
        );
        for game in pair {
            assert_eq!(game.game.start(), &Position::start());
            assert_eq!(&game.game.moves()[..3], ballot.moves.as_slice());
            let pdn = game.to_pdn("test").to_string();
            let [m1, m2, m3] = [0, 1, 2].map(|i| ballot.moves[i].to_string());
            assert!(pdn.contains(&format!("\n1. {m1} {m2} 2. {m3} ")), "{pdn}");
            assert!(pdn.contains(&format!("[Ballot \"{}\"]", ballot.name)), "{pdn}");
            assert!(pdn.contains(&format!("[BallotMoves \"{m1} {m2} {m3}\"]")), "{pdn}");
            let read = read_pdn(&pdn).unwrap();
            assert_eq!(read[0].moves, game.game.moves(), "the PDN reads back");
        }
    }
}

#[test]
fn games_arrive_in_schedule_order_and_a_stop_drops_the_rest() {
    let (a, b) = (entrant("alphabeta:2"), entrant("random"));
    let fixtures = schedule(&standard_deck().unwrap(), 16, 0);
    let mut order = Vec::new();
    let games = run_fixtures(&a, &b, &fixtures, config(4), |game| {
        order.push(game.fixture.index);
        if order.len() == 5 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .unwrap();
    assert_eq!(order, [0, 1, 2, 3, 4]);
    assert_eq!(games.len(), 5);
}

/// Plays the same move every time: legal from the start position only.
struct Stubborn(Move);

impl Player for Stubborn {
    fn choose(&mut self, _: &Game) -> Result<Choice, ArenaError> {
        Ok(Choice::bare(self.0))
    }
}

impl Contestant for Stubborn {
    fn name(&self) -> &str {
        "stubborn"
    }

    fn player(&self, _: u64) -> Result<Box<dyn Player>, ArenaError> {
        Ok(Box::new(Stubborn(self.0)))
    }
}

#[test]
fn an_illegal_move_is_rejected_naming_the_player_and_the_move() {
    let stubborn = Stubborn(Position::start().parse_move("11-15").unwrap());
    let ballot =
        Ballot { name: "x".into(), moves: vec![Position::start().parse_move("9-13").unwrap()] };
    let fixtures = schedule(&[ballot], 2, 0);
    let err = run_fixtures(&entrant("random"), &stubborn, &fixtures, config(1), |_| {
        ControlFlow::Continue(())
    })
    .unwrap_err();
    let ArenaError::IllegalMove { player, mv, ply, .. } = &err else { panic!("{err}") };
    assert_eq!((player.as_str(), mv.as_str(), *ply), ("stubborn", "11-15", 1));
    assert!(
        err.to_string()
            .starts_with("player stubborn played 11-15, which is not legal at ply 1 (position W:"),
        "{err}"
    );
}

#[test]
fn a_lopsided_gate_is_decided_early_by_the_sprt() {
    let (strong, weak) = (entrant("alphabeta:4"), entrant("random"));
    let config = GateConfig {
        games: 100,
        sprt: Some(SprtConfig::default()),
        threads: 2,
        ..GateConfig::default()
    };
    let promoted =
        run_gate(&strong, &weak, &standard_deck().unwrap(), DrawRules::default(), &config, None)
            .unwrap();
    assert!(
        promoted.record.promoted && promoted.record.decided_by == DecidedBy::Sprt,
        "{:?}",
        promoted.record
    );
    assert!(promoted.record.games < 30, "{:?}", promoted.record);
    assert_eq!(promoted.games.len() as u32, promoted.record.games);
    let rejected =
        run_gate(&weak, &strong, &standard_deck().unwrap(), DrawRules::default(), &config, None)
            .unwrap();
    assert!(
        !rejected.record.promoted && rejected.record.decided_by == DecidedBy::Sprt,
        "{:?}",
        rejected.record
    );
    assert!(rejected.record.games < 30);
    let json = serde_json::to_string(&rejected.record).unwrap();
    assert_eq!(serde_json::from_str::<crate::gate::GateRecord>(&json).unwrap(), rejected.record);
}

#[test]
fn the_mcts_player_searches_and_plays_whole_legal_moves() {
    let mut players: [Box<dyn Player>; 2] = [
        Box::new(MctsPlayer::new("mcts".into(), UniformEvaluator, Thinking::Playouts(64), 3)),
        Box::new(crate::players::random::RandomPlayer::new(4)),
    ];
    let mut game =
        Game::new(Position::start(), DrawRules { max_plies: 60, ..DrawRules::default() });
    while game.outcome().is_none() {
        let side = game.position().side_to_move().index();
        let choice = players[side].choose(&game).unwrap();
        if side == 0 {
            assert!(choice.value.is_some_and(|v| (-1.0..=1.0).contains(&v)));
            assert_eq!(choice.pv.first(), Some(&choice.mv));
        }
        game.play(choice.mv).unwrap();
    }
}

#[test]
fn a_kept_tree_is_dropped_when_the_game_plays_on_past_a_draw_rule() {
    // Two lone kings, one player for both sides, and each draw rule dropped as it is reached, as
    // the Hub engine does for a GUI that plays on: the tree kept from the previous move was
    // built under the rule and ends where the game now goes on.
    let mut player = MctsPlayer::new("mcts".into(), UniformEvaluator, Thinking::Playouts(200), 3);
    let mut game = Game::new(Position::from_fen("B:WK32:BK1").unwrap(), DrawRules::default());
    let mut dropped = Vec::new();
    while game.ply() < 120 {
        match game.outcome() {
            Some(Outcome::Draw(reason)) => {
                dropped.push(reason);
                game = game.under(game.rules().without(reason));
            }
            Some(outcome) => panic!("a lone king was caught: {outcome:?}"),
            None => {
                let choice = player.choose(&game).unwrap();
                game.play(choice.mv).unwrap();
            }
        }
    }
    assert!(dropped.contains(&DrawReason::Repetition), "never repeated: {dropped:?}");
}

/// Plays the choice's principal variation on in `game`: each move of it must be legal there.
fn assert_playable(game: &Game, choice: &Choice) {
    assert!(choice.pv.len() >= 2, "a line of the search: {choice:?}");
    let mut line = game.clone();
    for &mv in &choice.pv {
        assert!(line.play(mv).is_ok(), "{choice:?} is not a line of {}", game.position());
    }
}

#[test]
fn a_kept_tree_serves_only_the_game_it_was_grown_in() {
    // A GUI may set up another position, or take moves back and play others, with as many moves
    // as the engine's game has: the tree grown for the old game must not choose for the new one.
    let mut player = MctsPlayer::new("mcts".into(), UniformEvaluator, Thinking::Playouts(200), 3);
    let kings = Game::new(Position::from_fen("B:WK32:BK1").unwrap(), DrawRules::default());
    player.choose(&kings).unwrap();
    let mut other = Game::new(Position::start(), DrawRules::default());
    other.play(Position::start().parse_move("9-13").unwrap()).unwrap();
    assert_playable(&other, &player.choose(&other).unwrap());

    let own = player.choose(&kings).unwrap().mv;
    let mut taken_back = kings.clone();
    let instead = kings.position().legal_moves().into_iter().find(|&mv| mv != own).unwrap();
    taken_back.play(instead).unwrap();
    assert_playable(&taken_back, &player.choose(&taken_back).unwrap());
}

#[test]
fn the_policy_player_follows_the_priors() {
    let start = Position::start();
    let favourite = start.parse_move("10-14").unwrap().steps().next().unwrap();
    let evaluator =
        ScriptedEvaluator::new().with_step_weight(favourite, 50.0).with_value(start, 0.25);
    let choice = PolicyPlayer::new("policy".into(), evaluator)
        .choose(&Game::new(start, DrawRules::default()))
        .unwrap();
    assert_eq!(choice.mv.to_string(), "10-14");
    assert_eq!(choice.value, Some(0.25));
}
