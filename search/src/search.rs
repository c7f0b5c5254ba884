//! PUCT Monte-Carlo tree search over step decisions, driven step-wise for batched evaluation.
//!
//! One `Search` holds one game's tree. A self-play worker gathers leaves from many searches
//! ([`Search::select_leaves`]), evaluates them all in one call, and hands each search its share
//! back ([`Search::apply`]). Terminal leaves are backed up at once and never reach the evaluator.
//! An action is a `Step`, so a multi-jump is several decisions by the same side; values are
//! negated only on edges where the side to move changes.
//!
//! With endgame tables ([`Search::with_tables`]) a node at the start of a move whose position the
//! tables cover is a leaf of known value (+1, 0 or -1 for its side to move), never evaluated; the
//! game's own end (no move, repetition, no progress) is checked first. The root is always
//! searched, so a player in a table position still gets its moves' values.
//!
//! Beside the value, each node averages the evaluator's draw probability (1 at a drawn end, 0 at
//! a won or lost one), so the root knows its chances as win, draw and loss; selection uses the
//! value alone.

use crate::config::{Budget, MctsConfig};
use crate::decision::{Decision, Terminal};
use crate::error::SearchError;
use crate::evaluator::{EvalRequest, Evaluation, Evaluator};
use crate::noise::mix_dirichlet;
use crate::puct::Puct;
use crate::tree::{NodeId, Status, Tree, NO_NODE, ROOT};
use draughts::{DrawRules, Game, Move, Step, Turn};
use egdb::Tables;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::sync::Arc;
use walk::Selected;

mod walk;

/// The search of one game's next decision, keeping its tree from move to move.
#[derive(Clone, Debug)]
pub struct Search {
    config: MctsConfig,
    puct: Puct,
    rules: DrawRules,
    pub(crate) tree: Tree,
    /// Hashes of the game's positions before the root's position, oldest first.
    history: Vec<u64>,
    /// Leaves handed out by the last `select_leaves`, in request order.
    pending: Vec<NodeId>,
    budget: Budget,
    /// Whether the current root's priors already carry noise.
    root_noised: bool,
    pub(crate) rng: StdRng,
    /// Endgame tables whose positions are leaves of known value.
    tables: Option<Arc<Tables>>,
}

impl Search {
    /// A search of `game`'s next move, with an empty tree and no budget yet ([`Search::begin`]).
    /// `seed` drives its noise and move choice. Fails when the game is over.
    pub fn new(config: &MctsConfig, game: &Game, seed: u64) -> Result<Search, SearchError> {
        if game.outcome().is_some() {
            return Err(SearchError::GameOver);
        }
        let mut position = *game.start();
        let mut hash = position.hash();
        let history = game
            .moves()
            .iter()
            .map(|&mv| {
                let before = hash;
                hash = position.hash_after(hash, mv);
                position = position.play_unchecked(mv);
                before
            })
            .collect();
        let mut search = Search {
            config: config.clone(),
            puct: Puct {
                c_puct: config.c_puct,
                fpu_reduction: config.fpu_reduction,
                forced_playouts: config.forced_playouts,
                draw_penalty: config.draw_penalty,
            },
            rules: game.rules(),
            tree: Tree::default(),
            history,
            pending: Vec::new(),
            budget: Budget { visits: 0, root_noise: false },
            root_noised: false,
            rng: StdRng::seed_from_u64(seed),
            tables: None,
        };
        let decision = Decision::of_game(game);
        search.reset_root(decision, &decision.turn());
        Ok(search)
    }

    /// The same search, treating every position at the start of a move that `tables` cover (at
    /// most [`Tables::max_pieces`] pieces) as a leaf with the tables' exact value. Set it before
    /// searching: nodes already in the tree keep their status.
    pub fn with_tables(mut self, tables: Option<Arc<Tables>>) -> Search {
        self.tables = tables.filter(|t| t.max_pieces() > 0);
        self
    }

    /// The configuration this search runs with.
    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// Sets the budget of the next decision's search. Noise is mixed into the root priors once
    /// per root, when asked for and as soon as the root has been evaluated.
    pub fn begin(&mut self, budget: Budget) {
        self.budget = budget;
        self.noise_root_if_due();
    }

    /// Whether the root has reached the budget's visits (counting visits in flight).
    pub fn is_complete(&self) -> bool {
        let root = self.tree.root();
        root.visits + root.in_flight >= self.budget.visits
    }

    /// Completed visits of the root (a reused subtree's visits included).
    pub fn root_visits(&self) -> u32 {
        self.tree.root().visits
    }

    /// Number of nodes in the tree.
    pub fn tree_size(&self) -> usize {
        self.tree.len()
    }

    /// Descends up to `max_leaves` times, appending a request to `requests` for each new leaf
    /// (virtual loss steers later descents elsewhere). Terminal leaves are backed up at once.
    /// Stops early when the budget is reached or a descent hits a leaf already pending.
    /// Returns the number of requests appended (`max_leaves` is taken as at least 1); 0 means the
    /// search is complete. Their evaluations go to [`Search::apply`], in the same order, before
    /// the next call.
    pub fn select_leaves(&mut self, max_leaves: usize, requests: &mut Vec<EvalRequest>) -> usize {
        debug_assert!(self.pending.is_empty(), "apply the last batch first");
        let mut added = 0;
        while added < max_leaves.max(1) && !self.is_complete() {
            match self.descend() {
                Selected::Leaf(leaf, request) => {
                    self.tree.node_mut(leaf).status = Status::Pending;
                    self.add_in_flight(leaf);
                    self.pending.push(leaf);
                    requests.push(request);
                    added += 1;
                }
                Selected::Exact(node, value) => self.backup(node, value, 1.0 - value.abs(), false),
                Selected::Collision => break,
            }
        }
        added
    }

    /// Backs up the evaluations of the leaves of the last [`Search::select_leaves`], in order.
    /// Checks them all first: on an error nothing changes.
    pub fn apply(&mut self, evaluations: &[Evaluation]) -> Result<(), SearchError> {
        if evaluations.len() != self.pending.len() {
            return Err(SearchError::EvaluationCount {
                expected: self.pending.len(),
                got: evaluations.len(),
            });
        }
        for (index, (&leaf, evaluation)) in self.pending.iter().zip(evaluations).enumerate() {
            let expected = self.tree.node(leaf).edge_count as usize;
            if evaluation.priors.len() != expected {
                return Err(SearchError::PriorCount {
                    index,
                    expected,
                    got: evaluation.priors.len(),
                });
            }
            if !evaluation.value.is_finite() {
                return Err(SearchError::BadNumber { index, what: "the value" });
            }
            if !evaluation.draw.is_finite() {
                return Err(SearchError::BadNumber { index, what: "the draw probability" });
            }
            if evaluation.priors.iter().any(|p| !p.is_finite() || *p < 0.0) {
                return Err(SearchError::BadNumber { index, what: "a prior" });
            }
        }
        let pending = std::mem::take(&mut self.pending);
        let exponent = 1.0 / self.config.policy_temperature;
        let tempered = |prior: f32| if exponent == 1.0 { prior } else { prior.powf(exponent) };
        for (&leaf, evaluation) in pending.iter().zip(evaluations) {
            let edges = self.tree.edges_mut(leaf);
            for (edge, &prior) in edges.iter_mut().zip(&evaluation.priors) {
                edge.prior = tempered(prior);
            }
            let total: f32 = edges.iter().map(|edge| edge.prior).sum();
            let uniform = 1.0 / edges.len() as f32;
            for edge in edges.iter_mut() {
                edge.prior = if total > 0.0 { edge.prior / total } else { uniform };
            }
            self.tree.node_mut(leaf).status = Status::Expanded;
            let value = evaluation.value.clamp(-1.0, 1.0);
            let draw = evaluation.draw.clamp(0.0, 1.0 - value.abs());
            self.backup(leaf, value, draw, true);
        }
        self.pending = pending;
        self.pending.clear();
        self.noise_root_if_due();
        Ok(())
    }

    /// Searches until the budget is reached, evaluating `leaves_per_batch` leaves per call.
    pub fn run(
        &mut self,
        evaluator: &mut impl Evaluator,
        budget: Budget,
    ) -> Result<(), SearchError> {
        self.begin(budget);
        let mut requests = Vec::with_capacity(self.config.leaves_per_batch as usize);
        let limit = crate::tree::tree_node_limit();
        while self.select_leaves(self.config.leaves_per_batch as usize, &mut requests) > 0 {
            let evaluations = evaluator.evaluate(&requests)?;
            self.apply(&evaluations)?;
            requests.clear();
            if self.tree.len() >= limit && !self.is_complete() {
                return Err(SearchError::TreeFull { limit });
            }
        }
        Ok(())
    }

    /// Moves the root to the decision after `step`, keeping that subtree (tree reuse).
    pub fn advance(&mut self, step: Step) -> Result<(), SearchError> {
        if !self.pending.is_empty() {
            return Err(SearchError::LeavesPending { count: self.pending.len() });
        }
        let index = self.tree.edges(ROOT).iter().position(|e| e.step == step);
        let child = self.tree.edges(ROOT)[index.ok_or(SearchError::IllegalStep { step })?].child;
        let root = self.tree.root().decision;
        let table_leaf = child != NO_NODE
            && matches!(self.tree.node(child).status, Status::Terminal(Terminal::Table(_)));
        if child != NO_NODE && !table_leaf {
            if self.tree.node(child).decision.taken == 0 {
                self.history.push(root.hash);
            }
            self.tree.reroot(child);
        } else {
            let (mut decision, turn) = root.child(root.turn(), step);
            if decision.taken == 0 {
                self.history.push(root.hash);
                decision.repetitions = self.repetitions(NO_NODE, &decision);
            }
            self.reset_root(decision, &turn);
        }
        self.root_noised = false;
        Ok(())
    }

    /// Advances over every step of `mv` (e.g. the opponent's move in a match).
    pub fn advance_move(&mut self, mv: Move) -> Result<(), SearchError> {
        mv.steps().try_for_each(|step| self.advance(step))
    }

    /// Empties the tree and roots it at `decision` (whose move in progress is `turn`).
    fn reset_root(&mut self, decision: Decision, turn: &Turn) {
        let status = match decision.terminal(turn, self.rules) {
            Some(terminal) => Status::Terminal(terminal),
            None => Status::Unevaluated,
        };
        self.tree.reset(decision, &turn.legal_steps(), status);
    }

    fn noise_root_if_due(&mut self) {
        let due = self.budget.root_noise
            && !self.root_noised
            && self.tree.root().status == Status::Expanded;
        if due {
            let (alpha, fraction) = (self.config.dirichlet_alpha, self.config.dirichlet_fraction);
            let mut priors: smallvec::SmallVec<[f32; 48]> =
                self.tree.edges(ROOT).iter().map(|e| e.prior).collect();
            mix_dirichlet(&mut priors, alpha, fraction, &mut self.rng);
            for (edge, prior) in self.tree.edges_mut(ROOT).iter_mut().zip(priors) {
                edge.prior = prior;
            }
            self.root_noised = true;
        }
    }

    /// The legal steps at the root, in `Turn::legal_steps()` order (empty when the game is over).
    pub fn root_steps(&self) -> impl ExactSizeIterator<Item = Step> + '_ {
        self.tree.edges(ROOT).iter().map(|e| e.step)
    }
}
