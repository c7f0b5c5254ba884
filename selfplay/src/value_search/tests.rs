//! The alpha-beta value targets: a shot becomes a won value, every
//! decision at the start of a move is scored and no mid-capture one, and the scores are the
//! engine's own for each position of the game.

use super::ValueSearch;
use crate::SelfPlayGame;
use draughts::{Color, DrawRules, Game, Observation, Position};
use search::alphabeta::{value_of_score, LeafEvaluator, Limit};
use search::{GameRecord, MctsConfig, PlayoutCap, UniformEvaluator};

/// Men count 1, kings 1.5: the mover's material edge, squashed into -1..1.
struct Material;

impl LeafEvaluator for Material {
    fn start(&mut self, _root: &Position) {}
    fn push(&mut self, _parent: &Position, _child: &Position) {}
    fn pop(&mut self) {}
    fn value(&mut self, observation: &Observation) -> f32 {
        let position = &observation.position;
        let side = |color: Color| {
            position.men(color).count() as f32 + 1.5 * position.kings(color).count() as f32
        };
        let mover = position.side_to_move();
        (0.3 * (side(mover) - side(mover.other()))).tanh()
    }
}

/// A game of few visits a decision with the uniform net, from `fen`.
fn played(fen: &str, max_plies: u16, seed: u64) -> GameRecord {
    let config = MctsConfig {
        playout_cap: PlayoutCap { full_visits: 8, cheap_visits: 2, full_probability: 0.5 },
        ..MctsConfig::default()
    };
    let rules = DrawRules { max_plies, ..DrawRules::default() };
    let start = Position::from_fen(fen).unwrap();
    let game = SelfPlayGame::new(&config, Game::new(start, rules), seed).unwrap();
    game.play(&mut UniformEvaluator).unwrap()
}

const SENTINEL: f32 = 0.123;

#[test]
fn a_shot_is_scored_as_won() {
    // Black: 9-14 gives a man, 17x10 is forced, and 6x15x24 takes White's last two men.
    let fen = "B:W17,19:B1,6,9";
    let mut record = played(fen, 40, 1);
    for decision in &mut record.decisions {
        decision.search_value = SENTINEL;
    }
    let rules = DrawRules { max_plies: 40, ..DrawRules::default() };
    let scored = ValueSearch::new(2_000, None).score(&mut record, rules, &mut Material);
    assert!(scored > 0);
    let first = &record.decisions[0];
    assert_eq!(first.ply, 0);
    assert_eq!(first.search_value, 1.0, "Black to move wins by the shot");
}

#[test]
fn every_decision_at_the_start_of_a_move_gets_the_engines_score() {
    let rules = DrawRules { max_plies: 80, ..DrawRules::default() };
    let fen = Position::start().to_fen();
    for seed in 0..4 {
        let mut record = played(&fen, 80, seed);
        for decision in &mut record.decisions {
            decision.search_value = SENTINEL;
        }
        let nodes = 500;
        let scored = ValueSearch::new(nodes, None).score(&mut record, rules, &mut Material);
        let starts = record.decisions.iter().filter(|d| d.observation.moving_piece.is_none());
        assert_eq!(scored, starts.count());
        // Each scored value is what a fresh engine says of that position, the game's history
        // included; the mid-capture decisions keep the root's value.
        let mut game = Game::new(record.start, rules);
        let mut moves = record.moves.iter();
        for decision in &record.decisions {
            while (game.ply() as u32) < decision.ply {
                game.play_unchecked(*moves.next().unwrap());
            }
            if decision.observation.moving_piece.is_some() {
                assert_eq!(decision.search_value, SENTINEL);
                continue;
            }
            assert_eq!(decision.observation.position, *game.position());
            let mut fresh = ValueSearch::new(nodes, None);
            let best = fresh
                .engine
                .best_move_parallel(
                    &game,
                    Limit::Nodes(nodes),
                    None,
                    &mut |_| {},
                    &mut Material,
                    &mut [],
                )
                .unwrap();
            let value = value_of_score(best.score);
            assert!((-1.0..=1.0).contains(&decision.search_value));
            // The engine kept its table from decision to decision, so a fresh one may differ
            // a little; never in sign for a clear edge.
            if value.abs() > 0.5 {
                assert_eq!(value.signum(), decision.search_value.signum(), "ply {}", decision.ply);
            }
        }
    }
}
