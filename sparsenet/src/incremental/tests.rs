//! The incremental path against the sums made anew, and the integer value against the f32 one,
//! over every position of random games with the project's reference net.

use super::*;
use crate::features::active;
use crate::forward::Scratch;
use crate::quantised::VALUE_ERROR_BOUND;
use crate::weights::SparseWeights;
use draughts::{DrawRules, Game};
use std::path::Path;
use support::SplitMix64;

/// The four-hour default net, the reference the engine is measured with.
fn reference_net() -> SparseWeights {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs/ab/2026-12-04-default-4h-best.safetensors");
    SparseWeights::load(&path).expect("the reference net loads").0
}

/// A random game of at most `plies` plies, as the positions it passed through.
fn random_game(rng: &mut SplitMix64, plies: usize) -> Game {
    let mut game = Game::new(Position::start(), DrawRules::default());
    for _ in 0..plies {
        let moves = game.position().legal_moves();
        if moves.is_empty() || game.outcome().is_some() {
            break;
        }
        let mv = moves[rng.below(moves.len() as u64) as usize];
        game.play(mv).unwrap();
    }
    game
}

#[test]
fn the_incremental_value_equals_the_sum_made_anew_at_every_position() {
    let net = Arc::new(QuantisedNet::new(&reference_net()));
    let (mut path, mut fresh) = (IncrementalNet::new(Arc::clone(&net)), IncrementalNet::new(net));
    let mut rng = SplitMix64::new(7);
    let mut compared = 0;
    for _ in 0..40 {
        let game = random_game(&mut rng, 200);
        let mut replay = Game::new(*game.start(), game.rules());
        path.start(replay.position());
        let mut values = vec![path.value(&replay.observation())];
        for &mv in game.moves() {
            let parent = *replay.position();
            replay.play(mv).unwrap();
            path.push(&parent, replay.position());
            let observation = replay.observation();
            let incremental = path.value(&observation);
            assert_eq!(incremental, fresh.value_of(&observation), "{}", replay.position());
            values.push(incremental);
            compared += 1;
        }
        // Taking the moves back restores each earlier position's accumulator.
        let mut back = Game::new(*game.start(), game.rules());
        let observations: Vec<Observation> = std::iter::once(back.observation())
            .chain(game.moves().iter().map(|&mv| {
                back.play(mv).unwrap();
                back.observation()
            }))
            .collect();
        for (observation, value) in observations.iter().zip(&values).rev() {
            assert_eq!(path.value(observation), *value);
            path.pop();
        }
    }
    assert!(compared > 2000, "{compared} positions");
}

#[test]
fn a_board_fuller_than_any_game_reaches_is_evaluated() {
    let mut net = IncrementalNet::new(Arc::new(QuantisedNet::new(&reference_net())));
    let squares = |range: std::ops::RangeInclusive<u8>| {
        range.map(|n| Square::from_pdn(n).unwrap()).collect::<Bitboard>()
    };
    // 13 men a side (as a FEN may give), then every square taken.
    for (black, white) in [(1..=13, 17..=29), (1..=16, 17..=32)] {
        let position =
            Position::new(squares(black), squares(white), Bitboard(0), Color::Black).unwrap();
        let value = net.value_of(&Observation::at_move_start(position, 0, 0));
        assert!((-1.0..=1.0).contains(&value), "{value} for {position}");
    }
}

/// The reference net with a value stack per bucket of four, each bucket's its own: the WDL
/// head's win and loss rows swapped in odd buckets, its draw row scaled by the bucket in the others.
fn bucketed_net() -> SparseWeights {
    let mut weights = reference_net();
    weights.config.buckets = 4;
    let one = weights.stacks[0].clone();
    weights.stacks = (0..4)
        .map(|b| {
            let mut stack = one.clone();
            let (wdl, inputs) = (&mut stack.wdl, one.wdl.inputs);
            if b % 2 == 1 {
                let (win, rest) = wdl.weight.split_at_mut(inputs);
                win.swap_with_slice(&mut rest[inputs..]);
                wdl.bias.swap(0, 2);
            } else {
                wdl.weight[inputs..2 * inputs].iter_mut().for_each(|w| *w *= 1.0 + b as f32);
            }
            stack
        })
        .collect();
    weights
}

#[test]
fn the_integer_value_stays_within_its_bound_of_the_f32_net() {
    integer_value_within_its_bound(reference_net());
}

#[test]
fn the_integer_value_of_a_net_with_buckets_stays_within_its_bound_of_the_f32_net() {
    integer_value_within_its_bound(bucketed_net());
}

/// The integer value of `weights` against its f32 value over the positions of random games.
fn integer_value_within_its_bound(weights: SparseWeights) {
    let mut net = IncrementalNet::new(Arc::new(QuantisedNet::new(&weights)));
    let mut scratch = Scratch::default();
    let mut rng = SplitMix64::new(11);
    let (mut worst, mut total, mut count) = (0.0f32, 0.0f32, 0);
    for _ in 0..60 {
        let mut game = Game::new(Position::start(), DrawRules::default());
        for mv in random_game(&mut rng, 200).moves() {
            game.play(*mv).unwrap();
            let observation = game.observation();
            let exact = weights.forward(&active(&observation), &mut scratch).value();
            let error = (net.value_of(&observation) - exact).abs();
            worst = worst.max(error);
            total += error;
            count += 1;
        }
    }
    assert!(worst <= VALUE_ERROR_BOUND, "worst error {worst} over {count} positions");
    assert!(
        total / (count as f32) < VALUE_ERROR_BOUND / 4.0,
        "mean error {}",
        total / count as f32
    );
}

#[test]
fn the_move_scores_are_the_policy_logits_of_the_pieces_alone() {
    let weights = reference_net();
    let mut path = IncrementalNet::new(Arc::new(QuantisedNet::new(&weights)));
    let mut scratch = Scratch::default();
    let mut rng = SplitMix64::new(11);
    let (mut compared, mut worst) = (0, 0.0f32);
    for _ in 0..20 {
        let game = random_game(&mut rng, 120);
        let mut replay = Game::new(*game.start(), game.rules());
        path.start(replay.position());
        for &mv in game.moves() {
            let parent = *replay.position();
            replay.play(mv).unwrap();
            path.push(&parent, replay.position());
            let position = *replay.position();
            let moves = position.legal_moves();
            let mut scores = Vec::new();
            assert!(path.move_scores(&position, &moves, &mut scores));
            assert_eq!(scores.len(), moves.len());
            // The f32 net over the pieces' features only (no counters).
            let observation = replay.observation();
            let pieces: Vec<u16> =
                active(&observation).into_iter().filter(|&f| usize::from(f) < 128).collect();
            weights.forward(&pieces, &mut scratch);
            let side = position.side_to_move();
            let steps = moves.iter().map(|m| m.steps().next().unwrap().index_for(side));
            let mut expected = Vec::new();
            weights.policy_logits(&scratch, steps, &mut expected);
            for (got, want) in scores.iter().zip(&expected) {
                worst = worst.max((got - want).abs());
                compared += 1;
            }
        }
    }
    assert!(compared > 1000, "{compared} logits compared");
    assert!(worst < 0.05, "the integer accumulator's logits differ by {worst}");
}

#[test]
fn positions_evaluated_after_moves_made_and_taken_back_unevaluated_equal_the_sums_made_anew() {
    // A random walk down and up the game tree, evaluating now and then: each evaluation brings
    // up to date only what it needs, over moves never evaluated and paths taken back.
    let net = Arc::new(QuantisedNet::new(&reference_net()));
    let (mut path, mut fresh) = (IncrementalNet::new(Arc::clone(&net)), IncrementalNet::new(net));
    let mut rng = SplitMix64::new(13);
    let mut compared = 0;
    for _ in 0..20 {
        let mut line = vec![Position::start()];
        path.start(&line[0]);
        for _ in 0..400 {
            let position = *line.last().unwrap();
            let moves = position.legal_moves();
            if line.len() > 1 && (moves.is_empty() || rng.below(3) == 0) {
                line.pop();
                path.pop();
            } else if !moves.is_empty() {
                let child = position.play_unchecked(moves[rng.below(moves.len() as u64) as usize]);
                path.push(&position, &child);
                line.push(child);
            }
            if rng.below(4) == 0 {
                let observation = Observation::at_move_start(*line.last().unwrap(), 0, 1);
                assert_eq!(path.value(&observation), fresh.value_of(&observation));
                compared += 1;
            }
        }
    }
    assert!(compared > 1500, "{compared} positions");
}
