//! The policy index: one output per single step, `4 * square + direction` in the mover's frame.
//!
//! A move is taken one step at a time (a multi-jump is several decisions by the same side), so at
//! every decision point the legal steps are distinct (square, direction) pairs and each has its own
//! index; two jump paths from one square part at the first step where they differ. The index itself
//! is defined by the rules engine ([`Step::index_for`] / [`Step::from_index`]); this module names
//! its parts for the export description.

use draughts::Step;

/// Number of policy outputs: 32 squares x 4 directions.
pub const POLICY_SIZE: usize = Step::INDEX_COUNT;

/// The four directions of the policy index in the mover's frame (row 0 = the mover's back rank,
/// men move towards higher rows): name and (row, column) change of one step on the input planes.
pub const DIRECTIONS: [(&str, (i8, i8)); 4] = [
    ("backward_left", (-1, -1)),
    ("backward_right", (-1, 1)),
    ("forward_left", (1, -1)),
    ("forward_right", (1, 1)),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::for_each_decision;
    use draughts::{Bitboard, Color, Direction, Move, Position, Square, Turn};
    use std::collections::{HashMap, HashSet};
    use std::ops::ControlFlow;

    /// The index sequence of each legal move from a start-of-move turn.
    fn index_paths(turn: &Turn, mover: Color) -> Vec<(Move, Vec<usize>)> {
        turn.moves()
            .iter()
            .map(|&mv| (mv, mv.steps().map(|s| s.index_for(mover)).collect()))
            .collect()
    }

    #[test]
    fn direction_table_matches_the_engine_in_the_movers_frame() {
        for (i, (_, delta)) in DIRECTIONS.iter().enumerate() {
            assert_eq!(Direction::from_index(i as u8).delta(), *delta);
        }
        // Black's men move "down" (towards row 7): forward in the mover's frame.
        assert_eq!(Color::Black.forward().map(|d| d.index()), [2, 3]);
        // White's forward steps map to the same indices after the turn.
        let white_forward = Step { square: Square::from_pdn(24).unwrap(), dir: Direction::UpLeft };
        assert_eq!(white_forward.index_for(Color::White) % 4, 3);
    }

    #[test]
    fn legal_steps_get_distinct_indices_that_map_back_in_random_games() {
        let mut decisions = 0;
        let mut multi_path_squares = 0;
        for_each_decision(7, 300, |obs, turn| {
            decisions += 1;
            let mover = obs.position.side_to_move();
            let steps = turn.legal_steps();
            let indices: HashSet<usize> = steps.iter().map(|s| s.index_for(mover)).collect();
            assert_eq!(
                indices.len(),
                steps.len(),
                "two legal steps share an index in {:?}",
                obs.position
            );
            for step in &steps {
                let index = step.index_for(mover);
                assert!(index < POLICY_SIZE);
                assert_eq!(Step::from_index(index, mover), Some(*step));
            }
            if turn.steps_taken() == 0 {
                // Whole moves: distinct index sequences, so every move can be chosen on its own.
                let paths = index_paths(turn, mover);
                let distinct: HashSet<&Vec<usize>> = paths.iter().map(|(_, p)| p).collect();
                assert_eq!(
                    distinct.len(),
                    paths.len(),
                    "two moves share an index path in {:?}",
                    obs.position
                );
                let mut ends: HashMap<_, HashSet<Position>> = HashMap::new();
                for (mv, _) in &paths {
                    ends.entry(mv.from()).or_default().insert(obs.position.play_unchecked(*mv));
                }
                multi_path_squares +=
                    ends.values().filter(|e| e.len() > 1 && turn.moves()[0].is_capture()).count();
            }
            ControlFlow::Continue(())
        });
        assert!(decisions > 10_000, "only {decisions} decision points");
        assert!(
            multi_path_squares > 0,
            "no position with several jump paths from one square was seen"
        );
    }

    #[test]
    fn two_jump_paths_from_one_square_part_at_their_first_different_step() {
        // A Black king on 9, White men on 14, 22, 23: 9x18x25 or 9x18x27, two different results.
        let black = Bitboard::from_square(sq(9));
        let white = [14, 22, 23].into_iter().map(sq).collect::<Bitboard>();
        let pos = Position::new(black, white, black, Color::Black).unwrap();
        let mut turn = Turn::new(pos);
        let moves = turn.moves().to_vec();
        assert!(moves.len() >= 2, "expected several jump paths, got {moves:?}");
        let first = turn.legal_steps();
        assert_eq!(first.len(), 1, "all paths start with the same jump: {moves:?}");
        turn.take(first[0]).unwrap();
        let second = turn.legal_steps();
        assert!(second.len() >= 2, "the paths part at the second step: {moves:?}");
        let indices: HashSet<usize> = second.iter().map(|s| s.index_for(Color::Black)).collect();
        assert_eq!(indices.len(), second.len());
    }

    fn sq(n: u8) -> Square {
        Square::from_pdn(n).unwrap()
    }
}
