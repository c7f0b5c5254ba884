//! The alpha-beta engine: forced wins, legality, determinism, and deeper beating shallower; with
//! an evaluator at the leaves: tactics kept, the evaluator's preferences followed, the observations
//! it is shown, and its failures reported.

use super::{score_of_value, AlphaBeta, AlphaBetaConfig, BestMove, Limit, SearchFeatures, WIN};
use crate::error::SearchError;
use crate::evaluator::{EvalError, EvalRequest, Evaluation, Evaluator};
use crate::test_positions::{position, two_for_one_shot};
use crate::{ScriptedEvaluator, UniformEvaluator};
use draughts::{Color, DrawRules, Game, Observation, Outcome, Position};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::Duration;

fn engine() -> AlphaBeta {
    AlphaBeta::new(&AlphaBetaConfig { tt_bits: 14, ..AlphaBetaConfig::default() })
}

#[test]
fn finds_the_two_for_one_shot() {
    let best = engine().best_move_in(&two_for_one_shot(), Limit::Depth(6)).unwrap();
    assert_eq!(best.mv.to_string(), "9-14");
    assert_eq!(best.score, WIN - 3, "a win in three plies");
    let pv: Vec<String> = best.pv.iter().map(ToString::to_string).collect();
    assert_eq!(pv, ["9-14", "17x10", "6x15x24"]);
}

#[test]
fn takes_the_jump_path_that_takes_most() {
    // The king on 1 jumps 6 and then either 14 (1x10x17) or 15 and 23 (1x10x19x26).
    let pos = position(&[1], &[6, 14, 15, 23], &[1], Color::Black);
    let best = engine().best_move_in(&pos, Limit::Depth(4)).unwrap();
    assert_eq!(best.mv.to_string(), "1x10x19x26");
    assert!(best.score > 0);
}

#[test]
fn same_depth_same_answer() {
    let mut rng = StdRng::seed_from_u64(17);
    let game = random_game(&mut rng, 12);
    let mut a = engine();
    let first = a.best_move(&game, Limit::Depth(5)).unwrap();
    let _ = a.best_move(&random_game(&mut rng, 20), Limit::Depth(5));
    assert_eq!(a.best_move(&game, Limit::Depth(5)).unwrap(), first);
    assert_eq!(engine().best_move(&game, Limit::Depth(5)).unwrap(), first);
}

#[test]
fn never_plays_an_illegal_move() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut ab = engine();
    for _ in 0..150 {
        let plies = rng.random_range(0..60);
        let game = random_game(&mut rng, plies);
        let legal = game.position().legal_moves();
        match ab.best_move(&game, Limit::Depth(3)) {
            Some(best) => {
                assert!(legal.contains(&best.mv), "{} in\n{}", best.mv, game.position());
                let mut line = game.clone();
                for &mv in &best.pv {
                    line.play(mv).expect("the principal variation is legal");
                }
            }
            None => assert!(legal.is_empty()),
        }
    }
}

#[test]
fn a_time_limit_returns_a_legal_move() {
    let game = Game::new(Position::start(), DrawRules::default());
    let best = engine().best_move(&game, Limit::Time(Duration::from_millis(30))).unwrap();
    assert!(game.position().legal_moves().contains(&best.mv));
    assert!(best.depth >= 1);
}

#[test]
fn under_a_clock_the_answer_decides_when_to_stop_and_the_most_is_never_passed() {
    let game = Game::new(Position::start(), DrawRules::default());
    let clocked = |time_management: bool, target: u64, most: u64| {
        let features = SearchFeatures { time_management, ..SearchFeatures::full() };
        let mut engine = AlphaBeta::new(&AlphaBetaConfig { tt_bits: 14, features });
        let (target, most) = (Duration::from_millis(target), Duration::from_millis(most));
        let started = std::time::Instant::now();
        let best = engine.best_move(&game, Limit::Clock { target, most }).unwrap();
        assert!(game.position().legal_moves().contains(&best.mv));
        started.elapsed()
    };
    // Managed (off in both engines: measured as no gain): the iterations stop long before the
    // most (60 ms a move, 30 s at most), and the
    // most cuts an iteration short (a target of 10 s, 100 ms at most).
    assert!(clocked(true, 60, 30_000) < Duration::from_secs(10));
    assert!(clocked(true, 10_000, 100) < Duration::from_secs(5));
    // Unmanaged: the target is a fixed time a move.
    assert!(clocked(false, 100, 30_000) < Duration::from_secs(5));
}

#[test]
fn helper_threads_search_beside_the_main_one_and_its_answer_is_legal() {
    let config = AlphaBetaConfig {
        tt_bits: 16,
        features: SearchFeatures { threads: 2, ..SearchFeatures::full() },
    };
    let mut engine = AlphaBeta::new(&config);
    let mut rng = StdRng::seed_from_u64(5);
    for _ in 0..10 {
        let game = random_game(&mut rng, 20);
        let mut main_nodes = 0;
        let control = None;
        let Some(best) = engine
            .best_move_controlled(&game, Limit::Depth(8), control, &mut |b| main_nodes = b.nodes)
        else {
            continue;
        };
        assert!(game.position().legal_moves().contains(&best.mv));
        if best.depth == 8 {
            assert!(best.nodes > main_nodes, "the helper's nodes are counted: {best:?}");
        }
    }
}

/// A search with the pruning `pruned` asks for finds the two-for-one shot and searches fewer
/// nodes than the full engine without pruning over random games, each answer legal.
fn assert_pruning_cuts_nodes_and_keeps_the_shot(pruned: SearchFeatures) {
    let engine = |features| AlphaBeta::new(&AlphaBetaConfig { tt_bits: 16, features });
    let unpruned = SearchFeatures { futility: 0, verified_pruning: 0, ..SearchFeatures::full() };
    let (mut pruned, mut full) = (engine(pruned), engine(unpruned));
    let best = pruned.best_move_in(&two_for_one_shot(), Limit::Depth(6)).unwrap();
    assert_eq!((best.mv.to_string(), best.score), ("9-14".to_string(), WIN - 3));
    let mut rng = StdRng::seed_from_u64(31);
    let (mut pruned_nodes, mut full_nodes) = (0, 0);
    for _ in 0..12 {
        let game = random_game(&mut rng, 16);
        let (Some(a), Some(b)) =
            (pruned.best_move(&game, Limit::Depth(8)), full.best_move(&game, Limit::Depth(8)))
        else {
            continue;
        };
        assert!(game.position().legal_moves().contains(&a.mv));
        (pruned_nodes, full_nodes) = (pruned_nodes + a.nodes, full_nodes + b.nodes);
    }
    assert!(pruned_nodes < full_nodes, "{pruned_nodes} nodes pruned, {full_nodes} not");
}

#[test]
fn static_null_move_pruning_cuts_nodes_and_keeps_the_shot() {
    assert_pruning_cuts_nodes_and_keeps_the_shot(SearchFeatures {
        futility: 20,
        verified_pruning: 0,
        ..SearchFeatures::full()
    });
}

#[test]
fn verified_pruning_cuts_nodes_and_keeps_the_shot() {
    assert_pruning_cuts_nodes_and_keeps_the_shot(SearchFeatures::full());
}

#[test]
fn deeper_search_beats_shallower() {
    let mut rng = StdRng::seed_from_u64(23);
    let (mut deep_points, mut games) = (0.0, 0);
    for _ in 0..4 {
        let opening = random_game(&mut rng, 4);
        for deep_side in [Color::Black, Color::White] {
            let outcome = play_out(opening.clone(), deep_side, 4, 1);
            deep_points += (outcome.score_for(deep_side) as f64 + 1.0) / 2.0;
            games += 1;
        }
    }
    assert!(
        deep_points / games as f64 > 0.6,
        "depth 4 scored {deep_points} of {games} against depth 1"
    );
}

/// Plays `game` to its end: `deep_side` searches `deep` plies, the other `shallow`.
fn play_out(mut game: Game, deep_side: Color, deep: u32, shallow: u32) -> Outcome {
    let mut engines = [engine(), engine()];
    loop {
        if let Some(outcome) = game.outcome() {
            return outcome;
        }
        let side = game.position().side_to_move();
        let depth = if side == deep_side { deep } else { shallow };
        let best = engines[side.index()].best_move(&game, Limit::Depth(depth)).unwrap();
        game.play(best.mv).unwrap();
    }
}

/// A game of `plies` random moves from the start (fewer if it ends), with a short ply cap.
fn random_game(rng: &mut StdRng, plies: usize) -> Game {
    let mut game =
        Game::new(Position::start(), DrawRules { max_plies: 160, ..DrawRules::default() });
    for _ in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let moves = game.position().legal_moves();
        game.play(moves[rng.random_range(0..moves.len())]).unwrap();
    }
    game
}

/// An evaluator that answers each batch with its closure.
struct Answers<F>(F);

impl<F: FnMut(&[EvalRequest]) -> Result<Vec<Evaluation>, EvalError>> Evaluator for Answers<F> {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        (self.0)(requests)
    }
}

/// `engine()`'s answer with `evaluator` scoring the leaves.
fn evaluated(
    game: &Game,
    limit: Limit,
    evaluator: &mut impl Evaluator,
) -> Result<Option<BestMove>, SearchError> {
    engine().best_move_evaluated(game, limit, None, &mut |_| {}, evaluator)
}

fn start_of(position: Position) -> Game {
    Game::new(position, DrawRules::default())
}

#[test]
fn a_net_valuing_everything_at_zero_still_finds_the_shot() {
    let mut net = ScriptedEvaluator::new();
    let best =
        evaluated(&start_of(two_for_one_shot()), Limit::Depth(6), &mut net).unwrap().unwrap();
    assert_eq!(best.mv.to_string(), "9-14");
    assert_eq!(best.score, WIN - 3, "a win in three plies, found by search alone");
    assert!(net.requests > 0, "the other moves' leaves were asked about");
}

#[test]
fn the_net_value_steers_the_move_at_depth_one_and_two() {
    // Two kings a side on the far back ranks: no capture within two plies, so the positions one
    // and two plies on are the leaves of the depth-1 and depth-2 searches.
    let game = start_of(position(&[1, 3], &[30, 32], &[1, 3, 30, 32], Color::Black));
    let start = *game.position();
    let usual = engine().best_move(&game, Limit::Depth(2)).unwrap().mv;
    let favourite = *start.legal_moves().iter().rev().find(|&&mv| mv != usual).unwrap();
    let after = start.play_unchecked(favourite);

    // Depth 1: the position after the favourite is bad for White, who moves there.
    let mut net = ScriptedEvaluator::new().with_value(after, -0.9);
    let best = evaluated(&game, Limit::Depth(1), &mut net).unwrap().unwrap();
    assert_eq!((best.mv, best.score), (favourite, score_of_value(0.9)));

    // Depth 2: every reply to the favourite leaves Black well placed.
    let mut net = after.legal_moves().iter().fold(ScriptedEvaluator::new(), |net, &reply| {
        net.with_value(after.play_unchecked(reply), 0.8)
    });
    let best = evaluated(&game, Limit::Depth(2), &mut net).unwrap().unwrap();
    assert_eq!((best.mv, best.score), (favourite, score_of_value(0.8)));
}

/// A king each, far apart, after both kings went out and back: the position of the game's start,
/// four king moves later.
fn kings_back_home() -> Game {
    let mut game = Game::new(position(&[1], &[32], &[1, 32], Color::Black), DrawRules::default());
    let mut out = Vec::new();
    for _ in 0..2 {
        let mv = game.position().legal_moves()[0];
        out.push(mv);
        game.play(mv).unwrap();
    }
    for gone in out {
        let back = game
            .position()
            .legal_moves()
            .iter()
            .copied()
            .find(|mv| (mv.from(), mv.to()) == (gone.to(), gone.from()));
        game.play(back.expect("a king can step back")).unwrap();
    }
    assert_eq!(game.position(), game.start());
    game
}

/// The observations a depth-1 search of `game` shows its evaluator, and those of the game after
/// each legal move.
fn leaf_observations(game: &Game) -> (Vec<Observation>, Vec<Observation>) {
    let mut seen = Vec::new();
    let mut net = Answers(|requests: &[EvalRequest]| {
        seen.extend(requests.iter().map(|r| r.observation));
        UniformEvaluator.evaluate(requests)
    });
    evaluated(game, Limit::Depth(1), &mut net).unwrap().unwrap();
    let after = game.position().legal_moves().into_iter().map(|mv| {
        let mut child = game.clone();
        child.play(mv).unwrap();
        child.observation()
    });
    (seen, after.collect())
}

#[test]
fn leaves_are_observed_with_the_counters_of_game_and_path() {
    let game = kings_back_home();
    let (seen, after) = leaf_observations(&game);
    assert!(seen.iter().all(|o| o.no_progress_plies == 5), "{seen:?}");
    // The king stepping out again repeats a position: a draw, which the net is not asked about.
    let fresh: Vec<Observation> = after.iter().copied().filter(|o| o.repetitions == 0).collect();
    assert_eq!((seen.len(), fresh.len() + 1), (fresh.len(), after.len()));
    assert!(fresh.iter().all(|o| seen.contains(o)), "{seen:?}\n{fresh:?}");

    // Without repetition draws the net sees the repeated position, and that it repeats.
    let rules = DrawRules { repetitions: 0, ..DrawRules::default() };
    let mut game_without = Game::new(*game.start(), rules);
    for &mv in game.moves() {
        game_without.play(mv).unwrap();
    }
    let (seen, after) = leaf_observations(&game_without);
    assert_eq!(seen, after);
    assert_eq!(seen.iter().filter(|o| o.repetitions == 1).count(), 1);
}

#[test]
fn a_failing_net_fails_the_search() {
    let game = start_of(Position::start());
    let mut broken = Answers(|requests: &[EvalRequest]| {
        Err(EvalError::new(requests.len(), "the device is gone"))
    });
    let error = evaluated(&game, Limit::Depth(3), &mut broken).unwrap_err();
    assert!(matches!(error, SearchError::Evaluator(ref e) if e.batch == 1), "{error:?}");

    let mut silent = Answers(|_: &[EvalRequest]| Ok(Vec::new()));
    let error = evaluated(&game, Limit::Depth(3), &mut silent).unwrap_err();
    assert_eq!(error, SearchError::EvaluationCount { expected: 1, got: 0 });

    let mut confused = Answers(|requests: &[EvalRequest]| {
        let mut answers = UniformEvaluator.evaluate(requests)?;
        answers[0].value = f32::NAN;
        Ok(answers)
    });
    let error = evaluated(&game, Limit::Depth(3), &mut confused).unwrap_err();
    assert_eq!(error, SearchError::BadNumber { index: 0, what: "the value" });

    // The engine searches on after a failure, as if it had not happened.
    let mut ab = engine();
    let failed = ab.best_move_evaluated(&game, Limit::Depth(3), None, &mut |_| {}, &mut broken);
    assert!(failed.is_err());
    let fresh = engine().best_move(&game, Limit::Depth(3));
    assert_eq!(ab.best_move(&game, Limit::Depth(3)), fresh);
}

/// A leaf evaluator that values every position at 0 and keeps the positions and moves the engine
/// asks it to order.
#[derive(Default)]
struct PolicyProbe {
    asked: Vec<(Position, Vec<draughts::Move>)>,
}

impl super::LeafEvaluator for PolicyProbe {
    fn start(&mut self, _root: &Position) {}
    fn push(&mut self, _parent: &Position, _child: &Position) {}
    fn pop(&mut self) {}
    fn value(&mut self, _observation: &Observation) -> f32 {
        0.0
    }
    fn move_scores(
        &mut self,
        position: &Position,
        moves: &[draughts::Move],
        scores: &mut Vec<f32>,
    ) -> bool {
        self.asked.push((*position, moves.to_vec()));
        scores.clear();
        scores.extend((0..moves.len()).map(|i| i as f32));
        true
    }
}

#[test]
fn the_policy_is_asked_only_with_its_setting_and_for_quiet_moves_with_two_plies_left() {
    let game = start_of(Position::start());
    for policy in [false, true] {
        let mut config = AlphaBetaConfig::full(14);
        config.features.policy = policy;
        let mut probe = PolicyProbe::default();
        let best = AlphaBeta::new(&config)
            .best_move_parallel(&game, Limit::Depth(5), None, &mut |_| {}, &mut probe, &mut [])
            .unwrap();
        assert!(game.position().legal_moves().contains(&best.mv));
        assert_eq!(probe.asked.is_empty(), !policy);
        for (position, moves) in &probe.asked {
            let mut legal = position.legal_moves().to_vec();
            let mut asked = moves.clone();
            legal.sort_by_key(|mv| mv.to_string());
            asked.sort_by_key(|mv| mv.to_string());
            assert_eq!(asked, legal, "{position}");
            assert!(moves.len() > 1 && moves.iter().all(|mv| !mv.is_capture()), "{position}");
        }
    }
}
