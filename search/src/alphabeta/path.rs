//! The line from the game's start to the node being searched: each position's hash (for
//! repetitions), its no-progress count (for the 40-move rule), and whether each move of the search
//! itself was a capture (for extensions).

use crate::decision::no_progress_after;
use draughts::{DrawRules, Game, Move, Observation, Position};

/// The game's positions and then the search's, one entry a ply.
#[derive(Debug, Default)]
pub(super) struct SearchPath {
    /// Hashes of the positions; `hashes[i]` is the position `i` plies after the game's start.
    hashes: Vec<u64>,
    /// Plies since the last capture or man's move, for each entry of `hashes`.
    no_progress: Vec<u16>,
    /// Whether each move of the search (from the root) was a capture.
    captures: Vec<bool>,
    rules: DrawRules,
}

impl SearchPath {
    /// The path of `game`, up to its position: the root of a search.
    pub(super) fn start(&mut self, game: &Game) {
        self.rules = game.rules();
        self.hashes.clear();
        self.no_progress.clear();
        self.captures.clear();
        let mut replay = Game::new(*game.start(), game.rules());
        self.hashes.push(replay.hash());
        self.no_progress.push(replay.no_progress_plies());
        for &mv in game.moves() {
            replay.play_unchecked(mv);
            self.hashes.push(replay.hash());
            self.no_progress.push(replay.no_progress_plies());
        }
    }

    /// The search plays `mv` from `position` (hash `hash`), the path's last position.
    pub(super) fn push(&mut self, position: &Position, hash: u64, mv: Move) {
        let last = self.no_progress();
        self.no_progress.push(no_progress_after(position, mv, last));
        self.hashes.push(position.hash_after(hash, mv));
        self.captures.push(mv.is_capture());
    }

    /// The search takes its last move back.
    pub(super) fn pop(&mut self) {
        self.hashes.pop();
        self.no_progress.pop();
        self.captures.pop();
    }

    /// The hash of the path's last position.
    pub(super) fn hash(&self) -> u64 {
        *self.hashes.last().expect("the path starts with the game's start")
    }

    fn no_progress(&self) -> u16 {
        *self.no_progress.last().expect("the path starts with the game's start")
    }

    /// Whether the search's last move was a capture (`false` at the root).
    pub(super) fn reached_by_capture(&self) -> bool {
        self.captures.last().copied().unwrap_or(false)
    }

    /// Whether the path's last position is a draw: it occurred before (one repetition is enough
    /// inside the search) or the no-progress rule applies.
    pub(super) fn is_draw(&self) -> bool {
        let moves = self.rules.no_progress_moves;
        if moves > 0 && self.no_progress() >= 2 * moves {
            return true;
        }
        self.rules.repetitions > 0 && self.earlier_occurrences().next().is_some()
    }

    /// The earlier occurrences on the path of its last position (as `draughts::Game::repetitions`
    /// counts them: same side to move, since the last irreversible move).
    fn earlier_occurrences(&self) -> impl Iterator<Item = &u64> {
        let hash = self.hash();
        self.hashes
            .iter()
            .rev()
            .take(self.no_progress() as usize + 1)
            .skip(2)
            .step_by(2)
            .filter(move |&&h| h == hash)
    }

    /// What a net sees at `position`, the path's last position, at the start of a move: its
    /// no-progress count and repetitions from the game and the search path.
    pub(super) fn observation(&self, position: &Position) -> Observation {
        let repetitions = u8::try_from(self.earlier_occurrences().count()).unwrap_or(u8::MAX);
        Observation::at_move_start(*position, self.no_progress(), repetitions)
    }
}
