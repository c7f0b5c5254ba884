//! A player alone (`bestmove`, `hub`, `play`, `serve`, `analyse`): built from its spec (or a level),
//! its net on one CPU thread.
//!
//! A lone search evaluates a few leaves at a time (8 a batch under a clock), where libtorch's
//! intra-op threads cost more than they give (measured in docs/performance.md); a sparse net
//! runs natively, on the search's own thread.

use anyhow::Result;
use arena::{Entrant, NetOptions, PlayerSpec};

/// The player `spec` names (a `level:N` among them, see [`crate::levels`]), with `options`; a net
/// player's forward passes run on one thread.
pub fn load(spec: &str, options: &NetOptions) -> Result<Entrant> {
    let entrant = Entrant::load(&crate::levels::spec(spec)?.parse::<PlayerSpec>()?, options)?;
    if let (true, Some(nets)) = (entrant.has_net(), &options.nets) {
        nets.set_cpu_threads(1);
    }
    Ok(entrant)
}

#[cfg(test)]
mod tests {
    use super::*;
    use search::{LoadedNet, NetLoader, UniformEvaluator};
    use std::path::Path;
    use std::sync::{Arc, Mutex};
    use support::DeviceSpec;

    /// Loads uniform "nets" and records the thread settings it is given.
    #[derive(Debug, Default)]
    struct Recording(Mutex<Vec<usize>>);

    impl NetLoader for Recording {
        fn load(
            &self,
            _checkpoint: &Path,
            _device: DeviceSpec,
        ) -> Result<LoadedNet, Box<dyn std::error::Error + Send + Sync>> {
            Ok(LoadedNet {
                step: 0,
                evaluators: Box::new(|| Box::new(UniformEvaluator)),
                leaves_per_batch: None,
                leaf_evaluators: None,
            })
        }

        fn set_cpu_threads(&self, threads: usize) {
            self.0.lock().unwrap().push(threads);
        }
    }

    #[test]
    fn a_lone_net_player_runs_on_one_thread_and_a_builtin_one_sets_nothing() {
        let loader = Arc::new(Recording::default());
        let options = NetOptions { nets: Some(loader.clone()), ..NetOptions::default() };
        load("alphabeta:2", &options).unwrap();
        assert!(loader.0.lock().unwrap().is_empty());
        let dir = tempfile::tempdir().unwrap();
        let net = dir.path().join("some.safetensors");
        std::fs::write(&net, "the loader above never reads it").unwrap();
        load(&format!("mcts:{}:16", net.display()), &options).unwrap();
        assert_eq!(*loader.0.lock().unwrap(), [1]);
    }
}
