//! A decision point in compact, copyable form (what a tree node knows about the game): the
//! position before the move in progress, the steps of that move already taken, and the counters
//! the draw rules read. The move list is rebuilt from it on demand through `draughts::Turn`.

use draughts::{Bitboard, DrawRules, Game, Move, Observation, Position, Square, Step, Turn};

/// `Decision::from` at the start of a move, where it has no meaning.
const NO_FROM: Square = match Square::new(0) {
    Some(square) => square,
    None => panic!("square 0 exists"),
};

/// A decision point. 40 bytes, `Copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decision {
    /// The position before the move in progress.
    pub position: Position,
    /// Zobrist hash of `position`.
    pub hash: u64,
    /// Directions of the steps already taken in this move, two bits each, first step lowest.
    path: u32,
    /// Where the moving piece started; meaningful only when `taken > 0`.
    from: Square,
    /// Steps of the move in progress already taken (0 at the start of a move).
    pub taken: u8,
    /// How often `position` occurred before in the game (0 when new).
    pub repetitions: u8,
    /// Plies since the last capture or man's move, at `position`.
    pub no_progress: u16,
    /// Plies played in the game before `position`.
    pub ply: u16,
}

/// Why a decision point ends the game, from the view of its side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Terminal {
    /// No legal move: the side to move has lost.
    Loss,
    /// A draw by the game's draw rules.
    Draw,
    /// A position the endgame tables cover, with their exact value for the side to move. The
    /// game goes on here; only the search stops.
    Table(egdb::Wdl),
}

impl Terminal {
    /// The game value for the side to move.
    pub fn value(self) -> f32 {
        match self {
            Terminal::Loss => -1.0,
            Terminal::Draw | Terminal::Table(egdb::Wdl::Draw) => 0.0,
            Terminal::Table(egdb::Wdl::Win) => 1.0,
            Terminal::Table(egdb::Wdl::Loss) => -1.0,
        }
    }
}

impl Decision {
    /// The decision at the start of the game's next move.
    pub fn of_game(game: &Game) -> Decision {
        let position = *game.position();
        Decision {
            position,
            hash: game.hash(),
            path: 0,
            from: NO_FROM,
            taken: 0,
            repetitions: game.repetitions(),
            no_progress: game.no_progress_plies(),
            ply: u16::try_from(game.ply()).unwrap_or(u16::MAX),
        }
    }

    /// The steps already taken in the move in progress.
    fn taken_steps(&self) -> impl Iterator<Item = Step> {
        let mut at = self.from;
        let path = self.path;
        (0..self.taken as usize).map(move |i| {
            let step =
                Step { square: at, dir: draughts::Direction::from_index((path >> (2 * i)) as u8) };
            // Only captures have several steps, so every taken step is a jump.
            at = at.jump_target(step.dir).expect("a taken jump stays on the board");
            step
        })
    }

    /// The move in progress as a `Turn` (rebuilt: one move generation).
    pub fn turn(&self) -> Turn {
        let mut turn = Turn::new(self.position);
        for step in self.taken_steps() {
            turn.take(step).expect("the steps taken are legal");
        }
        turn
    }

    /// The decision after `step`, with its `Turn`. `turn` must be `self.turn()`, and `step` legal
    /// in it. The child's `repetitions` is left 0: only the caller knows the history.
    pub fn child(&self, mut turn: Turn, step: Step) -> (Decision, Turn) {
        let completed = turn.take(step).expect("the step is legal");
        match completed {
            None => {
                let from = if self.taken == 0 { step.square } else { self.from };
                let path = self.path | (step.dir as u32) << (2 * self.taken as u32);
                (Decision { path, from, taken: self.taken + 1, ..*self }, turn)
            }
            Some(mv) => {
                let position = self.position.play_unchecked(mv);
                let decision = Decision {
                    position,
                    hash: self.position.hash_after(self.hash, mv),
                    path: 0,
                    from: NO_FROM,
                    taken: 0,
                    repetitions: 0,
                    no_progress: no_progress_after(&self.position, mv, self.no_progress),
                    ply: self.ply.saturating_add(1),
                };
                (decision, Turn::new(position))
            }
        }
    }

    /// What the net sees here; `turn` must be `self.turn()`.
    pub fn observation(&self, turn: &Turn) -> Observation {
        Observation {
            position: turn.board_now(),
            moving_piece: turn.moving_piece(),
            captured_so_far: if self.taken == 0 { Bitboard::EMPTY } else { turn.captured_so_far() },
            no_progress_plies: self.no_progress,
            repetitions: self.repetitions,
        }
    }

    /// Whether the game ends here, by the same rules and in the same order as
    /// `draughts::Game::outcome` (a loss first; draws only at the start of a move).
    pub fn terminal(&self, turn: &Turn, rules: DrawRules) -> Option<Terminal> {
        if turn.is_lost() {
            return Some(Terminal::Loss);
        }
        let draw = self.taken == 0
            && ((rules.repetitions > 0 && self.repetitions + 1 >= rules.repetitions)
                || (rules.no_progress_moves > 0
                    && self.no_progress >= 2 * rules.no_progress_moves)
                || (rules.max_plies > 0 && self.ply >= rules.max_plies));
        draw.then_some(Terminal::Draw)
    }
}

/// Plies since the last capture or man's move after `mv` in `position`, where the count was
/// `before` (as `draughts::Game` keeps it).
pub(crate) fn no_progress_after(position: &Position, mv: Move, before: u16) -> u16 {
    let man_moved = position.men(position.side_to_move()).contains(mv.from());
    if mv.is_capture() || man_moved {
        0
    } else {
        before.saturating_add(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Plays random games step by step, the decisions beside a real `Game`: counters, the end of
    /// the game and the observations must agree.
    #[test]
    fn decisions_follow_the_game_step_by_step() {
        let rules = DrawRules { repetitions: 3, no_progress_moves: 10, max_plies: 120 };
        let mut rng = StdRng::seed_from_u64(3);
        for _ in 0..30 {
            let mut game = Game::new(Position::start(), rules);
            let mut decision = Decision::of_game(&game);
            let mut turn = decision.turn();
            loop {
                let outcome = game.outcome();
                assert_eq!(
                    outcome.is_some(),
                    decision.terminal(&turn, rules).is_some(),
                    "ply {}",
                    game.ply()
                );
                if outcome.is_some() {
                    break;
                }
                assert_eq!(decision.observation(&turn), game.observation_during(&turn));
                let steps = turn.legal_steps();
                let step = steps[rng.random_range(0..steps.len())];
                let (mut next, next_turn) = decision.child(turn.clone(), step);
                let completed = turn.take(step).unwrap();
                if let Some(mv) = completed {
                    game.play_unchecked(mv);
                    next.repetitions = game.repetitions();
                    assert_eq!(Decision::of_game(&game), next);
                    turn = Turn::new(*game.position());
                } else {
                    assert_eq!(next.turn().legal_steps(), turn.legal_steps());
                }
                assert_eq!(next_turn.legal_steps(), turn.legal_steps());
                decision = next;
            }
        }
    }
}
