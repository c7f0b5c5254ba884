//! `checkers-zero hub [--player SPEC | --net CKPT]`: a Hub-protocol engine on stdin and stdout,
//! for GUIs, tournament managers and pydraughts. The player is loaded once; its search tree (or
//! table) is kept from move to move while the GUI's game goes on, and `new-game` gives a fresh
//! player.

use crate::lone_player;
use crate::net_support::NetArgs;
use anyhow::Result;
use arena::{Contestant, Entrant, Player, PlayerSpec};
use clap::Args;
use draughts::Game;
use hub::{Engine, Thought};
use search::{NetLoader, ThinkRequest};
use std::io::BufReader;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The time per move of an alpha-beta player that names neither depth nor time (`alphabeta`,
/// `alphabeta,net=CKPT`) until the GUI's `level` sets one, unless `--time` gives another.
const OWN_MOVE_TIME: Duration = Duration::from_secs(1);

/// `checkers-zero hub`.
#[derive(Args)]
pub struct HubArgs {
    /// The player behind the engine, written as for `match` (default: the shipped net,
    /// nets/default.safetensors, with MCTS; a `level` from the GUI replaces its depth, time or
    /// playouts; a bare `alphabeta` thinks 1 s a move until then, or `--time`).
    #[arg(long, conflicts_with = "net")]
    player: Option<String>,
    /// A checkpoint or run directory to play with MCTS (the same as `--player mcts:CKPT`).
    #[arg(long)]
    net: Option<PathBuf>,
    #[command(flatten)]
    options: NetArgs,
    /// Seed of the player's randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

impl HubArgs {
    /// The player named, as a spec; `None` for the shipped net.
    fn spec(&self) -> Option<String> {
        match (&self.player, &self.net) {
            (Some(player), _) => Some(player.clone()),
            (None, net) => net.as_ref().map(|net| format!("mcts:{}", net.display())),
        }
    }

    /// Whether the player is a net that needs libtorch (the shipped net runs natively).
    pub fn needs_net(&self) -> bool {
        self.spec().is_some_and(|spec| crate::net_support::needs_libtorch(&spec))
    }
}

/// Serves the Hub protocol until `quit` or the end of input; `nets` loads a net player's net.
pub fn run(args: HubArgs, nets: Option<Arc<dyn NetLoader>>) -> Result<()> {
    let spec = crate::shipped_net::or_shipped(args.spec())?;
    let mut options = args.options.options(nets)?;
    if matches!(spec.parse(), Ok(PlayerSpec::AlphaBeta { limit: None, .. })) {
        options.time.get_or_insert(OWN_MOVE_TIME);
    }
    let entrant = lone_player::load(&spec, &options)?;
    let engine = PlayerEngine { player: entrant.player(args.seed)?, entrant, seed: args.seed };
    let input = BufReader::new(std::io::stdin());
    hub::serve(engine, input, std::io::stdout()).map_err(|err| anyhow::anyhow!("hub: {err}"))
}

/// A match player behind the protocol; a new game gets a fresh player (empty tree and table).
struct PlayerEngine {
    entrant: Entrant,
    player: Box<dyn Player>,
    seed: u64,
}

impl Engine for PlayerEngine {
    fn name(&self) -> String {
        format!("checkers-zero {}", self.entrant.name())
    }

    fn think(
        &mut self,
        game: &Game,
        request: ThinkRequest<'_>,
    ) -> Result<Thought, Box<dyn std::error::Error + Send + Sync>> {
        let choice = self.player.think(game, request)?;
        Ok(Thought { mv: choice.mv, pv: choice.pv })
    }

    fn new_game(&mut self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        self.player = self.entrant.player(self.seed)?;
        Ok(())
    }
}
