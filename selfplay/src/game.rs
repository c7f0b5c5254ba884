//! One self-play game driven step-wise, so a worker can keep many in flight and evaluate their
//! leaves in one batch. Single-step decisions are played without search; each searched decision
//! is recorded for training. With endgame tables the searches take the positions they cover as
//! exact leaves, and the game may be adjudicated at the first such position
//! ([`SelfPlayGame::with_tables`]).

use crate::resign::ResignationWatch;
use draughts::{Game, Step, Turn};
use egdb::Tables;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use search::{
    table_winner, DecisionRecord, EvalRequest, Evaluation, Evaluator, GameEnd, GameRecord,
    MctsConfig, Search, SearchError,
};
use std::sync::Arc;

/// Mixed into the game's seed for the driver's own draws, so they differ from the search's.
const DRIVER_SEED_SALT: u64 = 0x5E1F_91A7_0000_0001;

/// A self-play game in progress with its search.
///
/// Drive it with [`SelfPlayGame::select_leaves`] and [`SelfPlayGame::apply`] (many games per
/// batch), or [`SelfPlayGame::play`] alone; take the record with [`SelfPlayGame::into_record`].
#[derive(Clone, Debug)]
pub struct SelfPlayGame {
    game: Game,
    turn: Turn,
    search: Search,
    rng: StdRng,
    /// Whether the current decision gets a full search (playout-cap randomisation).
    full_search: bool,
    decisions: Vec<DecisionRecord>,
    resignation: ResignationWatch,
    end: Option<GameEnd>,
    /// Tables that end the game at the first position they cover (with `adjudicate`).
    adjudicator: Option<Arc<Tables>>,
}

impl SelfPlayGame {
    /// Starts a game from `game` (usually a fresh `Game`, or an opening). `seed` drives every
    /// random choice of this game. Fails when the game is already over.
    pub fn new(config: &MctsConfig, game: Game, seed: u64) -> Result<SelfPlayGame, SearchError> {
        SelfPlayGame::with_tables(config, game, seed, None, None)
    }

    /// [`SelfPlayGame::new`] with endgame tables: the searches take the positions `search_tables`
    /// cover as exact leaves (see [`Search::with_tables`]), and the game ends at the first
    /// position at the start of a move that `adjudicator` covers, with its result
    /// ([`GameEnd::Tables`]; the rules' own end comes first).
    pub fn with_tables(
        config: &MctsConfig,
        game: Game,
        seed: u64,
        search_tables: Option<Arc<Tables>>,
        adjudicator: Option<Arc<Tables>>,
    ) -> Result<SelfPlayGame, SearchError> {
        let search = Search::new(config, &game, seed)?.with_tables(search_tables);
        let mut rng = StdRng::seed_from_u64(seed ^ DRIVER_SEED_SALT);
        let resignation_allowed = rng.random::<f32>() >= config.resignation.disabled_share;
        let mut this = SelfPlayGame {
            turn: Turn::new(*game.position()),
            game,
            search,
            rng,
            full_search: true,
            decisions: Vec::new(),
            resignation: ResignationWatch::new(&config.resignation, resignation_allowed),
            end: None,
            adjudicator,
        };
        this.adjudicate();
        this.play_forced_steps()?;
        this.begin_decision();
        Ok(this)
    }

    /// The game so far.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Appends up to `max_leaves` requests for the current decision; plays every decision whose
    /// search is complete first. Returns the number appended; 0 only when the game has ended.
    /// The evaluations go to [`SelfPlayGame::apply`], in order, before the next call.
    pub fn select_leaves(
        &mut self,
        max_leaves: usize,
        requests: &mut Vec<EvalRequest>,
    ) -> Result<usize, SearchError> {
        while self.end.is_none() {
            let added = self.search.select_leaves(max_leaves, requests);
            if added > 0 {
                return Ok(added);
            }
            self.commit_decision()?;
        }
        Ok(0)
    }

    /// Backs up the evaluations of the last [`SelfPlayGame::select_leaves`].
    pub fn apply(&mut self, evaluations: &[Evaluation]) -> Result<(), SearchError> {
        self.search.apply(evaluations)
    }

    /// Plays the game to its end with `evaluator`, `leaves_per_batch` leaves per call.
    pub fn play(mut self, evaluator: &mut impl Evaluator) -> Result<GameRecord, SearchError> {
        let batch = self.search.config().leaves_per_batch as usize;
        let mut requests = Vec::with_capacity(batch);
        while self.select_leaves(batch, &mut requests)? > 0 {
            let evaluations = evaluator.evaluate(&requests)?;
            self.apply(&evaluations)?;
            requests.clear();
        }
        Ok(self.into_record().expect("the game has ended"))
    }

    /// The finished game's record, results filled in; `None` while the game goes on.
    pub fn into_record(self) -> Option<GameRecord> {
        let end = self.end?;
        let final_ply = self.game.ply() as u32;
        let mut decisions = self.decisions;
        for decision in &mut decisions {
            decision.result = end.score_for(decision.observation.position.side_to_move());
            decision.plies_to_end = final_ply - decision.ply;
        }
        Some(GameRecord {
            start: *self.game.start(),
            moves: self.game.moves().to_vec(),
            end,
            decisions,
            resignation: self.resignation.record(),
        })
    }

    /// Records the finished search, checks resignation, plays the chosen step and the forced
    /// steps after it, and starts the next decision.
    fn commit_decision(&mut self) -> Result<(), SearchError> {
        let mut result = self.search.result();
        let config = self.search.config();
        // Forced playouts ran only where the root had noise (see the search's `Search::descend`).
        if config.forced_playouts > 0.0 && config.budget(self.full_search).root_noise {
            result.prune_forced_playouts(config.c_puct, config.forced_playouts);
        }
        let mover = self.game.position().side_to_move();
        let ply = self.game.ply() as u32;
        self.decisions.push(DecisionRecord {
            observation: self.game.observation_during(&self.turn),
            policy: result.policy_target(),
            search_value: result.value,
            full_search: self.full_search,
            ply,
            result: 0,
            plies_to_end: 0,
        });
        if self.resignation.observe(mover, result.value, ply) {
            self.end = Some(GameEnd::Resigned { loser: mover });
            return Ok(());
        }
        let temperature = self.search.config().temperature.at(self.game.ply());
        let step = self.search.choose_step(temperature).expect("a searched root has legal steps");
        self.take(step)?;
        self.play_forced_steps()?;
        self.begin_decision();
        Ok(())
    }

    fn begin_decision(&mut self) {
        let config = self.search.config();
        self.full_search = self.rng.random::<f32>() < config.playout_cap.full_probability;
        let budget = config.budget(self.full_search);
        self.search.begin(budget);
    }

    /// Plays single legal steps until a real choice or the end of the game.
    fn play_forced_steps(&mut self) -> Result<(), SearchError> {
        while self.end.is_none() {
            let steps = self.turn.legal_steps();
            if steps.len() != 1 {
                break;
            }
            self.take(steps[0])?;
        }
        Ok(())
    }

    /// Takes `step` in the game and the search; ends the game when the rules say so.
    fn take(&mut self, step: Step) -> Result<(), SearchError> {
        let completed = self.turn.take(step).map_err(|_| SearchError::IllegalStep { step })?;
        if let Some(mv) = completed {
            self.game.play_unchecked(mv);
            self.turn = Turn::new(*self.game.position());
            if let Some(outcome) = self.game.outcome() {
                self.end = Some(GameEnd::Played(outcome));
                return Ok(());
            }
            if self.adjudicate() {
                return Ok(());
            }
        }
        self.search.advance(step)
    }

    /// Ends the game by the tables' result when they cover its position; whether they did.
    fn adjudicate(&mut self) -> bool {
        let Some(tables) = self.adjudicator.as_deref() else { return false };
        let Some(winner) = table_winner(tables, self.game.position()) else { return false };
        self.end = Some(GameEnd::Tables { winner });
        true
    }
}

#[cfg(test)]
mod tests;
