//! One descent of the tree: from the root by PUCT to a leaf to evaluate (or a node of known
//! value), creating the node at the end of an unvisited edge, with repetitions, the endgame tables
//! and the solver's proofs checked there; and the backup of a leaf's value to the root.

use super::Search;
use crate::decision::{Decision, Terminal};
use crate::evaluator::EvalRequest;
use crate::solver::{prove, Proof};
use crate::tables::table_value;
use crate::tree::{NodeId, Status, NO_NODE, ROOT};
use draughts::Step;

/// What one descent from the root found.
pub(super) enum Selected {
    /// A new leaf to evaluate, with its request.
    Leaf(NodeId, EvalRequest),
    /// A node of exact value (a game end, a table position, or proven by the solver), with that
    /// value for its side to move.
    Exact(NodeId, f32),
    /// A leaf already awaiting evaluation.
    Collision,
}

/// What creating a child found: the end of the descent, or a forced child to descend through.
pub(super) enum Expansion {
    Done(Selected),
    Forced(NodeId),
}

impl Search {
    /// One descent from the root by PUCT, creating the child at the end of an unvisited edge.
    pub(super) fn descend(&mut self) -> Selected {
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
    pub(super) fn repetitions(&self, parent: NodeId, decision: &Decision) -> u8 {
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

    pub(super) fn add_in_flight(&mut self, leaf: NodeId) {
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
    pub(super) fn backup(&mut self, leaf: NodeId, value: f32, draw: f32, release: bool) {
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
}
