//! The search tree as an arena: nodes and edges in two `Vec`s, linked by indices.
//!
//! A node's edges (one per legal step, with its prior) lie contiguously; an edge's child node is
//! created the first time the edge is followed. Statistics live in the nodes. Moving the root
//! (tree reuse) copies the kept subtree into spare vectors and swaps them in, so the arena stays
//! compact and nothing is allocated once the vectors have grown. The sums of the backed-up draw
//! probabilities lie in a third `Vec` beside the nodes (selection never reads them), so that a
//! node stays one cache line.

use crate::decision::{Decision, Terminal};
use crate::solver::Proof;
use draughts::{Color, Step};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Index of a node in the arena.
pub(crate) type NodeId = u32;

/// The root always sits at index 0.
pub(crate) const ROOT: NodeId = 0;

/// The most nodes a search tree holds by default: about 1 GB (2,000,000 playouts of the shipped
/// net from the start position held 695 MB, about 350 bytes a node with its edges and the
/// vectors' spare room). A search whose budget would grow it further ends with
/// [`crate::SearchError::TreeFull`].
pub const MAX_TREE_NODES: usize = 3_000_000;
/// Bytes a node takes, as measured above (for the limit's size in messages).
pub const NODE_BYTES: usize = 350;
/// The environment variable that sets another limit, in nodes.
pub const MAX_TREE_NODES_VAR: &str = "CHECKERS_ZERO_MAX_TREE_NODES";

/// The node limit of every search of this process: [`MAX_TREE_NODES`], or [`MAX_TREE_NODES_VAR`],
/// or lower where [`lower_tree_node_limit`] lowered it.
pub fn tree_node_limit() -> usize {
    match LIMIT.load(Relaxed) {
        0 => {
            let _ = LIMIT.compare_exchange(0, configured_limit(), Relaxed, Relaxed);
            LIMIT.load(Relaxed)
        }
        limit => limit,
    }
}

/// Whether [`MAX_TREE_NODES_VAR`] sets this process's limit.
pub fn tree_node_limit_is_configured() -> bool {
    std::env::var_os(MAX_TREE_NODES_VAR).is_some()
}

/// Lowers this process's node limit to `nodes` (at least one) where it is higher; searches
/// started afterwards hold to it. A program that budgets its searches' memory (`serve`) calls it
/// once at its start.
pub fn lower_tree_node_limit(nodes: usize) {
    tree_node_limit();
    LIMIT.fetch_min(nodes.max(1), Relaxed);
}

/// This process's limit: 0 until it is first read.
static LIMIT: AtomicUsize = AtomicUsize::new(0);

/// The limit [`MAX_TREE_NODES_VAR`] sets, else [`MAX_TREE_NODES`].
fn configured_limit() -> usize {
    std::env::var(MAX_TREE_NODES_VAR)
        .ok()
        .and_then(|n| n.trim().parse().ok())
        .map_or(MAX_TREE_NODES, |n: usize| n.max(1))
}

/// "No node": a root's parent, an unvisited edge's child.
pub(crate) const NO_NODE: NodeId = NodeId::MAX;

/// Where a node is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// Created, its edges listed, priors not yet known; not handed out for evaluation.
    Unevaluated,
    /// Handed to the evaluator; its priors and value have not come back.
    Pending,
    /// Priors known; selection may descend through it.
    Expanded,
    /// The game ends here; it has no edges and needs no evaluation.
    Terminal(Terminal),
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    pub decision: Decision,
    pub parent: NodeId,
    pub first_edge: u32,
    pub edge_count: u8,
    pub status: Status,
    /// Completed visits (evaluations and terminal hits backed up through this node).
    pub visits: u32,
    /// Visits on their way (leaves below awaiting evaluation), each counted as a loss for the
    /// side choosing this node (virtual loss).
    pub in_flight: u32,
    /// Sum of the backed-up values, from the view of this node's side to move.
    pub value_sum: f32,
    /// The node's exact value, once the MCTS-solver has proven it (see [`crate::solver`]).
    pub proof: Proof,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub step: Step,
    pub prior: f32,
    pub child: NodeId,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Tree {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// Sum of the backed-up draw probabilities of each node (the same for both sides).
    draw_sums: Vec<f32>,
    spare_nodes: Vec<Node>,
    spare_edges: Vec<Edge>,
    spare_draw_sums: Vec<f32>,
}

impl Node {
    #[inline]
    pub fn mover(&self) -> Color {
        self.decision.position.side_to_move()
    }

    /// Mean value from this node's mover's view; 0 before any visit.
    #[inline]
    pub fn mean_value(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.value_sum / self.visits as f32
        }
    }
}

impl Tree {
    /// Empties the tree and makes a root for `decision` with `steps` as its edges.
    pub fn reset(&mut self, decision: Decision, steps: &[Step], status: Status) {
        self.nodes.clear();
        self.edges.clear();
        self.draw_sums.clear();
        self.add_node(decision, NO_NODE, steps, status);
    }

    /// Appends a node with one edge (prior 0) per step. A terminal node gets no edges.
    pub fn add_node(
        &mut self,
        decision: Decision,
        parent: NodeId,
        steps: &[Step],
        status: Status,
    ) -> NodeId {
        let id = NodeId::try_from(self.nodes.len()).expect("fewer than 2^32 nodes");
        let first_edge = u32::try_from(self.edges.len()).expect("fewer than 2^32 edges");
        let steps = if matches!(status, Status::Terminal(_)) { &[][..] } else { steps };
        self.edges.extend(steps.iter().map(|&step| Edge { step, prior: 0.0, child: NO_NODE }));
        self.nodes.push(Node {
            decision,
            parent,
            first_edge,
            edge_count: u8::try_from(steps.len()).expect("at most 48 legal steps"),
            status,
            visits: 0,
            in_flight: 0,
            value_sum: 0.0,
            proof: Proof::Unknown,
        });
        self.draw_sums.push(0.0);
        id
    }

    #[inline]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    #[inline]
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    /// Adds a backed-up draw probability to node `id`.
    #[inline]
    pub fn add_draw(&mut self, id: NodeId, draw: f32) {
        self.draw_sums[id as usize] += draw;
    }

    /// Sum of the backed-up draw probabilities of node `id`.
    #[inline]
    pub fn draw_sum(&self, id: NodeId) -> f32 {
        self.draw_sums[id as usize]
    }

    /// Mean backed-up draw probability of node `id`; 0 before any visit.
    pub fn mean_draw(&self, id: NodeId) -> f32 {
        match self.node(id).visits {
            0 => 0.0,
            visits => self.draw_sums[id as usize] / visits as f32,
        }
    }

    #[inline]
    pub fn root(&self) -> &Node {
        self.node(ROOT)
    }

    /// The edges of `id`, contiguous.
    #[inline]
    pub fn edges(&self, id: NodeId) -> &[Edge] {
        let node = self.node(id);
        let start = node.first_edge as usize;
        &self.edges[start..start + node.edge_count as usize]
    }

    #[inline]
    pub fn edges_mut(&mut self, id: NodeId) -> &mut [Edge] {
        let node = self.node(id);
        let start = node.first_edge as usize;
        let end = start + node.edge_count as usize;
        &mut self.edges[start..end]
    }

    /// Number of nodes in the arena.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Makes `new_root` the root, keeping only its subtree (compacted to the front of the arena).
    pub fn reroot(&mut self, new_root: NodeId) {
        let (mut nodes, mut edges) =
            (std::mem::take(&mut self.spare_nodes), std::mem::take(&mut self.spare_edges));
        let mut draw_sums = std::mem::take(&mut self.spare_draw_sums);
        nodes.clear();
        edges.clear();
        draw_sums.clear();
        nodes.push(Node { parent: NO_NODE, ..*self.node(new_root) });
        draw_sums.push(self.draw_sums[new_root as usize]);
        // Breadth first: `nodes[next]` is a copy whose edges still point into the old arena.
        let mut next = 0;
        while next < nodes.len() {
            let old_edges = {
                let old = &nodes[next];
                let start = old.first_edge as usize;
                &self.edges[start..start + old.edge_count as usize]
            };
            nodes[next].first_edge = u32::try_from(edges.len()).expect("fewer than 2^32 edges");
            for &edge in old_edges {
                let child = if edge.child == NO_NODE {
                    NO_NODE
                } else {
                    let id = NodeId::try_from(nodes.len()).expect("fewer than 2^32 nodes");
                    nodes.push(Node { parent: next as NodeId, ..*self.node(edge.child) });
                    draw_sums.push(self.draw_sums[edge.child as usize]);
                    id
                };
                edges.push(Edge { child, ..edge });
            }
            next += 1;
        }
        self.spare_nodes = std::mem::replace(&mut self.nodes, nodes);
        self.spare_edges = std::mem::replace(&mut self.edges, edges);
        self.spare_draw_sums = std::mem::replace(&mut self.draw_sums, draw_sums);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_and_edges_stay_compact() {
        assert_eq!(std::mem::size_of::<Edge>(), 12);
        assert!(std::mem::size_of::<Node>() <= 64, "{}", std::mem::size_of::<Node>());
    }
}
