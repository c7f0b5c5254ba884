//! What a finished search tells: visits per root step (the policy target), the root value and
//! draw probability, the principal variation, and the step to play under a temperature.

use crate::puct::forced_visits;
use crate::search::Search;
use crate::solver::{child_proof, Proof};
use crate::tree::{NodeId, NO_NODE, ROOT};
use draughts::Step;
use rand::Rng;

/// Below this temperature the most visited step is played.
const ARGMAX_TEMPERATURE: f32 = 1e-3;

/// One root step after a search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootStep {
    /// The step.
    pub step: Step,
    /// Policy index 0..128 in the mover's frame (`Step::index_for`).
    pub policy_index: u8,
    /// Prior used by the search (with root noise, if any).
    pub prior: f32,
    /// Visits the step received.
    pub visits: u32,
    /// Mean value of the step for the root's side to move; `None` when unvisited.
    pub value: Option<f32>,
}

/// The search's answer at its root.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// Every legal root step, in `Turn::legal_steps()` order.
    pub steps: Vec<RootStep>,
    /// Root value (mean of all backed-up values) for the side to move, in [-1, 1].
    pub value: f32,
    /// Root draw probability (mean of all backed-up draw probabilities), in [0, 1 - |value|].
    pub draw: f32,
    /// Completed root visits.
    pub visits: u32,
    /// Most visited steps from the root down (steps, so a multi-jump appears step by step).
    pub principal_variation: Vec<Step>,
}

impl SearchResult {
    /// The visit distribution as (policy index, probability) pairs, one per legal step; the
    /// policy target of a full search. Uniform when nothing was visited.
    pub fn policy_target(&self) -> Vec<(u8, f32)> {
        let total: u32 = self.steps.iter().map(|s| s.visits).sum();
        let uniform = 1.0 / self.steps.len() as f32;
        self.steps
            .iter()
            .map(|s| {
                (s.policy_index, if total == 0 { uniform } else { s.visits as f32 / total as f32 })
            })
            .collect()
    }

    /// KataGo's policy-target pruning after a search with forced playouts (`k`, see
    /// `MctsConfig::forced_playouts`; `c_puct` the search's): every step but the most visited
    /// gives back up to its forced visits as long as its PUCT score stays below the best step's,
    /// and a step left with a single visit gets none. Only `visits` change.
    pub fn prune_forced_playouts(&mut self, c_puct: f32, k: f32) {
        let Some(best) = most_visited(self.steps.iter().map(|s| s.visits)) else { return };
        let sqrt_total = (self.visits as f32).sqrt();
        let score = |step: &RootStep, visits: u32| {
            step.value.unwrap_or(0.0) + c_puct * step.prior * sqrt_total / (1 + visits) as f32
        };
        let best_score = score(&self.steps[best], self.steps[best].visits);
        for (i, step) in self.steps.iter_mut().enumerate() {
            if i == best || step.visits == 0 {
                continue;
            }
            let floor = step.visits.saturating_sub(forced_visits(k, step.prior, self.visits));
            let mut visits = step.visits;
            while visits > floor && score(step, visits - 1) < best_score {
                visits -= 1;
            }
            step.visits = if visits <= 1 { 0 } else { visits };
        }
    }

    /// The most visited step (first in order on a tie); `None` when the root has no legal step.
    pub fn best_step(&self) -> Option<Step> {
        most_visited(self.steps.iter().map(|s| s.visits)).map(|i| self.steps[i].step)
    }
}

impl Search {
    /// The root's statistics now.
    pub fn result(&self) -> SearchResult {
        let root = self.tree.root();
        let mover = root.mover();
        let steps = self
            .tree
            .edges(ROOT)
            .iter()
            .map(|edge| {
                let child = (edge.child != NO_NODE)
                    .then(|| self.tree.node(edge.child))
                    .filter(|c| c.visits > 0);
                RootStep {
                    step: edge.step,
                    policy_index: edge.step.index_for(mover) as u8,
                    prior: edge.prior,
                    visits: child.map_or(0, |c| c.visits),
                    value: child.map(|c| {
                        if c.mover() == mover {
                            c.mean_value()
                        } else {
                            -c.mean_value()
                        }
                    }),
                }
            })
            .collect();
        let value = root.proof.value().unwrap_or_else(|| root.mean_value());
        let draw = match root.proof.value() {
            Some(exact) => 1.0 - exact.abs(),
            None => self.tree.mean_draw(ROOT).clamp(0.0, 1.0 - value.abs()),
        };
        SearchResult {
            steps,
            value,
            draw,
            visits: root.visits,
            principal_variation: self.most_visited_line(ROOT),
        }
    }

    /// The step to play: the most visited at temperature ~0, otherwise drawn with probability
    /// proportional to `visits^(1 / temperature)`. `None` when the root has no legal step.
    /// Under the solver's proofs only proven wins are candidates when there is one, and proven
    /// losses only when every step loses.
    pub fn choose_step(&mut self, temperature: f32) -> Option<Step> {
        let edges = self.tree.edges(ROOT);
        let proofs: smallvec::SmallVec<[Proof; 48]> =
            edges.iter().map(|e| child_proof(&self.tree, ROOT, e.child)).collect();
        let candidate = if proofs.contains(&Proof::Win) {
            |proof: Proof| proof == Proof::Win
        } else if proofs.iter().all(|&p| p == Proof::Loss) {
            |_: Proof| true
        } else {
            |proof: Proof| proof != Proof::Loss
        };
        let visits: smallvec::SmallVec<[u32; 48]> = edges
            .iter()
            .zip(&proofs)
            .map(|(e, &p)| if candidate(p) { self.child_visits(e.child) } else { 0 })
            .collect();
        // A candidate counts one more here, so that the most visited is always a candidate.
        let ranked =
            visits.iter().zip(&proofs).map(|(&v, &p)| if candidate(p) { v + 1 } else { 0 });
        let best = most_visited(ranked)?;
        if temperature < ARGMAX_TEMPERATURE || visits[best] == 0 {
            return Some(edges[best].step);
        }
        // Weights relative to the best, so large counts and small temperatures do not overflow.
        let top = visits[best] as f64;
        let weights: smallvec::SmallVec<[f64; 48]> =
            visits.iter().map(|&v| (v as f64 / top).powf(1.0 / temperature as f64)).collect();
        let mut pick = self.rng.random::<f64>() * weights.iter().sum::<f64>();
        for (i, w) in weights.iter().enumerate() {
            if pick < *w {
                return Some(edges[i].step);
            }
            pick -= w;
        }
        Some(edges[best].step)
    }

    fn child_visits(&self, child: NodeId) -> u32 {
        if child == NO_NODE {
            0
        } else {
            self.tree.node(child).visits
        }
    }

    /// Root step `index` (in `Turn::legal_steps()` order) and the most visited steps below it;
    /// empty when the root has no such step.
    pub fn line_from(&self, index: usize) -> Vec<Step> {
        let Some(edge) = self.tree.edges(ROOT).get(index) else { return Vec::new() };
        let mut line = vec![edge.step];
        if edge.child != NO_NODE {
            line.extend(self.most_visited_line(edge.child));
        }
        line
    }

    /// The most visited steps from node `id` down, while they have visits.
    fn most_visited_line(&self, id: NodeId) -> Vec<Step> {
        let mut line = Vec::new();
        let mut id = id;
        loop {
            let edges = self.tree.edges(id);
            let Some(best) = most_visited(edges.iter().map(|e| self.child_visits(e.child))) else {
                break;
            };
            let edge = edges[best];
            if self.child_visits(edge.child) == 0 {
                break;
            }
            line.push(edge.step);
            id = edge.child;
        }
        line
    }
}

/// Index of the largest count, the first on a tie; `None` for no counts.
fn most_visited(visits: impl Iterator<Item = u32>) -> Option<usize> {
    visits
        .enumerate()
        .fold(None, |best: Option<(usize, u32)>, (i, v)| match best {
            Some((_, b)) if b >= v => best,
            _ => Some((i, v)),
        })
        .map(|(i, _)| i)
}
