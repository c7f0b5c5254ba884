//! Behaviour of the MCTS with the uniform and scripted evaluators.

use crate::test_positions::{position, shot_step, step, two_for_one_shot};
use crate::{
    Budget, EvalError, EvalRequest, Evaluation, Evaluator, MctsConfig, ScriptedEvaluator, Search,
    SearchError, UniformEvaluator,
};
use draughts::{Color, Direction, DrawRules, Game, Position, Step, Turn};

fn quiet_config() -> MctsConfig {
    MctsConfig { dirichlet_fraction: 0.0, ..MctsConfig::default() }
}

fn budget(visits: u32) -> Budget {
    Budget { visits, root_noise: false }
}

fn game_from(position: Position) -> Game {
    Game::new(position, DrawRules::default())
}

fn searched(position: Position, visits: u32, evaluator: &mut impl Evaluator) -> Search {
    let mut search = Search::new(&quiet_config(), &game_from(position), 1).unwrap();
    search.run(evaluator, budget(visits)).unwrap();
    search
}

#[test]
fn finds_a_two_for_one_shot() {
    let search = searched(two_for_one_shot(), 3000, &mut UniformEvaluator);
    let result = search.result();
    assert_eq!(result.best_step(), Some(shot_step()), "{result:?}");
    let shot = result.steps.iter().find(|s| s.step == shot_step()).unwrap();
    assert!(shot.value.unwrap() > 0.9, "the shot wins: {shot:?}");
    // The principal variation: 9-14, 17x10, then Black's double jump 6x15x24 step by step.
    let pv = &result.principal_variation;
    assert_eq!(pv[..2], [shot_step(), step(17, Direction::UpRight)], "{pv:?}");
    assert_eq!(pv[2..], [step(6, Direction::DownRight), step(15, Direction::DownRight)], "{pv:?}");
}

#[test]
fn avoids_a_move_that_loses_at_once() {
    // Black's only man on 9: 9-14 is taken by 18x9 and Black has nothing left; 9-13 is safe.
    let pos = position(&[9], &[18, 30], &[], Color::Black);
    let search = searched(pos, 400, &mut UniformEvaluator);
    let result = search.result();
    assert_eq!(result.best_step(), Some(step(9, Direction::DownLeft)), "{result:?}");
    let losing = result.steps.iter().find(|s| s.step == step(9, Direction::DownRight)).unwrap();
    assert!(losing.value.unwrap() < -0.9, "{losing:?}");
}

#[test]
fn only_captures_are_searched_when_one_is_possible() {
    // Black 10 can take 15 (10x19); 1-5 or 1-6 would be legal without compulsory capture.
    let pos = position(&[1, 10], &[15, 30], &[], Color::Black);
    let search = searched(pos, 200, &mut UniformEvaluator);
    let steps: Vec<_> = search.root_steps().collect();
    assert_eq!(steps, vec![step(10, Direction::DownRight)]);
    assert_eq!(search.result().best_step(), Some(step(10, Direction::DownRight)));
}

#[test]
fn follows_the_values_of_a_scripted_evaluator() {
    // After 11-15 White is to move; the evaluator calls that position lost for White.
    let start = Position::start();
    let good = start.legal_moves().into_iter().find(|mv| mv.to_string() == "11-15").unwrap();
    let mut evaluator = ScriptedEvaluator::new().with_value(start.play(good), -0.9);
    let search = searched(start, 300, &mut evaluator);
    assert_eq!(search.result().best_step(), Some(step(11, Direction::DownLeft)));
    assert!(search.result().value > 0.0);
}

#[test]
fn requests_carry_the_legal_steps_and_their_policy_indices() {
    let mut search = Search::new(&quiet_config(), &game_from(Position::start()), 1).unwrap();
    search.begin(budget(1));
    let mut requests = Vec::new();
    search.select_leaves(1, &mut requests);
    let request = &requests[0];
    assert_eq!(request.legal_steps, Turn::new(Position::start()).legal_steps());
    let indices: Vec<usize> = request.policy_indices().collect();
    let expected: Vec<usize> =
        request.legal_steps.iter().map(|s| s.index_for(Color::Black)).collect();
    assert_eq!(indices, expected);
}

#[test]
fn visits_follow_priors_when_values_are_equal() {
    let favourite = step(11, Direction::DownLeft);
    let mut evaluator = ScriptedEvaluator::new().with_step_weight(favourite, 4.0);
    let config =
        MctsConfig { fpu_reduction: 0.0, dirichlet_fraction: 0.0, ..MctsConfig::default() };
    let mut search = Search::new(&config, &game_from(Position::start()), 1).unwrap();
    search.run(&mut evaluator, budget(2000)).unwrap();
    let result = search.result();
    let total: u32 = result.steps.iter().map(|s| s.visits).sum();
    for s in &result.steps {
        let share = s.visits as f32 / total as f32;
        assert!((share - s.prior).abs() < 0.03, "{s:?}: share {share} vs prior {}", s.prior);
    }
    assert_eq!(result.best_step(), Some(favourite));
}

#[test]
fn root_noise_is_mixed_in_full_searches_only() {
    let config = MctsConfig { dirichlet_fraction: 0.4, ..MctsConfig::default() };
    let game = game_from(Position::start());
    let priors_after = |budget: Budget| {
        let mut search = Search::new(&config, &game, 9).unwrap();
        search.run(&mut UniformEvaluator, budget).unwrap();
        search.result().steps.iter().map(|s| s.prior).collect::<Vec<_>>()
    };
    let uniform = 1.0 / 7.0;
    let noisy = priors_after(config.budget(true));
    assert!((noisy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    assert!(noisy.iter().all(|&p| p >= (1.0 - 0.4) * uniform - 1e-6), "{noisy:?}");
    assert!(noisy.iter().any(|&p| (p - uniform).abs() > 1e-3), "{noisy:?}");
    let quiet = priors_after(config.budget(false));
    assert!(quiet.iter().all(|&p| (p - uniform).abs() < 1e-6), "{quiet:?}");
}

#[test]
fn the_policy_temperature_widens_or_narrows_the_priors() {
    let favourite = step(11, Direction::DownLeft);
    let root_priors = |policy_temperature: f32| {
        let config = MctsConfig { policy_temperature, ..quiet_config() };
        let mut evaluator = ScriptedEvaluator::new().with_step_weight(favourite, 4.0);
        let mut search = Search::new(&config, &game_from(Position::start()), 1).unwrap();
        search.run(&mut evaluator, budget(8)).unwrap();
        let steps = search.result().steps;
        let prior_of = |s: Step| steps.iter().find(|r| r.step == s).unwrap().prior;
        let other = steps.iter().find(|r| r.step != favourite).unwrap().step;
        assert!((steps.iter().map(|r| r.prior).sum::<f32>() - 1.0).abs() < 1e-5);
        (prior_of(favourite), prior_of(other))
    };
    // Weights 4 and 1 over the 7 opening steps: 4/10 and 1/10 as the net says them.
    let (favourite_prior, other_prior) = root_priors(1.0);
    assert!((favourite_prior - 0.4).abs() < 1e-5 && (other_prior - 0.1).abs() < 1e-5);
    // At 2 the square roots, 2 and 1: 2/8 and 1/8; at 0.5 the squares, 16 and 1: 16/22 and 1/22.
    let (favourite_prior, other_prior) = root_priors(2.0);
    assert!((favourite_prior - 0.25).abs() < 1e-5 && (other_prior - 0.125).abs() < 1e-5);
    let (favourite_prior, other_prior) = root_priors(0.5);
    assert!((favourite_prior - 16.0 / 22.0).abs() < 1e-5, "{favourite_prior}");
    assert!((other_prior - 1.0 / 22.0).abs() < 1e-5, "{other_prior}");
}

#[test]
fn temperature_zero_picks_the_most_visited_and_one_samples_in_proportion() {
    let favourite = step(11, Direction::DownLeft);
    let mut evaluator = ScriptedEvaluator::new().with_step_weight(favourite, 4.0);
    let mut search = Search::new(&quiet_config(), &game_from(Position::start()), 5).unwrap();
    search.run(&mut evaluator, budget(1000)).unwrap();
    let result = search.result();
    for _ in 0..20 {
        assert_eq!(search.choose_step(0.0), result.best_step());
    }
    let draws = 20_000;
    let mut counts = vec![0u32; result.steps.len()];
    for _ in 0..draws {
        let chosen = search.choose_step(1.0).unwrap();
        counts[result.steps.iter().position(|s| s.step == chosen).unwrap()] += 1;
    }
    let visited: u32 = result.steps.iter().map(|s| s.visits).sum();
    for (s, &count) in result.steps.iter().zip(&counts) {
        let expected = s.visits as f64 / visited as f64;
        let seen = count as f64 / draws as f64;
        assert!((seen - expected).abs() < 0.02, "{s:?}: drawn {seen}, visits share {expected}");
    }
}

#[test]
fn tree_reuse_keeps_the_chosen_subtree() {
    let mut search = searched(Position::start(), 800, &mut UniformEvaluator);
    let result = search.result();
    let best = result.best_step().unwrap();
    let kept = result.steps.iter().find(|s| s.step == best).unwrap().visits;
    let nodes_before = search.tree_size();
    search.advance(best).unwrap();
    assert_eq!(search.root_visits(), kept);
    assert!(search.tree_size() < nodes_before && search.tree_size() > 1);
    // The kept tree is searched on without losing its visits.
    search.run(&mut UniformEvaluator, budget(kept + 100)).unwrap();
    assert_eq!(search.root_visits(), kept + 100);
}

#[test]
fn advancing_through_a_multi_jump_keeps_the_same_mover() {
    let mut search = searched(two_for_one_shot(), 500, &mut UniformEvaluator);
    for s in [shot_step(), step(17, Direction::UpRight), step(6, Direction::DownRight)] {
        search.advance(s).unwrap();
    }
    // Mid-jump, Black is still to move and its only step finishes the double jump.
    assert_eq!(search.root_steps().collect::<Vec<_>>(), vec![step(15, Direction::DownRight)]);
    assert!(search.result().value > 0.9);
}

#[test]
fn an_illegal_step_or_a_bad_evaluation_is_an_error() {
    let mut search = Search::new(&quiet_config(), &game_from(Position::start()), 1).unwrap();
    let wrong = step(21, Direction::UpLeft);
    assert_eq!(search.advance(wrong), Err(SearchError::IllegalStep { step: wrong }));
    search.begin(budget(10));
    let mut requests = Vec::new();
    assert_eq!(search.select_leaves(4, &mut requests), 1, "the root is evaluated alone first");
    assert_eq!(
        search.advance(step(9, Direction::DownLeft)),
        Err(SearchError::LeavesPending { count: 1 })
    );
    let short = Evaluation { priors: [1.0].into_iter().collect(), value: 0.0, draw: 0.0 };
    assert_eq!(
        search.apply(&[short]),
        Err(SearchError::PriorCount { index: 0, expected: 7, got: 1 })
    );
    assert_eq!(search.apply(&[]), Err(SearchError::EvaluationCount { expected: 1, got: 0 }));
}

#[test]
fn leaves_from_many_searches_share_one_evaluator_call() {
    let game = game_from(Position::start());
    let mut searches: Vec<Search> =
        (0..4).map(|seed| Search::new(&quiet_config(), &game, seed).unwrap()).collect();
    searches.iter_mut().for_each(|s| s.begin(budget(200)));
    let mut evaluator = ScriptedEvaluator::new();
    let mut requests = Vec::new();
    loop {
        requests.clear();
        let counts: Vec<usize> =
            searches.iter_mut().map(|s| s.select_leaves(16, &mut requests)).collect();
        if requests.is_empty() {
            break;
        }
        let evaluations = evaluator.evaluate(&requests).unwrap();
        let mut start = 0;
        for (search, count) in searches.iter_mut().zip(counts) {
            search.apply(&evaluations[start..start + count]).unwrap();
            start += count;
        }
    }
    assert!(searches.iter().all(|s| s.root_visits() == 200));
    assert!(evaluator.calls < 60, "{} calls for {} requests", evaluator.calls, evaluator.requests);
}

#[test]
fn draws_by_repetition_inside_the_tree_are_terminal() {
    // Two kings each, far apart: with repetitions = 2 a position's first return is a draw, so a
    // search over king shuffles ends many playouts on draws and never errs.
    let pos = position(&[1], &[32], &[1, 32], Color::Black);
    let rules = DrawRules { repetitions: 2, no_progress_moves: 0, max_plies: 0 };
    let mut search = Search::new(&quiet_config(), &Game::new(pos, rules), 1).unwrap();
    let mut evaluator = ScriptedEvaluator::new();
    search.run(&mut evaluator, budget(3000)).unwrap();
    assert_eq!(search.root_visits(), 3000);
    assert!(
        evaluator.requests < 3000,
        "terminal draws need no evaluation: {} requests",
        evaluator.requests
    );
    // The scripted evaluator gives no draw chance, so the draw probability comes from the
    // playouts that ended on a drawn repetition: at most those that hit an end.
    let result = search.result();
    let ends = (3000 - evaluator.requests) as f32;
    assert!(result.draw > 0.1 && result.draw * 3000.0 <= ends + 0.5, "{result:?} {ends}");
}

/// Every leaf: uniform priors, this value and this draw probability.
struct Steady(f32, f32);

impl Evaluator for Steady {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        let answer = |r: &EvalRequest| Evaluation {
            priors: r.legal_steps.iter().map(|_| 1.0).collect(),
            value: self.0,
            draw: self.1,
        };
        Ok(requests.iter().map(answer).collect())
    }
}

#[test]
fn the_root_averages_the_draw_probability_within_what_the_value_allows() {
    let result = searched(Position::start(), 200, &mut Steady(0.0, 0.5)).result();
    assert!((result.draw - 0.5).abs() < 1e-4, "{result:?}");
    let outlook = crate::Outlook::of_value(result.value, result.draw);
    assert!((outlook.win + outlook.draw + outlook.loss - 1.0).abs() < 1e-5, "{outlook:?}");
    // A value of 0.9 leaves room for a draw chance of at most 0.1.
    let result = searched(Position::start(), 50, &mut Steady(0.9, 0.5)).result();
    assert!(result.draw <= 0.1 + 1e-4 && result.draw > 0.09, "{result:?}");
    let bad = Evaluation { priors: Default::default(), value: 0.0, draw: f32::NAN };
    let mut search = Search::new(&quiet_config(), &game_from(Position::start()), 1).unwrap();
    let mut requests = Vec::new();
    search.begin(budget(1));
    assert_eq!(search.select_leaves(1, &mut requests), 1);
    let priors = std::iter::repeat_n(1.0, requests[0].legal_steps.len()).collect();
    let bad = Evaluation { priors, ..bad };
    let error = search.apply(&[bad]).unwrap_err();
    assert!(error.to_string().contains("draw probability"), "{error}");
}

#[test]
fn forced_playouts_visit_every_root_step_and_the_target_prunes_them() {
    let config = MctsConfig { forced_playouts: 2.0, ..MctsConfig::default() };
    let mut search = Search::new(&config, &game_from(Position::start()), 7).unwrap();
    search.run(&mut UniformEvaluator, Budget { visits: 400, root_noise: true }).unwrap();
    let mut result = search.result();
    for step in &result.steps {
        let forced = crate::puct::forced_visits(2.0, step.prior, result.visits);
        assert!(step.visits + 2 >= forced, "{step:?} below {forced} forced visits");
    }
    let before = result.clone();
    result.prune_forced_playouts(config.c_puct, 2.0);
    assert_eq!(result.best_step(), before.best_step());
    let total = |r: &crate::SearchResult| r.steps.iter().map(|s| s.visits).sum::<u32>();
    assert!(total(&result) < total(&before), "some forced visits are pruned");
    for (pruned, step) in result.steps.iter().zip(&before.steps) {
        assert!(pruned.visits <= step.visits && pruned.visits != 1, "{pruned:?} from {step:?}");
    }
    // Without noise (a player's search) nothing is forced.
    let mut quiet = Search::new(&config, &game_from(Position::start()), 7).unwrap();
    quiet.run(&mut UniformEvaluator, budget(400)).unwrap();
    let plain = searched(Position::start(), 400, &mut UniformEvaluator);
    assert_eq!(quiet.result().steps, plain.result().steps);
}

/// Value 0 everywhere; a draw chance of 0.9 wherever a black man stands on 15, else none.
struct DrawnOn15;

impl Evaluator for DrawnOn15 {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        let fifteen = draughts::Square::from_pdn(15).unwrap();
        let answer = |r: &EvalRequest| {
            let position = r.observation.position;
            let on_15 = position.piece_at(fifteen) == Some((Color::Black, false));
            Evaluation {
                priors: r.legal_steps.iter().map(|_| 1.0).collect(),
                value: 0.0,
                draw: if on_15 { 0.9 } else { 0.0 },
            }
        };
        Ok(requests.iter().map(answer).collect())
    }
}

#[test]
fn a_draw_penalty_steers_the_search_away_from_lines_seen_drawn() {
    // Of Black's seven openings, 10-15 and 11-15 put a man on 15, where the net sees a draw.
    let visits_to_15 = |penalty: f32| {
        let config = MctsConfig { draw_penalty: penalty, ..quiet_config() };
        let mut search = Search::new(&config, &game_from(Position::start()), 1).unwrap();
        search.run(&mut DrawnOn15, budget(700)).unwrap();
        let result = search.result();
        let to_15 = |s: &&crate::RootStep| {
            let start = Position::start();
            let mv = start.legal_moves().into_iter().find(|mv| mv.steps().next() == Some(s.step));
            let landing = start.play(mv.unwrap());
            landing.piece_at(draughts::Square::from_pdn(15).unwrap()) == Some((Color::Black, false))
        };
        result.steps.iter().filter(to_15).map(|s| s.visits).sum::<u32>()
    };
    let (without, with) = (visits_to_15(0.0), visits_to_15(0.5));
    assert!(without > 150, "without a penalty the draw does not matter: {without} of 700");
    assert!(with * 2 < without, "with a penalty: {with} visits, without: {without}");
    let mut config = MctsConfig::default();
    assert!(config.set("draw_penalty", "1.5").unwrap_err().contains("draw_penalty"));
}
