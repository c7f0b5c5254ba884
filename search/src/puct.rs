//! PUCT child selection with first-play urgency and virtual loss, and the solver's proofs: a
//! proven win is taken at once, a proven loss only when nothing else is left, a proven draw
//! counts exactly 0 (less the draw penalty, when there is one).

use crate::solver::Proof;
use crate::tree::{Edge, Node, NodeId, Tree, NO_NODE};

/// The constants selection reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Puct {
    pub c_puct: f32,
    pub fpu_reduction: f32,
    /// KataGo's `k` of forced playouts (0: none); applied where `select` is told to.
    pub forced_playouts: f32,
    /// Subtracted from a child's `Q` per unit of its mean draw probability (0: off).
    pub draw_penalty: f32,
}

impl Puct {
    /// Index (within the node's edges) of the edge maximising `Q + U` for the node's mover, where
    /// `U = c_puct * prior * sqrt(N) / (1 + n)`. Visits in flight count as visits lost for the
    /// chooser; an unvisited child gets the first-play-urgency value. Ties go to the first edge.
    /// Proven children (see [`crate::solver`]) count by their exact value for the chooser.
    /// With a draw penalty `Q` is the child's mean of `W - L - draw_penalty * D`, and so is the
    /// first-play value taken from the node's.
    /// With `forced`, a child below its forced playouts (see [`forced_visits`]) goes first.
    pub fn select(&self, tree: &Tree, id: NodeId, forced: bool) -> usize {
        let node = tree.node(id);
        let mover = node.mover();
        let edges = tree.edges(id);
        let child_of = |edge: &Edge| (edge.child != NO_NODE).then(|| tree.node(edge.child));
        // Visits of a child, those in flight included; 0 for an edge not yet followed.
        let visits = |child: Option<&Node>| child.map_or(0, |c| c.visits + c.in_flight);
        let proof_of = |child: Option<&Node>| {
            child.map_or(Proof::Unknown, |c| c.proof.seen_by(c.mover(), mover))
        };
        let visited_prior: f32 =
            edges.iter().filter(|e| visits(child_of(e)) > 0).map(|e| e.prior).sum();
        let draw_penalty = |id: NodeId| match self.draw_penalty {
            0.0 => 0.0,
            penalty => penalty * tree.draw_sum(id),
        };
        let node_utility = match node.visits {
            0 => 0.0,
            n => node.mean_value() - draw_penalty(id) / n as f32,
        };
        let first_play = node_utility - self.fpu_reduction * visited_prior.sqrt();
        let total = node.visits + node.in_flight;
        let exploration = self.c_puct * (total.max(1) as f32).sqrt();
        let mut best = (0, f32::NEG_INFINITY);
        if forced && self.forced_playouts > 0.0 {
            let below = edges.iter().position(|edge| {
                let child = child_of(edge);
                proof_of(child) != Proof::Loss
                    && visits(child) < forced_visits(self.forced_playouts, edge.prior, total)
            });
            if let Some(index) = below {
                return index;
            }
        }
        for (i, edge) in edges.iter().enumerate() {
            let child = child_of(edge);
            let proof = proof_of(child);
            match proof {
                Proof::Win => return i,
                // Chosen only when every step loses: `best` then stays at the first.
                Proof::Loss => continue,
                Proof::Draw | Proof::Unknown => {}
            }
            let n = visits(child);
            let q = match child {
                Some(child) if n > 0 => {
                    let sum = if proof == Proof::Draw {
                        -self.draw_penalty * child.visits as f32
                    } else if child.mover() == mover {
                        child.value_sum - draw_penalty(edge.child)
                    } else {
                        -child.value_sum - draw_penalty(edge.child)
                    };
                    (sum - child.in_flight as f32) / n as f32
                }
                _ => first_play,
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
