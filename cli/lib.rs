//! The command line of `checkers-zero` and the commands that need no libtorch (perft, endgame
//! tables, matches, `bestmove`, the Hub engine, `play`, the browser board `serve` and `analyse`
//! between built-in players or with sparse nets, the shipped net among them), with no tch
//! dependency: the binary starts them without loading libtorch. Net players come through a
//! [`search::NetLoader`] the net library (`cli-torch/`) provides.

pub mod analyse;
pub mod analysis;
pub mod bestmove;
pub mod command;
pub mod egdb;
pub mod hub_cmd;
pub mod levels;
pub mod lone_player;
pub mod match_cmd;
pub mod net_commands;
pub mod net_support;
pub mod perft;
pub mod play;
pub mod serve;
pub mod shipped_net;

pub use command::{exit_status, Cli, Command, SharedCommand};
pub use net_support::NetSupport;

/// The commit this build comes from (12 hex digits, or `unknown` outside a git checkout).
pub const COMMIT: &str = env!("CHECKERS_ZERO_GIT_HASH");

/// This build's identity (version and commit), which the binary and the net library must share.
pub const BUILD: &str = env!("CHECKERS_ZERO_BUILD");
