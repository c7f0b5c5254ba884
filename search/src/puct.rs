//! PUCT child selection with first-play urgency and virtual loss.

use crate::tree::{NodeId, Tree, NO_NODE};

/// The constants selection reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Puct {
    pub c_puct: f32,
    pub fpu_reduction: f32,
}

impl Puct {
    /// Index (within the node's edges) of the edge maximising `Q + U` for the node's mover, where
    /// `U = c_puct * prior * sqrt(N) / (1 + n)`. Visits in flight count as visits lost for the
    /// chooser; an unvisited child gets the first-play-urgency value. Ties go to the first edge.
    pub fn select(&self, tree: &Tree, id: NodeId) -> usize {
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
        let exploration = self.c_puct * ((node.visits + node.in_flight).max(1) as f32).sqrt();
        let mut best = (0, f32::NEG_INFINITY);
        for (i, edge) in edges.iter().enumerate() {
            let (q, n) = if seen(edge.child) {
                let child = tree.node(edge.child);
                let n = child.visits + child.in_flight;
                let sum = if child.mover() == mover { child.value_sum } else { -child.value_sum };
                ((sum - child.in_flight as f32) / n as f32, n)
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
