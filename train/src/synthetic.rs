//! Generated trajectories with learnable targets, for tests and benchmarks: positions from
//! random games, a policy that favours the legal step with the lowest index, the sign of the
//! material balance as the result, and plies to the end that shrink with the material. Without
//! replies; [`link_replies`] links a shard's worth of them.

use draughts::Color;
use model::sample::for_each_decision;
use shard::Sample;
use std::ops::ControlFlow;

/// `count` samples (every fourth one from a cheap search, so not a policy target).
pub fn synthetic_samples(count: usize, seed: u64) -> Vec<Sample> {
    let mut out = Vec::with_capacity(count);
    for_each_decision(seed, usize::MAX, |obs, turn| {
        let pos = &obs.position;
        let mover = pos.side_to_move();
        let mut indices: Vec<u8> =
            turn.legal_steps().iter().map(|s| s.index_for(mover) as u8).collect();
        indices.sort_unstable();
        let rest = 0.25 / (indices.len() - 1).max(1) as f32;
        let first = if indices.len() == 1 { 1.0 } else { 0.75 };
        let policy = indices
            .iter()
            .enumerate()
            .map(|(i, &index)| (index, if i == 0 { first } else { rest }))
            .collect();
        let material = |c: Color| pos.pieces(c).count() as i32 + pos.kings(c).count() as i32;
        let balance = material(mover) - material(mover.other());
        out.push(Sample {
            observation: *obs,
            policy,
            search_value: (balance as f32 / 4.0).clamp(-1.0, 1.0),
            result: balance.signum() as i8,
            plies_to_end: 3 * pos.occupied().count() as u16,
            full_search: out.len() % 4 != 3,
            reply_after: None,
        });
        if out.len() < count {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(())
        }
    });
    out
}

/// Links each of `samples` (one shard's) to the next one with the other side to move, when it is
/// at most 255 on and before the slice's end: the opponent's reply for generated data (across
/// the end of a random game too).
pub fn link_replies(samples: &mut [Sample]) {
    for i in 0..samples.len() {
        let mover = samples[i].observation.position.side_to_move();
        samples[i].reply_after = samples[i + 1..]
            .iter()
            .position(|s| s.observation.position.side_to_move() != mover)
            .and_then(|k| u8::try_from(k + 1).ok());
    }
}
