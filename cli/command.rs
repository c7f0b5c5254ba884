//! The command line: every command and its arguments, which of them need libtorch, and the code of
//! those that run without it. The binary runs a command itself when it needs no net; otherwise the
//! net library (`cli-torch/`) runs it, with [`NetSupport`] for what the shared commands need of it.
//! What the commands share (the net flags, whether a player needs libtorch) is in
//! [`crate::net_support`], which imports no command.

use crate::egdb::EgdbArgs;
use crate::net_commands::NetCommand;
use crate::net_support::NetSupport;
use crate::{analyse, bestmove, egdb, hub_cmd, match_cmd, perft, play, serve};
use anyhow::Result;
use clap::{Parser, Subcommand};
use search::NetLoader;
use std::sync::Arc;

/// `checkers-zero`'s command line.
#[derive(Parser)]
#[command(
    name = "checkers-zero",
    version,
    about = "AlphaZero-style self-play trainer for English draughts"
)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Every command: those that always need libtorch, and those that need it only for net players.
#[derive(Subcommand)]
pub enum Command {
    /// Commands that always need libtorch.
    #[command(flatten)]
    Net(NetCommand),
    /// Commands that need it only for net players.
    #[command(flatten)]
    Shared(SharedCommand),
}

/// The commands that need libtorch only for net players (`mcts:`, `policy:`, `--net`).
#[derive(Subcommand)]
pub enum SharedCommand {
    /// Count the leaves of the move tree (move-generator check and speed).
    Perft(perft::PerftArgs),
    /// Endgame databases: build the exact tables up to N pieces, or probe positions in them.
    Egdb(EgdbArgs),
    /// Play two players against each other over the 3-move ballots (colours swapped per ballot).
    Match(match_cmd::MatchArgs),
    /// The move a player chooses in a FEN position (PDN, full path), with value and PV.
    Bestmove(bestmove::BestmoveArgs),
    /// A Hub-protocol engine on stdin/stdout for GUIs, tournament tools and pydraughts.
    Hub(hub_cmd::HubArgs),
    /// Play against a net or a built-in engine in the terminal, typing moves in PDN.
    Play(play::PlayArgs),
    /// A board in the browser: play a net or a built-in engine and watch it think.
    Serve(serve::ServeArgs),
    /// An engine's view of every move of the games in a PDN file: annotated PDN, mistakes and
    /// blunders.
    Analyse(analyse::AnalyseArgs),
}

impl SharedCommand {
    /// Whether this command line needs libtorch: a net player, or `egdb accuracy`.
    pub fn needs_net(&self) -> bool {
        match self {
            SharedCommand::Perft(_) => false,
            SharedCommand::Egdb(args) => args.needs_net(),
            SharedCommand::Match(args) => args.needs_net(),
            SharedCommand::Bestmove(args) => args.needs_net(),
            SharedCommand::Hub(args) => args.needs_net(),
            SharedCommand::Play(args) => args.needs_net(),
            SharedCommand::Serve(args) => args.needs_net(),
            SharedCommand::Analyse(args) => args.needs_net(),
        }
    }

    /// Runs the command; `net` is the net library's support, when this program has it. Sparse
    /// nets load natively either way.
    pub fn run(self, net: Option<&dyn NetSupport>) -> Result<()> {
        let loader = || {
            Some(net.map_or_else(
                || Arc::new(sparsenet::ByFamily::new(None)) as Arc<dyn NetLoader>,
                NetSupport::loader,
            ))
        };
        match self {
            SharedCommand::Perft(args) => perft::run(args),
            SharedCommand::Egdb(args) => egdb::run(args, net),
            SharedCommand::Match(args) => match_cmd::run(args, loader()),
            SharedCommand::Bestmove(args) => bestmove::run(args, loader()),
            SharedCommand::Hub(args) => hub_cmd::run(args, loader()),
            SharedCommand::Play(args) => play::run(args, loader()),
            SharedCommand::Serve(args) => serve::run(args, loader()),
            SharedCommand::Analyse(args) => analyse::run(args, loader()),
        }
    }
}

/// Characters of an error line a command prints at most.
const ERROR_CHARS: usize = 2000;

/// The exit status of a command (0 or 1), printing its error (with its causes, on one line) if it
/// failed.
pub fn exit_status(result: Result<()>) -> u8 {
    match result {
        Ok(()) => 0,
        Err(err) => {
            // `{:#}`: the error and its causes on one line, each said once (library errors keep
            // their cause as the source instead of repeating it in their message); escaped and
            // cut as a last guard, so that it stays one line whatever input it quotes.
            eprintln!("error: {}", support::escape_and_cut(&format!("{err:#}"), ERROR_CHARS));
            1
        }
    }
}
