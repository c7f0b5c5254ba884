//! Opening a run directory: its config (new or resumed), its first net, and nets loaded for
//! inference on the configured device.

use crate::config::RunConfig;
use anyhow::{bail, Context, Result};
use cli::net_commands::RunDirArgs;
use model::{Inference, PolicyValueNet};
use rundata::{BestNet, RunDir};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Opens the run the flags name (see [`open_run`]).
pub fn open_run_args(args: &RunDirArgs) -> Result<(RunDir, RunConfig)> {
    open_run(&args.run_dir, args.config.as_deref())
}

/// Opens the run at `run_dir`. A new run takes `config` (or `configs/default.toml`) and keeps a copy;
/// an existing run uses its own copy, and a `config` given too must say the same (budgets aside).
pub fn open_run(run_dir: &Path, config: Option<&Path>) -> Result<(RunDir, RunConfig)> {
    let run = RunDir::create(run_dir)?;
    let saved = run.config_file();
    if saved.exists() {
        let kept = RunConfig::load(&saved)?;
        if let Some(path) = config {
            let given = RunConfig::load(path)?;
            if (RunConfig { budget: kept.budget, ..given }) != kept {
                bail!(
                    "{} was started with a different config than {}: resume without --config, \
                     or start a new run with another --run-dir",
                    run_dir.display(),
                    path.display()
                );
            }
            return Ok((run, RunConfig { budget: given.budget, ..kept }));
        }
        return Ok((run, kept));
    }
    let path =
        config.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("configs/default.toml"));
    let config = RunConfig::load(&path)?;
    rundata::write_atomic(&saved, provenance(&config).as_bytes())?;
    Ok((run, config))
}

/// The resolved config as TOML, headed by comments naming the version and commit that wrote it.
fn provenance(config: &RunConfig) -> String {
    format!(
        "# checkers-zero {} (git {}), run created at unix time {}\n{}",
        env!("CARGO_PKG_VERSION"),
        env!("CHECKERS_ZERO_GIT_HASH"),
        unix_now(),
        config.to_toml()
    )
}

pub fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The run's best net, creating the first one (seeded random weights, generation 0) if it has none.
pub fn ensure_best(run: &RunDir, config: &RunConfig) -> Result<BestNet> {
    if let Some(best) = run.best()? {
        return Ok(best);
    }
    tch::manual_seed(config.seed as i64);
    let net = PolicyValueNet::new(&config.net, tch::Device::Cpu)?;
    let path = train::candidate_path(&run.nets_dir(), 0);
    model::checkpoint::save(&path, &net, 0, None, &Default::default())?;
    let best = BestNet {
        checkpoint: relative_to_run(run, &path),
        step: 0,
        generation: 0,
        promoted_at: unix_now(),
    };
    run.set_best(&best)?;
    Ok(best)
}

/// `path` relative to the run directory (as the best-net pointer records it).
pub fn relative_to_run(run: &RunDir, path: &Path) -> PathBuf {
    path.strip_prefix(run.root()).map_or_else(|_| path.to_path_buf(), Path::to_path_buf)
}

/// Loads the checkpoint at `path` for inference on the configured device.
pub fn load_inference(path: &Path, config: &RunConfig) -> Result<Inference> {
    let device = model::resolve_device(config.device)?;
    let checkpoint = model::checkpoint::load(path, Some(&config.net), device)
        .with_context(|| format!("loading net {}", path.display()))?;
    Ok(Inference::new(checkpoint.net, config.bf16 && device.is_cuda()))
}

/// libtorch's CPU threads: the configured number, else the cores shared among `parallel` users.
pub fn set_cpu_threads(config: &RunConfig, parallel: usize) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads =
        if config.cpu_threads > 0 { config.cpu_threads } else { (cores / parallel.max(1)).max(1) };
    model::set_cpu_threads(threads);
}
