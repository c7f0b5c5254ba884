//! The sparse net's value for an alpha-beta search, kept up to date move by move: a stack of
//! accumulators, one a position on the search path, each holding the pieces' sum in both frames
//! (Black's and White's, as NNUE engines keep one per side), so that a move adds and subtracts
//! the columns of the few pieces it changes instead of summing every piece anew. A leaf adds its
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
use smallvec::SmallVec;
use std::sync::Arc;

/// The sparse net's value along a search path (see the module's header).
#[derive(Clone, Debug)]
pub struct IncrementalNet {
    net: Arc<QuantisedNet>,
    /// Accumulator pairs, `2 · A` values each (Black's frame, then White's), one for each
    /// position of the path; `stack[..(depth + 1) · 2A]` is in use.
    stack: Vec<i16>,
    depth: usize,
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

impl IncrementalNet {
    /// An evaluator over `net` (shared with every other evaluator of the same net), its path
    /// at the start position until a search starts.
    pub fn new(net: Arc<QuantisedNet>) -> IncrementalNet {
        let mut this =
            IncrementalNet { net, stack: Vec::new(), depth: 0, scratch: IntScratch::default() };
        this.start(&Position::start());
        this
    }

    fn width(&self) -> usize {
        2 * self.net.accumulator()
    }

    /// The accumulator of the current position in `frame`'s view.
    pub fn accumulator(&self, frame: Color) -> &[i16] {
        let (a, top) = (self.net.accumulator(), self.depth * self.width());
        let offset = top + a * frame.index();
        &self.stack[offset..offset + a]
    }

    /// Sums the accumulators of `position` anew into the current slot.
    fn refresh(&mut self, position: &Position) {
        let (a, top) = (self.net.accumulator(), self.depth * self.width());
        for frame in [Color::Black, Color::White] {
            let offset = top + a * frame.index();
            let acc = &mut self.stack[offset..offset + a];
            acc.copy_from_slice(self.net.bias());
            for (color, king) in KINDS {
                for square in pieces(position, color, king) {
                    add(acc, self.net.column(feature(frame, color, king, square)));
                }
            }
        }
    }

    /// The value of `observation`'s position with its accumulators summed anew: a new path
    /// starts there (what the incremental path must always equal).
    pub fn value_of(&mut self, observation: &Observation) -> f32 {
        self.start(&observation.position);
        self.value(observation)
    }
}

#[inline]
fn add(acc: &mut [i16], column: &[i16]) {
    for (x, w) in acc.iter_mut().zip(column) {
        *x += w;
    }
}

#[inline]
fn sub(acc: &mut [i16], column: &[i16]) {
    for (x, w) in acc.iter_mut().zip(column) {
        *x -= w;
    }
}

impl LeafEvaluator for IncrementalNet {
    fn start(&mut self, root: &Position) {
        self.depth = 0;
        let width = self.width();
        self.stack.resize(width, 0);
        self.refresh(root);
    }

    fn push(&mut self, parent: &Position, child: &Position) {
        let (a, width) = (self.net.accumulator(), self.width());
        let from = self.depth * width;
        self.depth += 1;
        if self.stack.len() < from + 2 * width {
            self.stack.resize(from + 2 * width, 0);
        }
        // The pieces the move changed: at most the mover's piece and twelve captured ones.
        let mut removed: SmallVec<[(Color, bool, Square); 16]> = SmallVec::new();
        let mut added: SmallVec<[(Color, bool, Square); 2]> = SmallVec::new();
        for (color, king) in KINDS {
            let (before, after) = (pieces(parent, color, king), pieces(child, color, king));
            removed.extend((before & !after).map(|square| (color, king, square)));
            added.extend((after & !before).map(|square| (color, king, square)));
        }
        let (parents, children) = self.stack.split_at_mut(from + width);
        for frame in [Color::Black, Color::White] {
            let offset = a * frame.index();
            let old = &parents[from + offset..from + offset + a];
            let new = &mut children[offset..offset + a];
            let column = |&(color, king, square): &(Color, bool, Square)| {
                self.net.column(feature(frame, color, king, square))
            };
            // The first change of each kind is made while copying the parent's accumulator.
            match (removed.first().map(column), added.first().map(column)) {
                (Some(out), Some(into)) => {
                    for (((y, x), o), i) in new.iter_mut().zip(old).zip(out).zip(into) {
                        *y = x - o + i;
                    }
                }
                _ => new.copy_from_slice(old),
            }
            let skip = usize::from(!removed.is_empty() && !added.is_empty());
            for change in removed.iter().skip(skip) {
                sub(new, column(change));
            }
            for change in added.iter().skip(skip) {
                add(new, column(change));
            }
        }
    }

    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn value(&mut self, observation: &Observation) -> f32 {
        let frame = observation.position.side_to_move();
        let (a, top) = (self.net.accumulator(), self.depth * self.width());
        let offset = top + a * frame.index();
        let counters = features::counters(observation);
        let logits =
            self.net.wdl_logits(&self.stack[offset..offset + a], &counters, &mut self.scratch);
        let [win, _, loss] = wdl_of_logits(logits);
        win - loss
    }

    fn move_scores(&mut self, position: &Position, moves: &[Move], scores: &mut Vec<f32>) -> bool {
        let frame = position.side_to_move();
        let steps = moves.iter().map(|mv| mv.steps().next().map_or(0, |s| s.index_for(frame)));
        let (a, top) = (self.net.accumulator(), self.depth * self.width());
        let pieces = &self.stack[top + a * frame.index()..][..a];
        scores.clear();
        self.net.policy_logits(pieces, steps, &mut self.scratch, scores);
        true
    }
}

#[cfg(test)]
mod tests;
