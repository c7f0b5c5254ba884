//! A move taken one step at a time: the decision points the learner and the search see.
//!
//! A simple move is one step; a capture is one step per jump, the same piece going on until the
//! capture is complete. Each step is a (square, direction) pair, so every legal move is a distinct
//! sequence of steps, and at each decision point the legal steps are distinct.

use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveList, Step, StepList};
use crate::position::Position;
use crate::square::Square;

/// A move in progress: the position before the move, the legal moves still consistent with the
/// steps taken so far, and how many steps were taken.
#[derive(Clone, Debug)]
pub struct Turn {
    position: Position,
    moves: MoveList,
    taken: usize,
}

/// A step that no legal move continues with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no legal move continues with a step from square {} towards {:?}", .0.square, .0.dir)]
pub struct IllegalStep(pub Step);

impl Turn {
    /// The start of a move in `position`.
    pub fn new(position: Position) -> Turn {
        Turn { moves: position.legal_moves(), position, taken: 0 }
    }

    /// The position before this move.
    #[inline]
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Legal moves consistent with the steps taken so far.
    #[inline]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Steps of the current move taken so far (0 before its first step).
    #[inline]
    pub fn steps_taken(&self) -> usize {
        self.taken
    }

    /// Whether no legal move exists (the side to move has lost).
    #[inline]
    pub fn is_lost(&self) -> bool {
        self.moves.is_empty()
    }

    /// Where the moving piece stands while a capture is in progress.
    pub fn moving_piece(&self) -> Option<Square> {
        if self.taken == 0 {
            return None;
        }
        self.moves.first().and_then(|mv| mv.squares().nth(self.taken))
    }

    /// The board as it stands now: during a capture the moving piece is on its current square
    /// (same kind), and the pieces it jumped are still on the board. The side to move is unchanged.
    pub fn board_now(&self) -> Position {
        match (self.moves.first(), self.moving_piece()) {
            (Some(mv), Some(at)) => self.position.relocated(mv.from(), at),
            _ => self.position,
        }
    }

    /// Pieces captured so far in a capture in progress (still on the board until the move ends).
    pub fn captured_so_far(&self) -> Bitboard {
        match self.moves.first() {
            Some(mv) if mv.is_capture() => mv
                .steps()
                .take(self.taken)
                .map(|s| s.square.neighbour(s.dir).expect("a jump passes over a square"))
                .collect(),
            _ => Bitboard::EMPTY,
        }
    }

    /// The distinct legal next steps, in move-generation order.
    pub fn legal_steps(&self) -> StepList {
        let mut steps = StepList::new();
        for mv in &self.moves {
            let step = mv.steps().nth(self.taken).expect("an unfinished move has a next step");
            if !steps.contains(&step) {
                steps.push(step);
            }
        }
        steps
    }

    /// Takes one step. Returns the completed move when this step finishes it.
    pub fn take(&mut self, step: Step) -> Result<Option<Move>, IllegalStep> {
        let taken = self.taken;
        let continues = |mv: &Move| mv.steps().nth(taken) == Some(step);
        if !self.moves.iter().any(continues) {
            return Err(IllegalStep(step));
        }
        self.moves.retain(|mv| continues(mv));
        self.taken += 1;
        let done = self.moves.iter().find(|mv| mv.step_count() == self.taken).copied();
        Ok(done)
    }
}
