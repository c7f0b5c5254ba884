//! Opening a run (a folder or `s3://bucket/prefix`, through this process's cache): its config
//! (new or resumed), its best net, and nets loaded for inference on the configured device.

use anyhow::{bail, Context, Result};
use model::Inference;
use runconfig::RunConfig;
use rundata::{layout, BestNet, CachedRun, Created, Promotion, RunDir};
use std::path::{Path, PathBuf};

/// The run a command opens (`run`, `selfplay`, `train` and `gate` share these).
pub struct RunDirOptions {
    /// The run: a folder, or `s3://bucket/prefix` (created if new, resumed if not).
    pub run_dir: String,
    /// For an `s3://` run: this process's local folder for the run's files (default: under the
    /// cache, see [`CachedRun::open`]).
    pub cache: Option<PathBuf>,
    /// Config of a new run (default: configs/default.toml); an existing run uses its own copy.
    pub config: Option<PathBuf>,
    /// The commit of the program, named in the header of a new run's copy of its config.
    pub commit: &'static str,
}

/// Opens the run `options` names for a process of `role` (see [`open_run`]).
pub fn open_run_options(options: &RunDirOptions, role: &str) -> Result<(CachedRun, RunConfig)> {
    let run = CachedRun::open(&options.run_dir, options.cache.as_deref(), role)?;
    let config = open_run(&run, options.config.as_deref(), options.commit)?;
    Ok((run, config))
}

/// The config of `run`. A new run takes `config` (or `configs/default.toml`) and keeps a copy;
/// an existing run uses its own copy, and a `config` given too must say the same (budgets and
/// `run.mode` aside, which it then sets).
/// Of processes starting one S3 run at once, the first to store its copy sets the config. `commit`
/// is the program's, named in the copy's header.
pub fn open_run(cached: &CachedRun, config: Option<&Path>, commit: &str) -> Result<RunConfig> {
    let run = cached.run();
    let saved = run.config_file();
    if cached.is_remote() {
        if let Some(bytes) = cached.store().get(layout::CONFIG)? {
            support::write_atomic(&saved, &bytes)?;
        }
    }
    if !saved.exists() {
        if let Some(content) = run.run_content() {
            bail!(
                "{} holds a run ({}) but no config.toml: restore the run's config.toml, or start a new run with another --run-dir",
                cached.location(),
                content.display()
            );
        }
        let path =
            config.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("configs/default.toml"));
        let config = RunConfig::load(&path)?;
        support::write_atomic(&saved, provenance(&config, commit).as_bytes())?;
        if cached.publish(&saved)? == Created::New {
            return Ok(config);
        }
        // Another process created the run first: its copy (now in the cache) rules.
    }
    let kept = RunConfig::load(&saved)?;
    if let Some(path) = config {
        let given = RunConfig::load(path)?;
        if (RunConfig { budget: kept.budget, run: kept.run, ..given }) != kept {
            bail!(
                "{} was started with a different config than {}: resume without --config, \
                 or start a new run with another --run-dir",
                cached.location(),
                path.display()
            );
        }
        return Ok(RunConfig { budget: given.budget, run: given.run, ..kept });
    }
    Ok(kept)
}

/// The resolved config as TOML, headed by comments naming the version and commit that wrote it.
fn provenance(config: &RunConfig, commit: &str) -> String {
    format!(
        "# checkers-zero {} (git {}), run created at unix time {}\n{}",
        env!("CARGO_PKG_VERSION"),
        commit,
        support::unix_seconds(),
        config.to_toml()
    )
}

/// The run's best net, in the cache, creating the first one (generation 0: seeded random
/// weights, or `train.init`'s checkpoint, as the trainer starts) if the run has none.
pub fn ensure_best(cached: &CachedRun, config: &RunConfig) -> Result<BestNet> {
    if let Some(best) = cached.best()? {
        fetch_net(cached, &best)?;
        return Ok(best);
    }
    let run = cached.run();
    let net = train::initial_net(&config.net, &config.trainer_config(), tch::Device::Cpu)?;
    let path = train::candidate_path(&run.nets_dir(), 0);
    model::checkpoint::save(&path, &net, 0, None, &Default::default())?;
    cached.publish(&path)?;
    let best = BestNet {
        checkpoint: relative_to_run(run, &path),
        step: 0,
        generation: 0,
        promoted_at: support::unix_seconds(),
        promoted_by: Some(support::process_token()),
    };
    match cached.promote(&best)? {
        Promotion::Promoted(best) => Ok(best),
        Promotion::AlreadyTaken { by } => {
            fetch_net(cached, &by)?;
            Ok(by)
        }
    }
}

/// The checkpoint of `best` in the cache, downloaded first if need be.
pub fn fetch_net(cached: &CachedRun, best: &BestNet) -> Result<PathBuf> {
    fetch_checkpoint(cached, &best.checkpoint)
}

/// The run's checkpoint at `checkpoint` (relative to the run) in the cache, downloaded first if
/// need be.
pub fn fetch_checkpoint(cached: &CachedRun, checkpoint: &Path) -> Result<PathBuf> {
    let key = checkpoint.to_str().context("a net's path is not UTF-8")?;
    Ok(cached.fetch(key)?)
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
