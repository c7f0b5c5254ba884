//! MCTS-solver: exact game values proven inside the tree. A node whose game ends (or whose
//! position the endgame tables cover) is proven by its end; a node is then proven a win for its
//! side to move as soon as one child is a proven win for that side, and proven as the best of its
//! children's exact values once every child is proven. Proofs travel up at once, so the search
//! steps into a proven win without hesitating, never wastes visits under a proven node, and
//! avoids a proven loss while any other step is left.

use crate::decision::Terminal;
use crate::tree::{NodeId, Tree, NO_NODE};
use draughts::Color;

/// What is proven about a node, from the view of its own side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Proof {
    /// Nothing yet: the node's value is the mean of its visits.
    #[default]
    Unknown,
    Win,
    Draw,
    Loss,
}

impl Proof {
    /// The proof a game end gives its node.
    pub fn of_terminal(terminal: Terminal) -> Proof {
        match terminal {
            Terminal::Loss | Terminal::Table(egdb::Wdl::Loss) => Proof::Loss,
            Terminal::Draw | Terminal::Table(egdb::Wdl::Draw) => Proof::Draw,
            Terminal::Table(egdb::Wdl::Win) => Proof::Win,
        }
    }

    /// The exact value (+1, 0 or -1) for the node's side to move, when proven.
    pub fn value(self) -> Option<f32> {
        match self {
            Proof::Unknown => None,
            Proof::Win => Some(1.0),
            Proof::Draw => Some(0.0),
            Proof::Loss => Some(-1.0),
        }
    }

    /// The same proof seen by `viewer`, when it belongs to a node where `owner` is to move (a
    /// step within a multi-jump keeps the side to move, so nothing turns there).
    pub fn seen_by(self, owner: Color, viewer: Color) -> Proof {
        match self {
            Proof::Win if owner != viewer => Proof::Loss,
            Proof::Loss if owner != viewer => Proof::Win,
            proof => proof,
        }
    }
}

/// The proof of `child` (a child of `id`, or `NO_NODE` for an edge not yet followed), seen by
/// `id`'s side to move; `Unknown` when there is no child yet.
pub(crate) fn child_proof(tree: &Tree, id: NodeId, child: NodeId) -> Proof {
    if child == NO_NODE {
        return Proof::Unknown;
    }
    let child = tree.node(child);
    child.proof.seen_by(child.mover(), tree.node(id).mover())
}

/// What `id`'s children prove about it: a win as soon as one child is a win for its mover,
/// otherwise, once every child is proven, the best of their values.
fn proof_from_children(tree: &Tree, id: NodeId) -> Proof {
    let mut best = Proof::Loss;
    let mut all_proven = true;
    for edge in tree.edges(id) {
        match child_proof(tree, id, edge.child) {
            Proof::Win => return Proof::Win,
            Proof::Draw => best = Proof::Draw,
            Proof::Loss => {}
            Proof::Unknown => all_proven = false,
        }
    }
    if all_proven {
        best
    } else {
        Proof::Unknown
    }
}

/// Sets `proof` on `id` and carries what it proves up through the ancestors, stopping at the
/// first one whose proof does not change.
pub(crate) fn prove(tree: &mut Tree, id: NodeId, proof: Proof) {
    tree.node_mut(id).proof = proof;
    let mut id = tree.node(id).parent;
    while id != NO_NODE {
        let node = tree.node(id);
        let proof = proof_from_children(tree, id);
        if proof == Proof::Unknown || proof == node.proof {
            return;
        }
        let parent = node.parent;
        tree.node_mut(id).proof = proof;
        id = parent;
    }
}

#[cfg(test)]
mod tests {
    use crate::test_positions::{position, shot_step, step, two_for_one_shot};
    use crate::{
        Budget, EvalError, EvalRequest, Evaluation, Evaluator, MctsConfig, Search, UniformEvaluator,
    };
    use draughts::{Color, Direction, DrawRules, Game, Position};

    fn config(solver: bool, pass_forced: bool) -> MctsConfig {
        MctsConfig { dirichlet_fraction: 0.0, solver, pass_forced, ..MctsConfig::default() }
    }

    fn searched(
        position: Position,
        config: &MctsConfig,
        visits: u32,
        evaluator: &mut impl Evaluator,
    ) -> Search {
        let game = Game::new(position, DrawRules::default());
        let mut search = Search::new(config, &game, 1).unwrap();
        search.run(evaluator, Budget { visits, root_noise: false }).unwrap();
        search
    }

    /// The uniform evaluator, counting requests and the forced ones among them.
    #[derive(Default)]
    struct Counting {
        requests: usize,
        forced: usize,
    }

    impl Evaluator for Counting {
        fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
            self.requests += requests.len();
            self.forced += requests.iter().filter(|r| r.legal_steps.len() == 1).count();
            UniformEvaluator.evaluate(requests)
        }
    }

    #[test]
    fn the_solver_proves_a_shot_in_few_visits() {
        // Without the solver the uniform evaluator needs thousands of visits to trust the shot.
        let search = searched(two_for_one_shot(), &config(true, false), 200, &mut UniformEvaluator);
        let result = search.result();
        assert_eq!(result.value, 1.0, "the root is a proven win: {result:?}");
        assert_eq!(result.best_step(), Some(shot_step()), "{result:?}");
        let unproven =
            searched(two_for_one_shot(), &config(false, false), 200, &mut UniformEvaluator);
        assert!(unproven.result().value < 1.0);
    }

    #[test]
    fn a_proven_win_is_played_and_a_proven_loss_never_even_at_temperature() {
        let mut search =
            searched(two_for_one_shot(), &config(true, false), 200, &mut UniformEvaluator);
        for _ in 0..50 {
            assert_eq!(search.choose_step(1.0), Some(shot_step()));
        }
        // Black's only man on 9: 9-14 is taken by 18x9 and Black has nothing left; 9-13 is safe.
        let pos = position(&[9], &[18, 30], &[], Color::Black);
        let mut search = searched(pos, &config(true, false), 100, &mut UniformEvaluator);
        let losing = step(9, Direction::DownRight);
        let result = search.result();
        let lost = result.steps.iter().find(|s| s.step == losing).unwrap();
        assert!(lost.visits <= 2, "a proven loss gets no more visits: {result:?}");
        for _ in 0..50 {
            assert_eq!(search.choose_step(1.0), Some(step(9, Direction::DownLeft)));
        }
    }

    #[test]
    fn forced_steps_are_passed_through_without_the_evaluator() {
        let mut plain = Counting::default();
        searched(two_for_one_shot(), &config(false, false), 300, &mut plain);
        assert!(plain.forced > 0, "the shot's line has forced steps");
        let mut passing = Counting::default();
        let search = searched(two_for_one_shot(), &config(false, true), 300, &mut passing);
        assert_eq!(passing.forced, 0, "no forced step reaches the evaluator");
        assert_eq!(search.result().best_step(), Some(shot_step()));
        // A root with one legal step is passed through too: 10x19 is compulsory here.
        let pos = position(&[1, 10], &[15, 30], &[], Color::Black);
        let mut counting = Counting::default();
        let search = searched(pos, &config(true, true), 50, &mut counting);
        assert_eq!(counting.forced, 0);
        assert_eq!(search.result().best_step(), Some(step(10, Direction::DownRight)));
    }
}
