//! The net's own view of a position, without a search: its value, its chances of a win, a draw
//! and a loss, and its priors over the legal moves. The page shows it at each ply of a replayed
//! game, so the position is given as a start and the moves from it (the draw counters the net
//! sees are the game's).

use anyhow::{Context, Result};
use draughts::{DrawRules, Game, Position, Turn};
use search::{EvalRequest, Evaluator, Outlook, RootMove};
use serde::Deserialize;
use serde_json::{json, Value};

/// The position to view: a start and the moves played from it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewRequest {
    /// The start in FEN (default: the initial position).
    pub fen: Option<String>,
    /// The moves from the start, in PDN move text.
    #[serde(default)]
    pub moves: Vec<String>,
}

/// What `evaluator` makes of the position `request` names; `None` when the game is over there
/// (the net has no move to rate). An error names the bad FEN or move.
pub fn view(evaluator: &mut dyn Evaluator, request: &ViewRequest) -> Result<Option<Value>> {
    let start = match &request.fen {
        Some(fen) => Position::from_fen(fen)?,
        None => Position::start(),
    };
    let mut game = Game::new(start, DrawRules::default());
    for (ply, text) in request.moves.iter().enumerate() {
        let mv = game.position().parse_move(text).with_context(|| format!("move {}", ply + 1))?;
        game.play(mv).with_context(|| format!("move {} `{text}`", ply + 1))?;
    }
    let position = *game.position();
    let turn = Turn::new(position);
    let legal_steps = turn.legal_steps();
    if game.outcome().is_some() || legal_steps.is_empty() {
        return Ok(None);
    }
    let requests = [EvalRequest { observation: game.observation(), legal_steps }];
    let evaluation = evaluator.evaluate(&requests)?.remove(0);
    let mut numbers =
        [evaluation.value, evaluation.draw].into_iter().chain(evaluation.priors.iter().copied());
    anyhow::ensure!(
        numbers.all(f32::is_finite),
        "the net's outputs are not numbers (NaN or infinite) in this position: the net is damaged"
    );
    let legal_moves = position.legal_moves();
    let mut moves: Vec<(String, f32)> = (requests[0].legal_steps.iter().zip(&evaluation.priors))
        .map(|(&step, &prior)| {
            let mut starting = legal_moves.iter().filter(|mv| mv.steps().next() == Some(step));
            let mv = match (starting.next(), starting.next()) {
                (Some(&mv), None) => Some(mv),
                _ => None,
            };
            (RootMove { step, mv, visits: 0, prior, value: None }.text(), prior)
        })
        .collect();
    moves.sort_by(|a, b| b.1.total_cmp(&a.1));
    let outlook = Outlook::of_value(evaluation.value, evaluation.draw);
    Ok(Some(json!({
        "to_move": super::games::color_name(position.side_to_move()),
        "value": evaluation.value,
        "outlook": { "win": outlook.win, "draw": outlook.draw, "loss": outlook.loss },
        "moves": moves.iter().map(|(text, prior)| json!({ "move": text, "prior": prior }))
            .collect::<Vec<_>>(),
    })))
}
