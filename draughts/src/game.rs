//! A game in progress: move history, draw rules, and the outcome with its reason.

use crate::bitboard::Bitboard;
use crate::moves::Move;
use crate::position::Position;
use crate::square::{Color, Square};
use crate::turn::Turn;

/// Draw rules. The rule text names none; these are tournament practice plus a cap for self-play.
/// A value of 0 turns a rule off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRules {
    /// The same position (same side to move) reached this many times is a draw. ACF: 3.
    pub repetitions: u8,
    /// This many moves *by each side* without a capture or a man's move is a draw. ACF: 40.
    pub no_progress_moves: u16,
    /// A hard cap on the game length in plies (for self-play).
    pub max_plies: u16,
}

impl Default for DrawRules {
    fn default() -> Self {
        DrawRules { repetitions: 3, no_progress_moves: 40, max_plies: 400 }
    }
}

impl DrawRules {
    /// These rules with the one that `reason` names turned off (for play that goes on past it).
    pub fn without(self, reason: DrawReason) -> DrawRules {
        match reason {
            DrawReason::Repetition => DrawRules { repetitions: 0, ..self },
            DrawReason::NoProgress => DrawRules { no_progress_moves: 0, ..self },
            DrawReason::PlyCap => DrawRules { max_plies: 0, ..self },
        }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `winner` won: the other side has no pieces or no legal move.
    Win {
        /// The side that won.
        winner: Color,
        /// Why the loser lost.
        reason: WinReason,
    },
    /// A draw by one of the [`DrawRules`].
    Draw(DrawReason),
}

/// Why a game was won.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinReason {
    /// The loser has no pieces left.
    NoPieces,
    /// The loser's pieces are all blocked.
    NoMoves,
}

/// Why a game was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// The same position with the same side to move occurred [`DrawRules::repetitions`] times.
    Repetition,
    /// [`DrawRules::no_progress_moves`] moves by each side without a capture or a man's move.
    NoProgress,
    /// The game reached [`DrawRules::max_plies`] plies.
    PlyCap,
}

impl Outcome {
    /// The result from `color`'s point of view: 1 win, 0 draw, -1 loss.
    pub fn score_for(self, color: Color) -> i8 {
        match self {
            Outcome::Win { winner, .. } if winner == color => 1,
            Outcome::Win { .. } => -1,
            Outcome::Draw(_) => 0,
        }
    }
}

/// Everything the learner sees at a decision point: the board (with a capture in progress, if
/// any) and the counters the draw rules read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Observation {
    /// The board as it stands: during a capture in progress the moving piece stands on
    /// `moving_piece` and the pieces it jumped are still on the board ([`Turn::board_now`]).
    pub position: Position,
    /// Where the capturing piece stands mid-capture; `None` at the start of a move.
    pub moving_piece: Option<Square>,
    /// Pieces jumped so far in the capture in progress (still on the board).
    pub captured_so_far: Bitboard,
    /// Plies since the last capture or man's move.
    pub no_progress_plies: u16,
    /// How often the position occurred before (0 when new).
    pub repetitions: u8,
}

impl Observation {
    /// The view of `position` at the start of a move (no capture in progress), with its
    /// no-progress count and repetitions so far.
    pub fn at_move_start(
        position: Position,
        no_progress_plies: u16,
        repetitions: u8,
    ) -> Observation {
        Observation {
            position,
            moving_piece: None,
            captured_so_far: Bitboard::EMPTY,
            no_progress_plies,
            repetitions,
        }
    }

    /// The six piece groups every net encodes, in the board's own frame: the side to move's men
    /// and kings, the opponent's men and kings, the capturing piece (mid-capture) and the pieces
    /// it jumped so far.
    pub fn piece_groups(&self) -> [Bitboard; 6] {
        let pos = &self.position;
        let mover = pos.side_to_move();
        let them = mover.other();
        [
            pos.men(mover),
            pos.kings(mover),
            pos.men(them),
            pos.kings(them),
            self.moving_piece.into_iter().collect(),
            self.captured_so_far,
        ]
    }
}

/// A game from a start position, with its history and draw rules.
#[derive(Clone, Debug)]
pub struct Game {
    rules: DrawRules,
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// Hash of each position reached, the start included (`hashes.len() == moves.len() + 1`).
    hashes: Vec<u64>,
    /// For each position reached, plies since the last capture or man's move.
    no_progress: Vec<u16>,
}

/// A move that is not legal in the game's position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{mv} is not a legal move in this position")]
pub struct IllegalMove {
    /// The refused move.
    pub mv: Move,
}

impl Game {
    /// A game from `start` (any position, not only the initial one) under `rules`.
    pub fn new(start: Position, rules: DrawRules) -> Game {
        Game {
            rules,
            start,
            position: start,
            moves: Vec::new(),
            hashes: vec![start.hash()],
            no_progress: vec![0],
        }
    }

    /// The same game, its start and its moves, under `rules` instead.
    pub fn under(&self, rules: DrawRules) -> Game {
        let mut game = Game::new(self.start, rules);
        for &mv in &self.moves {
            game.play_unchecked(mv);
        }
        game
    }

    /// The current position.
    #[inline]
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The position the game started from.
    #[inline]
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The draw rules the game is played under.
    #[inline]
    pub fn rules(&self) -> DrawRules {
        self.rules
    }

    /// The moves played from the start position, in order.
    #[inline]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Plies played.
    #[inline]
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// Zobrist hash of the current position (see [`Position::hash`]).
    #[inline]
    pub fn hash(&self) -> u64 {
        *self.hashes.last().expect("a game has a start position")
    }

    /// Plies since the last capture or man's move.
    #[inline]
    pub fn no_progress_plies(&self) -> u16 {
        *self.no_progress.last().expect("a game has a start position")
    }

    /// How often the current position occurred before in this game.
    pub fn repetitions(&self) -> u8 {
        let hash = self.hash();
        // Only positions since the last irreversible move can repeat.
        let window = self.no_progress_plies() as usize + 1;
        let n = self
            .hashes
            .iter()
            .rev()
            .take(window)
            .skip(2)
            .step_by(2)
            .filter(|&&h| h == hash)
            .count();
        n.min(u8::MAX as usize) as u8
    }

    /// The learner's view of the current position at the start of a move.
    pub fn observation(&self) -> Observation {
        Observation::at_move_start(self.position, self.no_progress_plies(), self.repetitions())
    }

    /// The learner's view in the middle of `turn`, a move in progress from the current position.
    pub fn observation_during(&self, turn: &Turn) -> Observation {
        Observation {
            position: turn.board_now(),
            moving_piece: turn.moving_piece(),
            captured_so_far: turn.captured_so_far(),
            ..self.observation()
        }
    }

    /// Plays a legal move.
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        if !self.position.legal_moves().contains(&mv) {
            return Err(IllegalMove { mv });
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// Plays a move known to be legal (generated from this position).
    pub fn play_unchecked(&mut self, mv: Move) {
        let man_moved = self.position.men(self.position.side_to_move()).contains(mv.from());
        let progress = if mv.is_capture() || man_moved {
            0
        } else {
            self.no_progress_plies().saturating_add(1)
        };
        self.hashes.push(self.position.hash_after(self.hash(), mv));
        self.no_progress.push(progress);
        self.position = self.position.play_unchecked(mv);
        self.moves.push(mv);
    }

    /// The outcome, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        let side = self.position.side_to_move();
        if self.position.pieces(side).is_empty() {
            return Some(Outcome::Win { winner: side.other(), reason: WinReason::NoPieces });
        }
        if self.position.is_lost() {
            return Some(Outcome::Win { winner: side.other(), reason: WinReason::NoMoves });
        }
        let rules = self.rules;
        if rules.repetitions > 0 && self.repetitions() + 1 >= rules.repetitions {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        if rules.no_progress_moves > 0 && self.no_progress_plies() >= 2 * rules.no_progress_moves {
            return Some(Outcome::Draw(DrawReason::NoProgress));
        }
        if rules.max_plies > 0 && self.ply() >= rules.max_plies as usize {
            return Some(Outcome::Draw(DrawReason::PlyCap));
        }
        None
    }
}
