//! `checkers-zero serve`: a board in the browser. The binary serves one page (its assets built in,
//! nothing from elsewhere) and a small JSON API on 127.0.0.1 unless told otherwise; each browser
//! tab plays its own game against the player the command names (or one the page asks for), and
//! the engine's thinking streams to the page as it thinks (server-sent events).
//!
//! API (JSON in and out; an error is `{"error": "..."}` with a 4xx status, or 503 when the server
//! is busy or the request would pass its memory budget):
//! - `POST /api/games` `{"player"?, "human"?: "black"|"white", "fen"?, "ballot"?}`: a new game.
//! - `GET /api/games/ID`: its state: the board, whose turn, legal moves with their squares, PDN.
//! - `POST /api/games/ID/move` `{"move": "11-15"}`: the person's move.
//! - `GET /api/games/ID/think`: the engine moves; events `progress` while it thinks, then `state`.
//! - `POST /api/games/ID/undo`: takes back the person's last move (and the reply to it).
//! - `POST /api/evaluate` `{"fen"?, "moves"?}`: the engine's net's own view of the position after
//!   the moves (value, win/draw/loss chances, priors), without a search.
//! - `POST /api/analyse` `{"pdn", "game"?, "player"?, "seconds"?}`: a game of the PDN analysed
//!   position by position (the machinery of `analyse`); events `progress`, then `analysis`.
//! - with `--run-dir`: `GET /api/run` (best net, budget spent, rates, plots, game files),
//!   `GET /run/PLOT.svg`, `GET /api/run/games/FILE.pdn` (its games, the board after every ply).

mod analysis_view;
mod api;
mod games;
mod guard;
mod memory;
mod net_view;
mod run_view;

use crate::net_support::NetArgs;
use anyhow::{Context, Result};
use clap::Args;
use search::NetLoader;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Requests answered at once (each on its own thread); more are refused with 503.
const MAX_REQUESTS: usize = 64;

/// `checkers-zero serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// The engine the page plays against, written as for `match` (default: the shipped net,
    /// nets/default.safetensors, with MCTS); the page may ask for another.
    #[arg(long, value_name = "PLAYER")]
    player: Option<String>,
    /// Play a net with MCTS: a checkpoint file or a run directory (its best net). Shorthand for
    /// `--player mcts:CKPT`.
    #[arg(long, value_name = "CKPT", conflicts_with = "player")]
    net: Option<String>,
    /// A run to show beside the board: its best net, progress and plots, and its games to
    /// replay. Its best net is the engine unless --player or --net names another.
    #[arg(long, value_name = "DIR")]
    run_dir: Option<std::path::PathBuf>,
    /// The port to listen on (0: any free one, printed at start).
    #[arg(long, default_value_t = 8321)]
    port: u16,
    /// The address to listen on. Anything but a loopback address lets other machines play the
    /// players a page may start: the command warns.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    bind: IpAddr,
    /// Another name the board is reached by (a host name, with `:PORT` when it differs), beside
    /// 127.0.0.1, localhost and the bound address; requests naming any other host are refused.
    #[arg(long, value_name = "NAME")]
    allow_host: Vec<String>,
    /// Another player a page may start by name, beside the built-in engines and the server's
    /// own player (repeat for more).
    #[arg(long, value_name = "PLAYER")]
    page_player: Vec<String>,
    /// The most memory the server's games, analyses and engines may hold together, in MiB, each
    /// counted at its worst case (its search's table or tree at its ceiling, its net, its
    /// record); what would pass it is refused with 503, after the oldest games no request is
    /// using are given up [default: 512, or CHECKERS_ZERO_MAX_SERVE_MB].
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..))]
    max_memory_mb: Option<u64>,
    #[command(flatten)]
    thinking: NetArgs,
}

impl ServeArgs {
    /// The default engine named, as a spec; `None` for the shipped net.
    fn spec(&self) -> Option<String> {
        match (&self.net, &self.player, &self.run_dir) {
            (Some(net), _, _) => Some(format!("mcts:{net}")),
            (None, Some(player), _) => Some(player.clone()),
            (None, None, run) => run.as_ref().map(|run| format!("mcts:{}", run.display())),
        }
    }

    /// Whether the default engine is a net that needs libtorch (the shipped net runs natively).
    pub fn needs_net(&self) -> bool {
        self.spec().is_some_and(|spec| crate::net_support::needs_libtorch(&spec))
    }
}

/// Serves the board until the process is stopped; `nets` loads net players' nets.
pub fn run(args: ServeArgs, nets: Option<Arc<dyn NetLoader>>) -> Result<()> {
    let options = args.thinking.options(nets)?;
    let run = args.run_dir.clone().map(run_view::RunView::open).transpose()?;
    let default_player = crate::shipped_net::or_shipped(args.spec())?;
    let budget = memory::budget_bytes(args.max_memory_mb)?;
    memory::fit_tree_ceiling(budget);
    let budget = memory::Budget::new(budget);
    let games = games::Games::new(default_player, args.page_player.clone(), options, budget)?;
    let address = SocketAddr::new(args.bind, args.port);
    if !args.bind.is_loopback() {
        eprintln!(
            "warning: serving on {address}: other machines can reach the board and play the players a page may start"
        );
    }
    let server = tiny_http::Server::http(address)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("listening on {address}"))?;
    let shown = server.server_addr().to_ip().map_or(address, |a| a);
    println!("the board is at http://{shown}/ (playing {}); Ctrl-C stops", games.default_player());
    let guard = guard::Guard::new(args.bind, shown.port(), &args.allow_host);
    let site = Arc::new(api::Site { games, analyses: Default::default(), run, guard });
    let busy = Arc::new(AtomicUsize::new(0));
    for request in server.incoming_requests() {
        if busy.fetch_add(1, Ordering::SeqCst) >= MAX_REQUESTS {
            busy.fetch_sub(1, Ordering::SeqCst);
            api::refuse_busy(request);
            continue;
        }
        let (site, busy) = (Arc::clone(&site), Arc::clone(&busy));
        std::thread::spawn(move || {
            api::answer(request, &site);
            busy.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    #[derive(Parser)]
    struct Serve {
        #[command(flatten)]
        args: super::ServeArgs,
    }

    #[test]
    fn the_help_gives_the_memory_budgets_default_and_its_variable() {
        let help = Serve::command().render_long_help().to_string();
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        let default = format!(
            "[default: {}, or {}]",
            super::memory::DEFAULT_BUDGET_MB,
            super::memory::BUDGET_VAR
        );
        assert!(help.contains("--max-memory-mb <MIB>") && help.contains(&default), "{help}");
    }
}
