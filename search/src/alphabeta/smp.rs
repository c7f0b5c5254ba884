//! Lazy SMP: a search on several threads. Helper engines search the same root at once, each with
//! its own path, history and leaf evaluator, all through the one transposition table; every
//! other helper searches each iteration a ply deeper, so the threads spread over the depths. The
//! main engine's answer is played: a helper's worth is in the entries it leaves in the table
//! (their bounds, and the moves that order the main search). Helpers stop when the main search
//! ends.

use super::leaf::{Incremental, Leaves, StaticEval};
use super::{AlphaBeta, BestMove, Limit, Root, SearchFeatures};
use crate::alphabeta::LeafEvaluator;
use crate::control::SearchControl;
use draughts::Game;
use std::sync::Arc;

impl AlphaBeta {
    /// The engine with `threads - 1` helpers sharing its table (a helper has none).
    pub(super) fn with_helpers(mut self) -> AlphaBeta {
        let helpers = usize::from(self.features.threads.max(1)) - 1;
        let features = SearchFeatures { threads: 1, ..self.features };
        self.helpers = (0..helpers)
            .map(|_| {
                let mut helper = AlphaBeta::sharing(Arc::clone(&self.table), features);
                helper.is_helper = true;
                helper.tables = self.tables.clone();
                helper
            })
            .collect();
        self
    }

    /// The threads a search of this engine uses.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// [`AlphaBeta::best_move_controlled`] on the engine's threads.
    pub(super) fn search_static(
        &mut self,
        game: &Game,
        limit: Limit,
        control: Option<&SearchControl>,
        on_iteration: &mut dyn FnMut(&BestMove),
    ) -> Option<BestMove> {
        let helper_leaves = vec![StaticEval; self.helpers.len()];
        let Ok(best) =
            self.search_threads(game, limit, control, on_iteration, &mut StaticEval, helper_leaves);
        best
    }

    /// [`AlphaBeta::best_move_controlled`] with `leaves`' value of each quiet leaf, told of every
    /// move the search makes and takes back, on the engine's threads: `leaves` scores the main
    /// search's quiet leaves and each of `helper_leaves` a helper's (as many helpers search as
    /// both have; none: this thread alone). The answer's node count is every thread's.
    pub fn best_move_parallel(
        &mut self,
        game: &Game,
        limit: Limit,
        control: Option<&SearchControl>,
        on_iteration: &mut dyn FnMut(&BestMove),
        leaves: &mut dyn LeafEvaluator,
        helper_leaves: &mut [Box<dyn LeafEvaluator>],
    ) -> Option<BestMove> {
        let helper_leaves = helper_leaves.iter_mut().map(|l| Incremental(l.as_mut())).collect();
        let Ok(best) = self.search_threads(
            game,
            limit,
            control,
            on_iteration,
            &mut Incremental(leaves),
            helper_leaves,
        );
        best
    }

    /// The iterative deepening on this thread and one more for each helper with leaves in
    /// `helper_leaves`.
    fn search_threads<L: Leaves + Send>(
        &mut self,
        game: &Game,
        limit: Limit,
        control: Option<&SearchControl>,
        on_iteration: &mut dyn FnMut(&BestMove),
        leaves: &mut L,
        helper_leaves: Vec<L>,
    ) -> Result<Option<BestMove>, L::Error> {
        if self.helpers.is_empty() || helper_leaves.is_empty() {
            return self.search(game, limit, control, on_iteration, leaves);
        }
        let root = match self.begin(game, limit, on_iteration) {
            None => return Ok(None),
            Some(Root::Answered(best)) => return Ok(Some(best)),
            Some(Root::Search(root)) => root,
        };
        leaves.start(&root.position);
        let stop = SearchControl::new();
        let mut helpers = std::mem::take(&mut self.helpers);
        let result = std::thread::scope(|scope| {
            for (i, (helper, mut leaves)) in helpers.iter_mut().zip(helper_leaves).enumerate() {
                let (stop, root) = (&stop, &root);
                scope.spawn(move || {
                    helper.start(game, limit);
                    leaves.start(&root.position);
                    let skew = u32::from(i % 2 == 0);
                    // The helper's own answer is not used (see the module's header).
                    let _ = helper.deepen(root, skew, Some(stop), &mut |_| {}, &mut leaves);
                });
            }
            let result = self.deepen(&root, 0, control, on_iteration, leaves);
            stop.stop();
            result
        });
        let helper_nodes: u64 = helpers.iter().map(|helper| helper.nodes).sum();
        self.helpers = helpers;
        let mut best = result?;
        best.nodes += helper_nodes;
        Ok(Some(best))
    }
}
