//! The alpha-beta player finds forced wins, checked against a plain minimax solver, with its
//! static evaluation and with a net that values every quiet position at 0.

use crate::player::Player;
use crate::players::alphabeta::AlphaBetaPlayer;
use draughts::{DrawRules, Game, Observation, Position};
use search::alphabeta::{LeafEvaluator, Limit, SearchFeatures};
use search::{LoadedNet, ScriptedEvaluator};

/// Whether the side to move in `position` wins by force within `plies` plies (its own moves
/// included): it can move so that the opponent has no move, or so that every reply leaves such a
/// win within `plies - 2`. Draw rules do not matter at these depths.
fn wins_within(position: &Position, plies: u32) -> bool {
    plies >= 1 && position.legal_moves().iter().any(|&mv| keeps_win(position, mv, plies))
}

/// Whether playing `mv` in `position` wins by force within `plies` plies.
fn keeps_win(position: &Position, mv: draughts::Move, plies: u32) -> bool {
    let next = position.play(mv);
    let replies = next.legal_moves();
    replies.is_empty()
        || (plies >= 3 && replies.iter().all(|&r| wins_within(&next.play(r), plies - 2)))
}

/// Positions (found by random play) won by force in 7 plies but not in 5, with a single winning
/// move among several.
const WON_IN_SEVEN: [&str; 6] = [
    "B:WK11:B13,K22,27",
    "B:W18,27:B7,10,13,16,20,K21",
    "W:WK1,K30:B11",
    "W:W21,K23:B14",
    "W:WK2,5,K8,17,18,26:BK19",
    "W:WK4,8,26,27,28,29:B17,19",
];

#[test]
fn alphabeta_finds_the_only_winning_move() {
    finds_the_only_winning_moves(AlphaBetaPlayer::new(Limit::Depth(8)));
}

/// A leaf evaluator that values every position at 0.
struct ZeroLeaves;

impl LeafEvaluator for ZeroLeaves {
    fn start(&mut self, _root: &Position) {}
    fn push(&mut self, _parent: &Position, _child: &Position) {}
    fn pop(&mut self) {}
    fn value(&mut self, _observation: &Observation) -> f32 {
        0.0
    }
}

/// A net that values every quiet position at 0, asked a leaf at a time or incrementally.
fn zero_net(incremental: bool) -> LoadedNet {
    LoadedNet {
        step: 0,
        evaluators: Box::new(|| Box::new(ScriptedEvaluator::new())),
        leaves_per_batch: None,
        leaf_evaluators: incremental.then(|| {
            Box::new(|| Box::new(ZeroLeaves) as Box<dyn LeafEvaluator>) as search::LeafEvaluators
        }),
    }
}

/// The full engine reduces late moves by several plies, so its nominal depth reaches past the
/// win's seven plies by as many as it may reduce along the way.
#[test]
fn alphabeta_with_a_net_that_knows_nothing_finds_the_only_winning_move() {
    for incremental in [false, true] {
        finds_the_only_winning_moves(AlphaBetaPlayer::new(Limit::Depth(13)).with_net(
            "alphabeta:13,net=zero".into(),
            &zero_net(incremental),
            None,
            SearchFeatures::full(),
        ));
    }
}

/// `player` plays the winning move of each of [`WON_IN_SEVEN`] and sees the win.
fn finds_the_only_winning_moves(mut player: AlphaBetaPlayer) {
    for fen in WON_IN_SEVEN {
        let position = Position::from_fen(fen).unwrap();
        let winning =
            position.legal_moves().iter().filter(|&&mv| keeps_win(&position, mv, 7)).count();
        assert!(
            winning == 1 && position.legal_moves().len() > 1 && !wins_within(&position, 5),
            "{fen}"
        );
        let game = Game::new(position, DrawRules::default());
        let choice = player.choose(&game).unwrap();
        assert!(keeps_win(&position, choice.mv, 7), "{fen}: played {}", choice.mv);
        assert_eq!(choice.value, Some(1.0), "{fen}: the engine sees the win");
        assert_eq!(choice.pv.first(), Some(&choice.mv));
    }
}
