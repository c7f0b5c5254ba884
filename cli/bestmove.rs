//! `checkers-zero bestmove [PLAYER] --fen FEN`: the move a player chooses in a position, in PDN with
//! its full path, and the search's value and principal variation when the player has them.
//! Output, one `key value` a line: `move`, then `value` and `pv` when known.

use crate::lone_player;
use crate::net_support::NetArgs;
use crate::shipped_net;
use anyhow::{Context, Result};
use arena::Contestant;
use clap::Args;
use draughts::{DrawRules, Game, Move, Position};
use search::NetLoader;
use std::io::Write;
use std::sync::Arc;

/// `checkers-zero bestmove`.
#[derive(Args)]
pub struct BestmoveArgs {
    /// The player, written as for `match` (default: the shipped net, nets/default.safetensors,
    /// with MCTS).
    player: Option<String>,
    /// The position in draughts FEN, e.g. `B:W18,K26:B14,22`.
    #[arg(long)]
    fen: String,
    #[command(flatten)]
    net: NetArgs,
    /// Seed of the player's randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

impl BestmoveArgs {
    /// Whether the player is a net that needs libtorch (the shipped net runs natively).
    pub fn needs_net(&self) -> bool {
        self.player.as_deref().is_some_and(crate::net_support::needs_libtorch)
    }
}

/// Prints the player's move in the position; `nets` loads a net player's net.
pub fn run(args: BestmoveArgs, nets: Option<Arc<dyn NetLoader>>) -> Result<()> {
    let position = Position::from_fen(&args.fen)?;
    let game = Game::new(position, DrawRules::default());
    anyhow::ensure!(
        game.outcome().is_none(),
        "FEN {:?}: the game is over; the side to move has no move",
        args.fen
    );
    let spec = shipped_net::or_shipped(args.player)?;
    let entrant = lone_player::load(&spec, &args.net.options(nets)?)?;
    let choice = entrant
        .player(args.seed)?
        .choose(&game)
        .with_context(|| format!("{} in {}", entrant.name(), args.fen))?;
    // Written, not printed: a closed output (`| head -1`) is an error line, not a panic.
    let mut out = std::io::stdout().lock();
    writeln!(out, "move {}", choice.mv)?;
    if let Some(value) = choice.value {
        writeln!(out, "value {value:.3}")?;
    }
    if !choice.pv.is_empty() {
        let pv = choice.pv.iter().map(Move::to_string).collect::<Vec<_>>().join(" ");
        writeln!(out, "pv {pv}")?;
    }
    Ok(())
}
