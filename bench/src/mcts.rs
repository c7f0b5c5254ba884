//! Search alone: MCTS simulations per second with the uniform evaluator (no net).

use draughts::{DrawRules, Game, Position};
use search::{Budget, MctsConfig, Search, UniformEvaluator};
use std::time::{Duration, Instant};

/// Root visits of each search in the benchmark (a self-play-sized search, a little larger).
const VISITS_PER_SEARCH: u32 = 2_000;

/// Simulations per second on this thread: repeated searches of the start position with the
/// uniform evaluator (no noise, default batch of leaves) for about `duration`.
pub fn uniform_sims_per_sec(duration: Duration) -> f64 {
    let config = MctsConfig { dirichlet_fraction: 0.0, ..MctsConfig::default() };
    let game = Game::new(Position::start(), DrawRules::default());
    let budget = Budget { visits: VISITS_PER_SEARCH, root_noise: false };
    let started = Instant::now();
    let mut simulations = 0u64;
    let mut seed = 0;
    while started.elapsed() < duration {
        let mut search = Search::new(&config, &game, seed).expect("the start position is not over");
        search
            .run(&mut UniformEvaluator, budget)
            .expect("the uniform evaluator fits every request");
        simulations += u64::from(search.root_visits());
        seed += 1;
    }
    simulations as f64 / started.elapsed().as_secs_f64()
}
