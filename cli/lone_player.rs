//! A player alone (`bestmove`, `hub`, `play`): built from its spec, its net on one CPU thread.
//!
//! A lone search evaluates a few leaves at a time (8 a batch under a clock), where libtorch's
//! intra-op threads cost more than they give: the Hub engine with the default 4x32 net searched
//! 4,300 to 4,700 playouts/s on one thread against 670 to 710 on two (2-core CPU, 2 s a move).

use anyhow::Result;
use arena::{Entrant, NetOptions, PlayerSpec};

/// The player `spec` names, with `options`; a net player's forward passes run on one thread.
pub fn load(spec: &str, options: &NetOptions) -> Result<Entrant> {
    let entrant = Entrant::load(&spec.parse::<PlayerSpec>()?, options)?;
    if let (true, Some(nets)) = (entrant.has_net(), &options.nets) {
        nets.set_cpu_threads(1);
    }
    Ok(entrant)
}
