//! Random games for benchmarks and tests: every decision point (including mid-capture steps) with
//! its observation and move state, from a seeded generator so runs repeat.

use draughts::{DrawRules, Game, Observation, Position, Turn};
use std::ops::ControlFlow;
use support::SplitMix64;

/// Plays up to `games` games of uniformly random steps and calls `visit` at every decision point,
/// before the step is chosen. `visit` may stop the walk early with `ControlFlow::Break`.
pub fn for_each_decision(
    seed: u64,
    games: usize,
    mut visit: impl FnMut(&Observation, &Turn) -> ControlFlow<()>,
) {
    let mut rng = SplitMix64::new(seed);
    for _ in 0..games {
        let mut game = Game::new(Position::start(), DrawRules::default());
        while game.outcome().is_none() {
            let mut turn = Turn::new(*game.position());
            loop {
                if visit(&game.observation_during(&turn), &turn).is_break() {
                    return;
                }
                let steps = turn.legal_steps();
                let step = steps[rng.below(steps.len() as u64) as usize];
                if let Some(mv) = turn.take(step).expect("a listed step is legal") {
                    game.play_unchecked(mv);
                    break;
                }
            }
        }
    }
}

/// `count` observations from random games (consecutive decision points, mid-capture ones included).
pub fn random_observations(count: usize, seed: u64) -> Vec<Observation> {
    let mut out = Vec::with_capacity(count);
    for_each_decision(seed, usize::MAX, |obs, _| {
        out.push(*obs);
        if out.len() < count {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(())
        }
    });
    out
}
