//! `checkers-zero serve`: a board in the browser. The binary serves one page (its assets built in,
//! nothing from elsewhere) and a small JSON API on 127.0.0.1 unless told otherwise; each browser
//! tab plays its own game against the player the command names (or one the page asks for), and
//! the engine's thinking streams to the page as it thinks (server-sent events).
//!
//! API (JSON in and out; an error is `{"error": "..."}` with a 4xx status):
//! - `POST /api/games` `{"player"?, "human"?: "black"|"white", "fen"?, "ballot"?}`: a new game.
//! - `GET /api/games/ID`: its state: the board, whose turn, legal moves with their squares, PDN.
//! - `POST /api/games/ID/move` `{"move": "11-15"}`: the person's move.
//! - `GET /api/games/ID/think`: the engine moves; events `progress` while it thinks, then `state`.
//! - `POST /api/games/ID/undo`: takes back the person's last move (and the reply to it).

mod api;
mod games;

use crate::match_cmd::NetArgs;
use anyhow::{Context, Result};
use clap::Args;
use search::NetLoader;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

/// `checkers-zero serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// The engine the page plays against, written as for `match` (default: alphabeta:0.5s); the
    /// page may ask for another.
    #[arg(long, value_name = "PLAYER")]
    player: Option<String>,
    /// Play a net with MCTS: a checkpoint file or a run directory (its best net). Shorthand for
    /// `--player mcts:CKPT`.
    #[arg(long, value_name = "CKPT", conflicts_with = "player")]
    net: Option<String>,
    /// The port to listen on (0: any free one, printed at start).
    #[arg(long, default_value_t = 8321)]
    port: u16,
    /// The address to listen on. Anything but a loopback address lets other machines play (and
    /// load nets by path): the command warns.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    bind: IpAddr,
    #[command(flatten)]
    thinking: NetArgs,
}

impl ServeArgs {
    /// The default engine, as a spec.
    fn spec(&self) -> String {
        match (&self.net, &self.player) {
            (Some(net), _) => format!("mcts:{net}"),
            (None, Some(player)) => player.clone(),
            (None, None) => games::DEFAULT_PLAYER.to_string(),
        }
    }

    /// Whether the default engine is a net that needs libtorch.
    pub fn needs_net(&self) -> bool {
        crate::command::needs_libtorch(&self.spec())
    }
}

/// Serves the board until the process is stopped; `nets` loads net players' nets.
pub fn run(args: ServeArgs, nets: Option<Arc<dyn NetLoader>>) -> Result<()> {
    let options = args.thinking.options(nets)?;
    let games = games::Games::new(args.spec(), options)?;
    let address = SocketAddr::new(args.bind, args.port);
    if !args.bind.is_loopback() {
        eprintln!(
            "warning: serving on {address}: other machines can reach the board and make it load nets by path"
        );
    }
    let server = tiny_http::Server::http(address)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("listening on {address}"))?;
    let shown = server.server_addr().to_ip().map_or(address, |a| a);
    println!("the board is at http://{shown}/ (playing {}); Ctrl-C stops", games.default_player());
    let games = Arc::new(games);
    for request in server.incoming_requests() {
        let games = Arc::clone(&games);
        std::thread::spawn(move || api::answer(request, &games));
    }
    Ok(())
}
