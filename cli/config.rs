//! The run config: one TOML file with a section per stage, read and validated once. An unknown key
//! or a bad value is an error naming the file and the key.

use anyhow::{bail, Context, Result};
use arena::GateConfig;
use model::{DeviceSpec, NetConfig};
use selfplay::SelfPlayConfig;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt::Display;
use std::path::Path;
use train::TrainConfig;

/// Everything a run reads. Sections: `[budget]`, `[net]`, `[selfplay]` (with `[selfplay.draw]`,
/// `[selfplay.mcts]`), `[train]`, `[gate]`. Only `[net]` is required; every other key has a default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Drives every random choice of the run (self-play games, training samples, gate ballots).
    #[serde(default)]
    pub seed: u64,
    /// Where the net runs: `cpu`, `cuda`, `cuda:N`, or `auto` (CUDA when present).
    #[serde(default, serialize_with = "to_text", deserialize_with = "from_text")]
    pub device: DeviceSpec,
    /// Run inference in bfloat16 on CUDA.
    #[serde(default)]
    pub bf16: bool,
    /// libtorch's CPU threads; 0 means one per core.
    #[serde(default)]
    pub cpu_threads: usize,
    #[serde(default)]
    pub budget: BudgetConfig,
    pub net: NetConfig,
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
    #[serde(default)]
    pub train: TrainConfig,
    #[serde(default)]
    pub gate: GateConfig,
}

/// When a run stops by itself: the first limit reached. 0 means no limit; at least one must be set.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BudgetConfig {
    /// Training steps over the whole run.
    pub train_steps: u64,
    /// Self-play games over the whole run.
    pub selfplay_games: u64,
    /// Wall-clock minutes over the whole run (resumed runs add up).
    pub wall_minutes: f64,
    /// Self-play games per generation: games played with one best net before training on them.
    pub games_per_generation: u64,
}

impl Default for BudgetConfig {
    fn default() -> Self {
        BudgetConfig { train_steps: 0, selfplay_games: 0, wall_minutes: 5.0, games_per_generation: 64 }
    }
}

impl RunConfig {
    /// Reads and validates the config at `path`.
    pub fn load(path: &Path) -> Result<RunConfig> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read config {}", path.display()))?;
        Self::parse(&text).with_context(|| format!("config {}", path.display()))
    }

    /// Parses and validates config text.
    pub fn parse(text: &str) -> Result<RunConfig> {
        let config: RunConfig = toml::from_str(text)?;
        config.validate()?;
        Ok(config)
    }

    /// The config as TOML (what a run directory keeps).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a run config always serialises")
    }

    /// Checks every section; the error names the key as `section.key`.
    pub fn validate(&self) -> Result<()> {
        let b = &self.budget;
        if !(b.wall_minutes >= 0.0 && b.wall_minutes.is_finite()) {
            bail!("`budget.wall_minutes` = {} must be a finite number >= 0", b.wall_minutes);
        }
        if b.train_steps == 0 && b.selfplay_games == 0 && b.wall_minutes == 0.0 {
            bail!("`budget`: set at least one of train_steps, selfplay_games, wall_minutes (all are 0: the run would never stop)");
        }
        if b.games_per_generation == 0 {
            bail!("`budget.games_per_generation` must be at least 1");
        }
        if self.cpu_threads > 1024 {
            bail!("`cpu_threads` = {} is more than 1024", self.cpu_threads);
        }
        self.net.validate().context("in section [net]")?;
        self.selfplay.validate().map_err(|e| anyhow::anyhow!("`selfplay.{}` is invalid: {}", e.field, e.problem))?;
        self.train.validate().context("in section [train]")?;
        self.gate.validate().context("in section [gate]")?;
        Ok(())
    }
}

fn to_text<S: Serializer, T: Display>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

fn from_text<'de, D: Deserializer<'de>>(d: D) -> Result<DeviceSpec, D::Error> {
    String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped(name: &str) -> String {
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs").join(name)).unwrap()
    }

    #[test]
    fn shipped_configs_are_valid_and_round_trip() {
        for name in ["default.toml", "gpu.toml", "tiny.toml"] {
            let config = RunConfig::parse(&shipped(name)).unwrap_or_else(|e| panic!("{name}: {e:#}"));
            assert_eq!(RunConfig::parse(&config.to_toml()).unwrap(), config, "{name}");
        }
    }

    #[test]
    fn unknown_key_is_named() {
        let text = shipped("tiny.toml").replace("[selfplay]", "[selfplay]\nworkerz = 3");
        let err = format!("{:#}", RunConfig::parse(&text).unwrap_err());
        assert!(err.contains("workerz"), "{err}");
    }

    #[test]
    fn bad_value_is_named_with_its_section() {
        let text = shipped("tiny.toml").replace("workers = 1", "workers = 0");
        let err = format!("{:#}", RunConfig::parse(&text).unwrap_err());
        assert!(err.contains("selfplay.workers"), "{err}");
        let text = shipped("tiny.toml").replace("games = 4", "games = 3");
        let err = format!("{:#}", RunConfig::parse(&text).unwrap_err());
        assert!(err.contains("games") && err.contains("[gate]"), "{err}");
    }

    #[test]
    fn bad_device_is_named() {
        let text = shipped("tiny.toml").replace("device = \"cpu\"", "device = \"tpu\"");
        let err = format!("{:#}", RunConfig::parse(&text).unwrap_err());
        assert!(err.contains("device") && err.contains("tpu"), "{err}");
    }
}
