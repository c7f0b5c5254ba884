//! The MCTS player: the search crate's PUCT search over an evaluator, no root noise, the most
//! visited step at each decision of its move (or one drawn at its `move_temperature`); the tree is
//! kept from move to move.

use crate::error::ArenaError;
use crate::player::{Choice, Player};
use draughts::{Game, Move, Position, Step, Turn};
use egdb::{Tables, Wdl};
use search::{
    table_probe, Budget, Evaluator, MctsConfig, MoveBudget, Outlook, Progress, RootMove, Score,
    Search, SearchControl, SearchError, TemperatureSchedule, ThinkRequest,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How much each decision searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Thinking {
    /// Root visits (a reused subtree's visits count).
    Playouts(u32),
    /// Wall time per move (the decisions of a multi-jump share it).
    Time(Duration),
}

/// A net player's root visits a decision when neither its spec nor the match names a budget
/// (`mcts:NET` without `:PLAYOUTS`, and no `--time`): the one default of every net player.
pub const PLAYER_PLAYOUTS: u32 = 400;

/// Leaves a player's search hands to the evaluator at once with a playout budget: few, so that
/// virtual loss hardly bends the search (many games share one batch in matches and gates).
/// Measured with one net at 64 playouts over the 314 ballot games: 2 leaves scored 0.710 against
/// 8 (docs/training-results.md, "What made it stronger").
const PLAYOUT_LEAVES: u32 = 2;

/// Leaves a player's search hands over at once under a time budget, where a game's own batches
/// set the speed (8 beat both 4 and 32 at 0.1 s per move: docs/training-results.md).
const TIMED_LEAVES: u32 = 8;

/// A player's policy temperature: the search looks wider than the net's priors say. Wider pays
/// more the more playouts a move gets: with the shipped sparse net 2.5 scored level with 1.6 at
/// 400 playouts, ahead at 3,200 and at 0.1 s a move (docs/ab/player-search-2026-12-07); 1.6 had
/// beaten 1.0 at 64 and 400 playouts (docs/training-results.md, "What made it stronger").
const PLAYER_POLICY_TEMPERATURE: f32 = 2.5;

/// A player's search for `thinking`: the defaults without exploration noise (the most visited
/// step is played), with the leaves per batch that fit the budget and a wider policy.
pub fn player_config(thinking: Thinking) -> MctsConfig {
    let leaves_per_batch = match thinking {
        Thinking::Playouts(_) => PLAYOUT_LEAVES,
        Thinking::Time(_) => TIMED_LEAVES,
    };
    MctsConfig {
        dirichlet_fraction: 0.0,
        leaves_per_batch,
        policy_temperature: PLAYER_POLICY_TEMPERATURE,
        // The most visited step at every ply, unless `move_temperature` says otherwise.
        temperature: TemperatureSchedule { opening: 0.0, opening_plies: 0, later: 0.0 },
        ..MctsConfig::default()
    }
}

/// Visits added per round when searching for a time or until stopped.
const VISITS_PER_ROUND: u32 = 32;

/// A net with PUCT search: plays the most visited step, keeping the subtree between moves.
pub struct MctsPlayer<E> {
    name: String,
    evaluator: E,
    config: MctsConfig,
    thinking: Thinking,
    seed: u64,
    /// The search from the last move, and the game it was grown in (after that move).
    kept: Option<(Search, Game)>,
    /// Endgame tables whose positions the search takes as exact leaves.
    tables: Option<Arc<Tables>>,
}

impl<E: Evaluator + Send> MctsPlayer<E> {
    /// A player named `name` that searches with `evaluator` for `thinking` per decision, without
    /// root noise; `seed` drives the search's tie-breaks.
    pub fn new(name: String, evaluator: E, thinking: Thinking, seed: u64) -> MctsPlayer<E> {
        let config = player_config(thinking);
        MctsPlayer { name, evaluator, config, thinking, seed, kept: None, tables: None }
    }

    /// The same player searching with `config` (start from [`player_config`]).
    pub fn with_config(mut self, config: MctsConfig) -> MctsPlayer<E> {
        self.config = config;
        self.kept = None;
        self
    }

    /// The same player, its searches taking the positions `tables` cover as exact leaves.
    pub fn with_tables(mut self, tables: Option<Arc<Tables>>) -> MctsPlayer<E> {
        self.tables = tables;
        self
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
        // The tree serves only the game it was grown in, played on: not another start or
        // history (a GUI setting up a position or taking moves back), nor the same game under
        // other draw rules (a GUI playing on past a draw), where the tree would end too early.
        let kept = self.kept.take().filter(|(_, grown)| {
            grown.start() == game.start()
                && grown.rules() == game.rules()
                && game.moves().starts_with(grown.moves())
        });
        if let Some((mut search, grown)) = kept {
            let since = &game.moves()[grown.ply()..];
            if since.iter().try_for_each(|&mv| search.advance_move(mv)).is_ok() {
                return Ok(search);
            }
        }
        let search = Search::new(&self.config, game, self.seed.wrapping_add(game.ply() as u64))?;
        Ok(search.with_tables(self.tables.clone()))
    }

    /// Searches the current decision until `goal` is met or `control` says stop (once the root
    /// has a visit), telling `report` the progress every `REPORT_EVERY`.
    fn search_until(
        &mut self,
        search: &mut Search,
        goal: Goal,
        control: Option<&SearchControl>,
        report: &mut Reporter<'_>,
    ) -> Result<(), SearchError> {
        if let (Goal::Visits(visits), None) = (goal, control) {
            return search.run(&mut self.evaluator, Budget { visits, root_noise: false });
        }
        loop {
            let visited = search.root_visits() > 0;
            let stopped = control.is_some_and(|c| c.should_stop());
            let reached = match goal {
                Goal::Visits(visits) => search.root_visits() >= visits,
                Goal::Until(deadline) => Instant::now() >= deadline,
                Goal::Stopped => false,
            };
            if visited && (stopped || reached) {
                return Ok(());
            }
            let mut visits = search.root_visits() + VISITS_PER_ROUND;
            if let Goal::Visits(target) = goal {
                visits = visits.min(target.max(1));
            }
            match search.run(&mut self.evaluator, Budget { visits, root_noise: false }) {
                // A search under a clock or until stopped that fills its tree has done what it
                // can: it answers (a budget of visits it cannot reach stays an error).
                Err(SearchError::TreeFull { .. })
                    if !matches!(goal, Goal::Visits(_)) && search.root_visits() > 0 =>
                {
                    return Ok(())
                }
                result => result?,
            }
            report.maybe(search);
        }
    }

    /// Plays one whole move in `game`: each decision of it searched towards `goal` (a deadline
    /// holds for the whole move), the tree kept for the next move.
    fn decide(
        &mut self,
        game: &Game,
        goal: Goal,
        control: Option<&SearchControl>,
        report: &mut Reporter<'_>,
    ) -> Result<Choice, ArenaError> {
        if let Some(choice) = self.table_choice(game, report) {
            return Ok(choice);
        }
        let mut search = self.search_for(game).map_err(|e| self.failed(game, e))?;
        let mut turn = Turn::new(*game.position());
        let mut first: Option<(f32, Vec<Move>)> = None;
        loop {
            self.search_until(&mut search, goal, control, report)
                .map_err(|e| self.failed(game, e))?;
            if first.is_none() {
                report.now(&search);
                report.finish();
                let result = search.result();
                first = Some((
                    result.value,
                    moves_of_steps(*game.position(), &result.principal_variation),
                ));
            }
            let temperature = self.config.temperature.at(game.ply());
            let step =
                search.choose_step(temperature).expect("a game in progress has a legal step");
            search.advance(step).map_err(|e| self.failed(game, e))?;
            if let Some(mv) = turn.take(step).expect("the search's steps are legal") {
                let mut grown = game.clone();
                grown.play_unchecked(mv);
                self.kept = Some((search, grown));
                let (value, pv) = first.expect("searched at least once");
                return Ok(Choice { mv, value: Some(value), pv });
            }
        }
    }

    /// In a position the tables cover, their move (for a win the quickest, so the win is made
    /// over the board rather than shuffled away), without a search; the kept tree is dropped.
    fn table_choice(&mut self, game: &Game, report: &mut Reporter<'_>) -> Option<Choice> {
        let probe = table_probe(self.tables.as_deref()?, game.position())?;
        let mv = probe.best?;
        self.kept = None;
        let plies = u32::from(probe.distance.unwrap_or(0));
        let (value, score) = match probe.wdl {
            Wdl::Win => (1.0, Score::WinIn(plies)),
            Wdl::Draw => (0.0, Score::Men(0.0)),
            Wdl::Loss => (-1.0, Score::LossIn(plies)),
        };
        report.exact(mv, score, Outlook::of_value(value, 1.0 - value.abs()));
        Some(Choice { mv, value: Some(value), pv: vec![mv] })
    }

    /// The goal of a move's decisions under `thinking`, starting now.
    fn goal_of(thinking: Thinking) -> Goal {
        match thinking {
            Thinking::Playouts(visits) => Goal::Visits(visits),
            Thinking::Time(time) => Goal::Until(Instant::now() + time),
        }
    }
}

impl<E: Evaluator + Send> Player for MctsPlayer<E> {
    fn choose(&mut self, game: &Game) -> Result<Choice, ArenaError> {
        let goal = Self::goal_of(self.thinking);
        self.decide(game, goal, None, &mut Reporter::silent(*game.position()))
    }

    fn think(&mut self, game: &Game, request: ThinkRequest<'_>) -> Result<Choice, ArenaError> {
        let ThinkRequest { budget, control, report } = request;
        let goal = match budget {
            MoveBudget::Own | MoveBudget::Depth(_) => Self::goal_of(self.thinking),
            MoveBudget::Time(time) | MoveBudget::Clock { target: time, .. } => {
                Goal::Until(Instant::now() + time)
            }
            MoveBudget::Nodes(nodes) => Goal::Visits(nodes.clamp(1, u64::from(u32::MAX)) as u32),
            MoveBudget::Infinite => Goal::Stopped,
        };
        let mut reporter = Reporter::new(*game.position(), report);
        self.decide(game, goal, Some(control), &mut reporter)
    }
}

/// When a decision's search is done.
#[derive(Clone, Copy, Debug)]
enum Goal {
    /// At this many root visits (a kept subtree's visits count).
    Visits(u32),
    /// At this moment (the whole move's deadline).
    Until(Instant),
    /// When the control says stop.
    Stopped,
}

/// Time between two progress reports of a long search.
const REPORT_EVERY: Duration = Duration::from_millis(250);

/// Tells a thinking player's progress to its listener, at most every `REPORT_EVERY`.
struct Reporter<'a> {
    position: Position,
    listener: Option<&'a mut dyn FnMut(&Progress)>,
    started: Instant,
    last: Instant,
}

impl<'a> Reporter<'a> {
    fn new(position: Position, listener: &'a mut dyn FnMut(&Progress)) -> Reporter<'a> {
        let now = Instant::now();
        Reporter { position, listener: Some(listener), started: now, last: now }
    }

    fn silent(position: Position) -> Reporter<'a> {
        let now = Instant::now();
        Reporter { position, listener: None, started: now, last: now }
    }

    /// Reports a move known without searching (from the tables).
    fn exact(&mut self, mv: Move, score: Score, outlook: Outlook) {
        let Some(listener) = self.listener.as_mut() else { return };
        listener(&Progress {
            depth: 1,
            playouts: None,
            nodes: 0,
            score,
            pv: vec![mv],
            elapsed: self.started.elapsed(),
            outlook: Some(outlook),
            root_moves: Vec::new(),
        });
    }

    /// Reports nothing more: the searches after a move's first step have roots inside the move.
    fn finish(&mut self) {
        self.listener = None;
    }

    fn maybe(&mut self, search: &Search) {
        if self.last.elapsed() >= REPORT_EVERY {
            self.now(search);
        }
    }

    fn now(&mut self, search: &Search) {
        let Some(listener) = self.listener.as_mut() else { return };
        self.last = Instant::now();
        let result = search.result();
        let pv = moves_of_steps(self.position, &result.principal_variation);
        // Most visited first, ties in the search's order (the one it plays first on a tie), the
        // unvisited by prior; only the reported ones have their lines followed.
        let mut ranked: Vec<usize> = (0..result.steps.len()).collect();
        ranked.sort_by(|&a, &b| {
            let (a, b) = (&result.steps[a], &result.steps[b]);
            let by_prior = || match a.visits {
                0 => b.prior.total_cmp(&a.prior),
                _ => std::cmp::Ordering::Equal,
            };
            b.visits.cmp(&a.visits).then_with(by_prior)
        });
        let root_moves = (ranked.into_iter().take(ROOT_MOVES_REPORTED))
            .map(|index| {
                let root = &result.steps[index];
                RootMove {
                    step: root.step,
                    mv: moves_of_steps(self.position, &search.line_from(index)).first().copied(),
                    visits: root.visits,
                    prior: root.prior,
                    value: root.value,
                }
            })
            .collect();
        listener(&Progress {
            depth: pv.len() as u32,
            playouts: Some(result.visits),
            nodes: u64::from(result.visits),
            score: Score::Men(men_of_value(result.value)),
            pv,
            elapsed: self.started.elapsed(),
            outlook: Some(Outlook::of_value(result.value, result.draw)),
            root_moves,
        });
    }
}

/// How many root moves a progress report lists.
const ROOT_MOVES_REPORTED: usize = 8;

/// A value in [-1, 1] in men, the inverse of the alpha-beta player's `tanh(men / 2)`.
fn men_of_value(value: f32) -> f32 {
    2.0 * value.clamp(-0.999, 0.999).atanh()
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
