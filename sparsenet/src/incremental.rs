//! The sparse net's value for an alpha-beta search, kept up to date move by move: a stack of
//! accumulators, one a position on the search path, each holding the pieces' sum in both frames
//! (Black's and White's, as NNUE engines keep one per side), so that a move adds and subtracts
//! the columns of the few pieces it changes instead of summing every piece anew. The update is
//! lazy and frame by frame: a move only records the positions it joins, and a position's
//! accumulator in the frame it is evaluated in is brought up to date (from its nearest ancestor's
//! that is) when it is evaluated; so a leaf, the most common node, updates one frame, not two,
//! and a position the search enters and leaves without evaluating updates none. A leaf adds its
//! counters (no-progress bucket, repetitions) and runs the integer layers of [`QuantisedNet`].
//!
//! In the frame of side `p`, a piece of colour `c` on square `s` is feature
//! `32 · group + s'`, with `group` 0/1 for `p`'s men/kings, 2/3 for the opponent's, and `s'` the
//! square as `p` sees it (turned 180 degrees for White), exactly as [`crate::features::active`]
//! numbers them for the side to move.

use crate::features;
use crate::forward::wdl_of_logits;
use crate::quantised::{IntScratch, QuantisedNet};
use draughts::{Bitboard, Color, Move, Observation, Position, Square};
use search::alphabeta::LeafEvaluator;
use std::sync::Arc;

/// The sparse net's value along a search path (see the module's header).
#[derive(Clone, Debug)]
pub struct IncrementalNet {
    net: Arc<QuantisedNet>,
    /// Accumulator pairs, `2 · A` values each (Black's frame, then White's), one for each
    /// position of the path; `stack[..(depth + 1) · 2A]` is in use, and in frame `f` the
    /// accumulators of the positions `0..=current[f]` are up to date.
    stack: Vec<i16>,
    /// `moves[d]`: the positions joined by the move into the path's position `d` (its parent,
    /// itself), for `1 <= d <= depth`.
    moves: Vec<(Position, Position)>,
    depth: usize,
    /// For each frame, the deepest position of the path whose accumulator is up to date (at most
    /// `depth`).
    current: [usize; 2],
    scratch: IntScratch,
}

/// The pieces of one colour and kind: which frame group they are in for each side.
const KINDS: [(Color, bool); 4] =
    [(Color::Black, false), (Color::Black, true), (Color::White, false), (Color::White, true)];

fn pieces(position: &Position, color: Color, king: bool) -> Bitboard {
    if king {
        position.kings(color)
    } else {
        position.men(color)
    }
}

/// The feature of a piece of `color` (a king or not) on `square` in `frame`'s view.
#[inline]
fn feature(frame: Color, color: Color, king: bool, square: Square) -> usize {
    let group = 2 * usize::from(color != frame) + usize::from(king);
    let square = if frame == Color::White { square.flipped() } else { square };
    32 * group + square.index()
}

/// The pieces a move changed, as features in one frame: at most the mover's piece and twelve
/// captured ones removed, and the mover's piece (a man, or a king when it was crowned) added.
struct Changes {
    removed: [u16; 13],
    added: [u16; 1],
    removed_count: usize,
    added_count: usize,
}

impl Changes {
    /// What changed from `parent` to `child`, one move apart, in `frame`'s view.
    #[inline]
    fn between(parent: &Position, child: &Position, frame: Color) -> Changes {
        let mut changes =
            Changes { removed: [0; 13], added: [0; 1], removed_count: 0, added_count: 0 };
        for (color, king) in KINDS {
            let (before, after) = (pieces(parent, color, king), pieces(child, color, king));
            for square in before & !after {
                changes.removed[changes.removed_count] = feature(frame, color, king, square) as u16;
                changes.removed_count += 1;
            }
            for square in after & !before {
                changes.added[changes.added_count] = feature(frame, color, king, square) as u16;
                changes.added_count += 1;
            }
        }
        changes
    }

    /// The features removed.
    fn removed(&self) -> &[u16] {
        &self.removed[..self.removed_count]
    }

    /// The features added.
    fn added(&self) -> &[u16] {
        &self.added[..self.added_count]
    }
}

impl IncrementalNet {
    /// An evaluator over `net` (shared with every other evaluator of the same net), its path
    /// at the start position until a search starts.
    pub fn new(net: Arc<QuantisedNet>) -> IncrementalNet {
        let mut this = IncrementalNet {
            net,
            stack: Vec::new(),
            moves: Vec::new(),
            depth: 0,
            current: [0; 2],
            scratch: IntScratch::default(),
        };
        this.start(&Position::start());
        this
    }

    fn width(&self) -> usize {
        2 * self.net.accumulator()
    }

    /// Where the accumulator of the current position in `frame`'s view lies in the stack, brought
    /// up to date: each position after the last up-to-date one gets its parent's with the move's
    /// changes.
    fn accumulator(&mut self, frame: Color) -> std::ops::Range<usize> {
        let (a, width) = (self.net.accumulator(), self.width());
        let offset = a * frame.index();
        let current = &mut self.current[frame.index()];
        while *current < self.depth {
            let from = *current * width + offset;
            *current += 1;
            let (parent, child) = &self.moves[*current];
            let changes = Changes::between(parent, child, frame);
            let (parents, children) = self.stack.split_at_mut(from + width);
            self.net.update(
                &parents[from..from + a],
                &mut children[..a],
                changes.removed(),
                changes.added(),
            );
        }
        let offset = self.depth * width + offset;
        offset..offset + a
    }

    /// Sums the accumulators of `position` anew into the current slot: the bias with every
    /// piece's column added.
    fn refresh(&mut self, position: &Position) {
        let (a, top) = (self.net.accumulator(), self.depth * self.width());
        for frame in [Color::Black, Color::White] {
            // A piece a square: a position read from text may hold more than a game reaches.
            let mut features = [0u16; Square::COUNT];
            let mut count = 0;
            for (color, king) in KINDS {
                for square in pieces(position, color, king) {
                    features[count] = feature(frame, color, king, square) as u16;
                    count += 1;
                }
            }
            let offset = top + a * frame.index();
            let acc = &mut self.stack[offset..offset + a];
            self.net.update(self.net.bias(), acc, &[], &features[..count]);
        }
    }

    /// The value of `observation`'s position with its accumulators summed anew: a new path
    /// starts there (what the incremental path must always equal).
    pub fn value_of(&mut self, observation: &Observation) -> f32 {
        self.start(&observation.position);
        self.value(observation)
    }
}

impl LeafEvaluator for IncrementalNet {
    fn start(&mut self, root: &Position) {
        (self.depth, self.current) = (0, [0; 2]);
        let width = self.width();
        self.stack.resize(width, 0);
        self.refresh(root);
    }

    fn push(&mut self, parent: &Position, child: &Position) {
        self.depth += 1;
        let width = self.width();
        if self.stack.len() < (self.depth + 1) * width {
            self.stack.resize((self.depth + 1) * width, 0);
        }
        if self.moves.len() <= self.depth {
            self.moves.resize(self.depth + 1, (*parent, *child));
        }
        self.moves[self.depth] = (*parent, *child);
    }

    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        for current in &mut self.current {
            *current = (*current).min(self.depth);
        }
    }

    fn value(&mut self, observation: &Observation) -> f32 {
        let counters = features::counters(observation);
        let pieces = self.accumulator(observation.position.side_to_move());
        let material = observation.position.occupied().count() as usize;
        let logits =
            self.net.wdl_logits(&self.stack[pieces], &counters, material, &mut self.scratch);
        let [win, _, loss] = wdl_of_logits(logits);
        win - loss
    }

    fn move_scores(&mut self, position: &Position, moves: &[Move], scores: &mut Vec<f32>) -> bool {
        let frame = position.side_to_move();
        let steps = moves.iter().map(|mv| mv.steps().next().map_or(0, |s| s.index_for(frame)));
        let pieces = self.accumulator(frame);
        scores.clear();
        self.net.policy_logits(&self.stack[pieces], steps, &mut self.scratch, scores);
        true
    }
}

#[cfg(test)]
mod tests;
