//! What the commands that may play a net share, importing no command: the flags of net players
//! ([`NetArgs`]), whether a player needs libtorch ([`needs_libtorch`]), and what the net library
//! gives the commands that the binary runs ([`NetSupport`]).

use crate::net_commands::AccuracyArgs;
use anyhow::{Context, Result};
use arena::NetOptions;
use clap::Args;
use search::NetLoader;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// How net players think when their spec does not say.
#[derive(Args)]
pub struct NetArgs {
    /// MCTS playouts per decision for mcts players that name none.
    #[arg(long, conflicts_with = "time")]
    playouts: Option<u32>,
    /// Seconds per move for every player that names no budget: mcts players without playouts
    /// and `alphabeta` without a depth (so `match mcts:NET alphabeta --time 0.1` is equal time).
    #[arg(long, value_name = "SECONDS")]
    time: Option<f64>,
    /// Where nets run: cpu, cuda, cuda:N or auto.
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Folder of endgame tables (`checkers-zero egdb build`): mcts players take the positions they
    /// cover as exact, and `match` adjudicates a game at the first such position. A folder without
    /// tables means none; a damaged table is an error.
    #[arg(long, value_name = "DIR")]
    egdb: Option<PathBuf>,
}

impl NetArgs {
    /// The players' options, with `nets` to load their nets.
    pub fn options(&self, nets: Option<Arc<dyn NetLoader>>) -> Result<NetOptions> {
        let mut options =
            NetOptions { device: self.device.parse()?, nets, ..NetOptions::default() };
        if let Some(playouts) = self.playouts {
            anyhow::ensure!(playouts >= 1, "--playouts {playouts}: must be at least 1");
            options.playouts = playouts;
        }
        if let Some(time) = self.time {
            anyhow::ensure!(
                time > 0.0 && time <= 3600.0,
                "--time {time}: must be in (0, 3600] seconds"
            );
            options.time = Some(Duration::from_secs_f64(time));
        }
        if let Some(dir) = &self.egdb {
            let tables = ::egdb::Tables::open(dir)
                .with_context(|| format!("--egdb {}: loading the endgame tables", dir.display()))?;
            options.egdb = (tables.max_pieces() > 0).then(|| Arc::new(tables));
        }
        Ok(options)
    }
}

/// What the net library gives the shared commands.
pub trait NetSupport {
    /// Loads the nets of net players.
    fn loader(&self) -> Arc<dyn NetLoader>;
    /// Runs `egdb accuracy`.
    fn egdb_accuracy(&self, args: AccuracyArgs) -> Result<()>;
}

/// Whether the player named `text` needs libtorch: a net player whose checkpoint is not of the
/// sparse family (those run natively). A spec that does not parse says no: the binary itself
/// then reports what is wrong with it.
pub fn needs_libtorch(text: &str) -> bool {
    arena::names_a_net(text)
        && text
            .parse::<arena::PlayerSpec>()
            .is_ok_and(|spec| spec.net().is_some_and(|net| !sparsenet::is_sparse(&net.checkpoint)))
}

/// `net`, or an error saying that `what` needs the net library.
pub fn needs<'a>(net: Option<&'a dyn NetSupport>, what: &str) -> Result<&'a dyn NetSupport> {
    net.ok_or_else(|| anyhow::anyhow!("{what} needs the net library (libtorch)"))
}
