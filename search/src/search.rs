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
use crate::solver::{prove, Proof};
use crate::tables::table_value;
use crate::tree::{NodeId, Status, Tree, NO_NODE, ROOT};
use draughts::{DrawRules, Game, Move, Step, Turn};
use egdb::Tables;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::sync::Arc;

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

/// What one descent from the root found.
enum Selected {
    /// A new leaf to evaluate, with its request.
    Leaf(NodeId, EvalRequest),
    /// A node of exact value (a game end, a table position, or proven by the solver), with that
    /// value for its side to move.
    Exact(NodeId, f32),
    /// A leaf already awaiting evaluation.
    Collision,
}

/// What creating a child found: the end of the descent, or a forced child to descend through.
enum Expansion {
    Done(Selected),
    Forced(NodeId),
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

    /// One descent from the root by PUCT, creating the child at the end of an unvisited edge.
    fn descend(&mut self) -> Selected {
        let mut id = ROOT;
        loop {
            let node = self.tree.node(id);
            if id != ROOT {
                if let Some(value) = node.proof.value() {
                    return Selected::Exact(id, value);
                }
            }
            match node.status {
                Status::Unevaluated if self.config.pass_forced && node.edge_count == 1 => {
                    self.tree.edges_mut(id)[0].prior = 1.0;
                    self.tree.node_mut(id).status = Status::Expanded;
                }
                Status::Unevaluated => {
                    let decision = node.decision;
                    let turn = decision.turn();
                    let request = EvalRequest {
                        observation: decision.observation(&turn),
                        legal_steps: turn.legal_steps(),
                    };
                    return Selected::Leaf(id, request);
                }
                Status::Pending => return Selected::Collision,
                Status::Terminal(terminal) => return Selected::Exact(id, terminal.value()),
                Status::Expanded => {
                    let forced = id == ROOT && self.budget.root_noise;
                    let index = self.puct.select(&self.tree, id, forced);
                    let edge = self.tree.edges(id)[index];
                    if edge.child != NO_NODE {
                        id = edge.child;
                    } else {
                        match self.expand_edge(id, index, edge.step) {
                            Expansion::Done(selected) => return selected,
                            Expansion::Forced(child) => id = child,
                        }
                    }
                }
            }
        }
    }

    /// Creates the child of `parent` through edge `index` (step `step`): the new leaf, or, when
    /// forced steps are passed through and the child has only one, the node to descend on from.
    fn expand_edge(&mut self, parent: NodeId, index: usize, step: Step) -> Expansion {
        let parent_decision = self.tree.node(parent).decision;
        let (mut decision, turn) = parent_decision.child(parent_decision.turn(), step);
        if decision.taken == 0 {
            decision.repetitions = self.repetitions(parent, &decision);
        }
        let steps = turn.legal_steps();
        let terminal = decision.terminal(&turn, self.rules).or_else(|| self.table_value(&decision));
        let status = terminal.map_or(Status::Unevaluated, Status::Terminal);
        let child = self.tree.add_node(decision, parent, &steps, status);
        self.tree.edges_mut(parent)[index].child = child;
        match terminal {
            Some(terminal) => {
                if self.config.solver {
                    prove(&mut self.tree, child, Proof::of_terminal(terminal));
                }
                Expansion::Done(Selected::Exact(child, terminal.value()))
            }
            None if self.config.pass_forced && steps.len() == 1 => Expansion::Forced(child),
            None => Expansion::Done(Selected::Leaf(
                child,
                EvalRequest { observation: decision.observation(&turn), legal_steps: steps },
            )),
        }
    }

    /// The tables' value of `decision`, when it is the start of a move in a position they cover.
    fn table_value(&self, decision: &Decision) -> Option<Terminal> {
        let tables = self.tables.as_deref()?;
        if decision.taken > 0 {
            return None;
        }
        table_value(tables, &decision.position).map(Terminal::Table)
    }

    /// How often `decision`'s position (at the start of a move) occurred before: every second
    /// ply back, within the no-progress window, through the tree above `parent` and then the
    /// game history (as `draughts::Game::repetitions` counts).
    fn repetitions(&self, parent: NodeId, decision: &Decision) -> u8 {
        if decision.no_progress < 4 {
            return 0;
        }
        // Hashes of the positions 1, 2, 3, ... plies back. A mid-capture node shares its position
        // with the node where its move started, so only move starts (and the root) count.
        let tree_path = std::iter::successors((parent != NO_NODE).then_some(parent), |&id| {
            let up = self.tree.node(id).parent;
            (up != NO_NODE).then_some(up)
        })
        .map(|id| self.tree.node(id))
        .filter(|node| node.decision.taken == 0 || node.parent == NO_NODE)
        .map(|node| node.decision.hash);
        let plies_back = tree_path.chain(self.history.iter().rev().copied());
        let count = plies_back
            .take(decision.no_progress as usize)
            .skip(1)
            .step_by(2)
            .filter(|&hash| hash == decision.hash)
            .count();
        u8::try_from(count).unwrap_or(u8::MAX)
    }

    fn add_in_flight(&mut self, leaf: NodeId) {
        let mut id = leaf;
        while id != NO_NODE {
            let node = self.tree.node_mut(id);
            node.in_flight += 1;
            id = node.parent;
        }
    }

    /// Adds one visit of `value` (from `leaf`'s mover's view) and `draw` to `leaf` and its
    /// ancestors, negating the value where the side to move changes; `release` removes the leaf's
    /// virtual loss.
    fn backup(&mut self, leaf: NodeId, value: f32, draw: f32, release: bool) {
        let mut id = leaf;
        let mut value = value;
        let mut mover = self.tree.node(leaf).mover();
        while id != NO_NODE {
            let node = self.tree.node_mut(id);
            if node.mover() != mover {
                mover = node.mover();
                value = -value;
            }
            node.visits += 1;
            node.value_sum += value;
            if release {
                node.in_flight -= 1;
            }
            let parent = node.parent;
            self.tree.add_draw(id, draw);
            id = parent;
        }
    }

    /// The legal steps at the root, in `Turn::legal_steps()` order (empty when the game is over).
    pub fn root_steps(&self) -> impl ExactSizeIterator<Item = Step> + '_ {
        self.tree.edges(ROOT).iter().map(|e| e.step)
    }
}
