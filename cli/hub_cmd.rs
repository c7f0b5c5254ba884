//! `checkers-zero hub [--player SPEC | --net CKPT]`: a Hub-protocol engine on stdin and stdout,
//! for GUIs, tournament managers and pydraughts. The player is loaded once; its search tree (or
//! table) is kept from move to move while the GUI's game goes on, and `new-game` gives a fresh
//! player.
//!
//! The engine offers the GUI one setting beside `variant`: `level`, 0 (the player named, the
//! default) or a level for people, 1 (the weakest) to 8, the `level:N` players of
//! [`crate::levels`]. A level (set so, or named with `--player level:N`) plays its own calibrated
//! playouts whatever the GUI's `level` command says (a clock, nodes or a depth neither strengthen
//! nor weaken it), and a search the GUI ends itself (`go analyze`, `go ponder`, `level infinite`)
//! answers when stopped or at the ponder's deadline, as any search would.

use crate::lone_player;
use crate::net_support::NetArgs;
use anyhow::Result;
use arena::{Contestant, Entrant, NetOptions, Player, PlayerSpec};
use clap::Args;
use draughts::Game;
use hub::{Engine, Param, Thought};
use search::{MoveBudget, NetLoader, ThinkRequest};
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
    /// playouts, except a `level:N`'s; a bare `alphabeta` thinks 1 s a move until then, or
    /// `--time`). The GUI's `level` parameter switches to a level for people and back.
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
    let engine = PlayerEngine {
        player: entrant.player(args.seed)?,
        own: entrant,
        own_is_level: crate::levels::names_a_level(&spec),
        level: None,
        options,
        seed: args.seed,
    };
    let input = BufReader::new(std::io::stdin());
    hub::serve(engine, input, std::io::stdout()).map_err(|err| anyhow::anyhow!("hub: {err}"))
}

/// The `level` setting's name.
const LEVEL: &str = "level";
/// How often a level's finished search looks whether the GUI has stopped it.
const STOP_POLL: Duration = Duration::from_millis(1);

/// A match player behind the protocol; a new game gets a fresh player (empty tree and table).
struct PlayerEngine {
    /// The player named on the command line: level 0.
    own: Entrant,
    /// Whether that player is itself a level (`--player level:N`).
    own_is_level: bool,
    /// The level the GUI set (1 to 8) and its player, when it set one.
    level: Option<(i64, Entrant)>,
    /// What the players are loaded with.
    options: NetOptions,
    player: Box<dyn Player>,
    seed: u64,
}

impl PlayerEngine {
    fn entrant(&self) -> &Entrant {
        self.level.as_ref().map_or(&self.own, |(_, entrant)| entrant)
    }
}

impl Engine for PlayerEngine {
    fn name(&self) -> String {
        format!("checkers-zero {}", self.own.name())
    }

    fn think(
        &mut self,
        game: &Game,
        request: ThinkRequest<'_>,
    ) -> Result<Thought, Box<dyn std::error::Error + Send + Sync>> {
        if self.level.is_none() && !self.own_is_level {
            let choice = self.player.think(game, request)?;
            return Ok(Thought { mv: choice.mv, pv: choice.pv });
        }
        // A level searches its own playouts, and a search the GUI ends itself waits for it.
        let ThinkRequest { budget, control, report } = request;
        let own = ThinkRequest { budget: MoveBudget::Own, control, report };
        let choice = self.player.think(game, own)?;
        if budget == MoveBudget::Infinite {
            while !control.should_stop() {
                std::thread::sleep(STOP_POLL);
            }
        }
        Ok(Thought { mv: choice.mv, pv: choice.pv })
    }

    fn new_game(&mut self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        self.player = self.entrant().player(self.seed)?;
        Ok(())
    }

    fn params(&self) -> Vec<Param> {
        vec![Param { name: LEVEL, default: 0, min: 0, max: crate::levels::COUNT as i64 }]
    }

    fn set_param(
        &mut self,
        name: &str,
        value: i64,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        if name != LEVEL {
            return Err(format!("unknown parameter `{name}`").into());
        }
        self.level = match value {
            0 => None,
            n => Some((n, lone_player::load(&format!("level:{n}"), &self.options)?)),
        };
        self.player = self.entrant().player(self.seed)?;
        Ok(())
    }
}
