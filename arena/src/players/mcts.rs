//! The MCTS player: the search crate's PUCT search over an evaluator, no root noise, the most
//! visited step at each decision of its move; the tree is kept from move to move.

use crate::error::ArenaError;
use crate::player::{Choice, Player};
use draughts::{Game, Move, Position, Step, Turn};
use search::{Budget, Evaluator, MctsConfig, Search, SearchError};
use std::time::{Duration, Instant};

/// How much each decision searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Thinking {
    /// Root visits (a reused subtree's visits count).
    Playouts(u32),
    /// Wall time per decision (a multi-jump is several decisions).
    Time(Duration),
}

/// Visits added per round when searching for a time.
const VISITS_PER_ROUND: u32 = 32;

/// A net with PUCT search: plays the most visited step, keeping the subtree between moves.
pub struct MctsPlayer<E> {
    name: String,
    evaluator: E,
    config: MctsConfig,
    thinking: Thinking,
    seed: u64,
    /// The search from the last move, and the game ply its root stands at.
    kept: Option<(Search, usize)>,
}

impl<E: Evaluator + Send> MctsPlayer<E> {
    /// A player named `name` that searches with `evaluator` for `thinking` per decision, without
    /// root noise; `seed` drives the search's tie-breaks.
    pub fn new(name: String, evaluator: E, thinking: Thinking, seed: u64) -> MctsPlayer<E> {
        // A player: no exploration noise; the most visited step is played.
        let config = MctsConfig { dirichlet_fraction: 0.0, ..MctsConfig::default() };
        MctsPlayer { name, evaluator, config, thinking, seed, kept: None }
    }

    fn failed(&self, game: &Game, error: SearchError) -> ArenaError {
        ArenaError::PlayerFailed {
            player: self.name.clone(),
            ply: game.ply(),
            source: error.into(),
        }
    }

    /// A search rooted at `game`'s position: the kept tree advanced over the moves since, or a new one.
    fn search_for(&mut self, game: &Game) -> Result<Search, SearchError> {
        if let Some((mut search, ply)) = self.kept.take() {
            if let Some(since) = game.moves().get(ply..) {
                if since.iter().try_for_each(|&mv| search.advance_move(mv)).is_ok() {
                    return Ok(search);
                }
            }
        }
        Search::new(&self.config, game, self.seed.wrapping_add(game.ply() as u64))
    }

    fn think(&mut self, search: &mut Search) -> Result<(), SearchError> {
        match self.thinking {
            Thinking::Playouts(visits) => {
                search.run(&mut self.evaluator, Budget { visits, root_noise: false })
            }
            Thinking::Time(time) => {
                let deadline = Instant::now() + time;
                while Instant::now() < deadline {
                    let visits = search.root_visits() + VISITS_PER_ROUND;
                    search.run(&mut self.evaluator, Budget { visits, root_noise: false })?;
                }
                Ok(())
            }
        }
    }
}

impl<E: Evaluator + Send> Player for MctsPlayer<E> {
    fn choose(&mut self, game: &Game) -> Result<Choice, ArenaError> {
        let mut search = self.search_for(game).map_err(|e| self.failed(game, e))?;
        let mut turn = Turn::new(*game.position());
        let mut first: Option<(f32, Vec<Move>)> = None;
        loop {
            self.think(&mut search).map_err(|e| self.failed(game, e))?;
            if first.is_none() {
                let result = search.result();
                first = Some((
                    result.value,
                    moves_of_steps(*game.position(), &result.principal_variation),
                ));
            }
            let step = search.choose_step(0.0).expect("a game in progress has a legal step");
            search.advance(step).map_err(|e| self.failed(game, e))?;
            if let Some(mv) = turn.take(step).expect("the search's steps are legal") {
                self.kept = Some((search, game.ply() + 1));
                let (value, pv) = first.expect("searched at least once");
                return Ok(Choice { mv, value: Some(value), pv });
            }
        }
    }
}

/// The whole moves a line of steps from `position` makes (a move cut short at the end is dropped).
fn moves_of_steps(position: Position, steps: &[Step]) -> Vec<Move> {
    let mut turn = Turn::new(position);
    let mut moves = Vec::new();
    for &step in steps {
        match turn.take(step) {
            Ok(Some(mv)) => {
                moves.push(mv);
                turn = Turn::new(turn.position().play_unchecked(mv));
            }
            Ok(None) => {}
            Err(_) => break,
        }
    }
    moves
}
