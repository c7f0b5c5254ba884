//! PUCT child selection with first-play urgency and virtual loss, and the solver's proofs: a
//! proven win is taken at once, a proven loss only when nothing else is left, a proven draw
//! counts exactly 0.

use crate::solver::{child_proof, Proof};
use crate::tree::{NodeId, Tree, NO_NODE};

/// The constants selection reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Puct {
    pub c_puct: f32,
    pub fpu_reduction: f32,
    /// KataGo's `k` of forced playouts (0: none); applied where `select` is told to.
    pub forced_playouts: f32,
}

impl Puct {
    /// Index (within the node's edges) of the edge maximising `Q + U` for the node's mover, where
    /// `U = c_puct * prior * sqrt(N) / (1 + n)`. Visits in flight count as visits lost for the
    /// chooser; an unvisited child gets the first-play-urgency value. Ties go to the first edge.
    /// Proven children (see [`crate::solver`]) count by their exact value for the chooser.
    /// With `forced`, a child below its forced playouts (see [`forced_visits`]) goes first.
    pub fn select(&self, tree: &Tree, id: NodeId, forced: bool) -> usize {
        let node = tree.node(id);
        let mover = node.mover();
        let edges = tree.edges(id);
        let seen = |child: NodeId| {
            child != NO_NODE && {
                let c = tree.node(child);
                c.visits + c.in_flight > 0
            }
        };
        let visited_prior: f32 = edges.iter().filter(|e| seen(e.child)).map(|e| e.prior).sum();
        let first_play = node.mean_value() - self.fpu_reduction * visited_prior.sqrt();
        let total = node.visits + node.in_flight;
        let exploration = self.c_puct * (total.max(1) as f32).sqrt();
        let mut best = (0, f32::NEG_INFINITY);
        if forced && self.forced_playouts > 0.0 {
            let below = edges.iter().position(|edge| {
                let n = if edge.child == NO_NODE {
                    0
                } else {
                    let child = tree.node(edge.child);
                    child.visits + child.in_flight
                };
                child_proof(tree, id, edge.child) != Proof::Loss
                    && n < forced_visits(self.forced_playouts, edge.prior, total)
            });
            if let Some(index) = below {
                return index;
            }
        }
        for (i, edge) in edges.iter().enumerate() {
            let proof = child_proof(tree, id, edge.child);
            match proof {
                Proof::Win => return i,
                // Chosen only when every step loses: `best` then stays at the first.
                Proof::Loss => continue,
                Proof::Draw | Proof::Unknown => {}
            }
            let (q, n) = if seen(edge.child) {
                let child = tree.node(edge.child);
                let n = child.visits + child.in_flight;
                let sum = if child.mover() == mover { child.value_sum } else { -child.value_sum };
                let q = if proof == Proof::Draw {
                    -(child.in_flight as f32) / n as f32
                } else {
                    (sum - child.in_flight as f32) / n as f32
                };
                (q, n)
            } else {
                (first_play, 0)
            };
            let score = q + exploration * edge.prior / (1 + n) as f32;
            if score > best.1 {
                best = (i, score);
            }
        }
        best.0
    }
}

/// The visits forced playouts give a root child of `prior` after `total` root visits:
/// `floor(sqrt(k * prior * total))`.
pub(crate) fn forced_visits(k: f32, prior: f32, total: u32) -> u32 {
    (k * prior * total as f32).sqrt() as u32
}
