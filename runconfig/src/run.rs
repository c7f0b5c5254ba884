//! The run config: one TOML file with a section per stage, read and validated once. An unknown key
//! or a bad value is an error naming the file and the key.

use crate::selfplay::SelfPlayConfig;
use crate::train::TrainConfig;
use ::egdb::Tables;
use anyhow::{bail, Context, Result};
use arena::{EvalConfig, GateConfig};
use netfile::{NetConfig, SparseConfig};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use support::DeviceSpec;

/// The largest config read (the shipped ones are a few KiB); a bigger one, or one that is not a
/// regular file (`/dev/zero`, a FIFO), is refused before it is read.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Everything a run reads. Sections: `[run]`, `[budget]`, `[net]`, `[selfplay]` (with
/// `[selfplay.draw]`, `[selfplay.mcts]`), `[train]`, `[gate]`, `[eval]`, `[egdb]`. Only `[net]` is
/// required; every other key has a default.
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
    /// libtorch's CPU threads; 0 shares the cores among the threads that run a net at once (see
    /// `model::configure_cpu_threads`).
    #[serde(default)]
    pub cpu_threads: usize,
    #[serde(default)]
    /// `[run]`: how the roles are driven (one after the other, or at once).
    pub run: RunLoopConfig,
    #[serde(default)]
    /// `[budget]`: when the run stops by itself.
    pub budget: BudgetConfig,
    /// `[net]`: the net family and its sizes (the one required section).
    pub net: NetConfig,
    #[serde(default)]
    /// `[selfplay]`: workers, games in flight, draw rules, the search.
    pub selfplay: SelfPlayConfig,
    #[serde(default)]
    /// `[train]`: the replay window, losses, optimizer and schedule.
    pub train: TrainConfig,
    #[serde(default)]
    /// `[gate]`: how a candidate earns promotion.
    pub gate: GateConfig,
    #[serde(default)]
    /// `[eval]`: the fixed anchors the best net is measured against.
    pub eval: EvalConfig,
    #[serde(default)]
    /// `[egdb]`: the endgame tables self-play and training use.
    pub egdb: EgdbConfig,
}

/// The endgame tables self-play uses (`checkers-zero egdb build`): its searches take the positions
/// they cover as exact (unless `selfplay.search_egdb` is off); with `selfplay.adjudicate_egdb` a
/// game ends at the first of them, with `selfplay.rescore_egdb` its results are theirs from the
/// first of them on. The trainer measures its value head on a fixed set of their positions at each
/// checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EgdbConfig {
    /// Folder of the tables; empty means the per-machine cache (`$CHECKERS_ZERO_CACHE/egdb`).
    pub path: PathBuf,
    /// Use the tables of at most this many pieces (at most 6); 0 means no tables. The run refuses
    /// to start when the folder lacks some of them.
    pub pieces: u32,
}

impl EgdbConfig {
    /// The tables, loaded and checked; `None` when `pieces` is 0.
    pub fn load(&self) -> Result<Option<Arc<Tables>>> {
        if self.pieces == 0 {
            return Ok(None);
        }
        let dir = if self.path.as_os_str().is_empty() {
            ::egdb::default_dir().context("`egdb.path`: no cache folder; set the path")?
        } else {
            self.path.clone()
        };
        let tables = Tables::open_up_to(&dir, self.pieces)
            .with_context(|| format!("`egdb`: loading the tables in {}", dir.display()))?;
        if tables.max_pieces() < self.pieces {
            bail!(
                "`egdb.pieces` = {}: the tables in {} cover {} pieces; build them with `checkers-zero egdb build --pieces {} --dir {}`",
                self.pieces,
                dir.display(),
                tables.max_pieces(),
                self.pieces,
                dir.display()
            );
        }
        Ok(Some(Arc::new(tables)))
    }
}

/// How `run` drives its roles (self-play, training, gating).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunLoopConfig {
    /// `run.mode`: sequential or concurrent.
    pub mode: RunMode,
}

/// `run.mode`: the roles one after the other, or all at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunMode {
    /// Each generation: self-play, then training on its games, then the gate.
    #[default]
    Sequential,
    /// Self-play, training and gating in threads of their own, at the same time.
    Concurrent,
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
    /// Hours of CPU time of the `run` process, all its threads, over the whole run (resumed runs
    /// add up): the compute spent, whatever else shares the machine.
    pub cpu_hours: f64,
    /// Self-play games per generation: games played with one best net before training on them.
    pub games_per_generation: u64,
}

impl Default for BudgetConfig {
    fn default() -> Self {
        BudgetConfig {
            train_steps: 0,
            selfplay_games: 0,
            wall_minutes: 5.0,
            cpu_hours: 0.0,
            games_per_generation: 64,
        }
    }
}

impl RunConfig {
    /// The trainer's config: `[train]` with the run's `seed`.
    pub fn trainer_config(&self) -> TrainConfig {
        TrainConfig { seed: self.seed, ..self.train.clone() }
    }

    /// Reads and validates the config at `path`: a regular file of at most [`MAX_CONFIG_BYTES`].
    pub fn load(path: &Path) -> Result<RunConfig> {
        let text = support::read_text_capped(path, MAX_CONFIG_BYTES, "a config")
            .with_context(|| format!("cannot read config {}", path.display()))?;
        Self::parse(&text).with_context(|| format!("config {}", path.display()))
    }

    /// Parses and validates config text.
    pub fn parse(text: &str) -> Result<RunConfig> {
        let config: RunConfig =
            toml::from_str(text).map_err(|e| anyhow::anyhow!(one_line(text, &e)))?;
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
        if !(b.cpu_hours >= 0.0 && b.cpu_hours.is_finite()) {
            bail!("`budget.cpu_hours` = {} must be a finite number >= 0", b.cpu_hours);
        }
        if b.train_steps == 0
            && b.selfplay_games == 0
            && b.wall_minutes == 0.0
            && b.cpu_hours == 0.0
        {
            bail!("`budget`: set at least one of train_steps, selfplay_games, wall_minutes, cpu_hours (all are 0: the run would never stop)");
        }
        if b.games_per_generation == 0 {
            bail!("`budget.games_per_generation` must be at least 1");
        }
        if self.cpu_threads > 1024 {
            bail!("`cpu_threads` = {} is more than 1024", self.cpu_threads);
        }
        self.net.validate().context("in section [net]")?;
        self.selfplay.validate()?;
        if self.egdb.pieces > ::egdb::MAX_PIECES {
            bail!("`egdb.pieces` = {} is more than {}", self.egdb.pieces, ::egdb::MAX_PIECES);
        }
        if self.selfplay.adjudicate_egdb && self.egdb.pieces == 0 {
            bail!("`selfplay.adjudicate_egdb` needs tables: set `egdb.pieces`");
        }
        if self.selfplay.rescore_egdb && self.egdb.pieces == 0 {
            bail!("`selfplay.rescore_egdb` needs tables: set `egdb.pieces`");
        }
        if self.selfplay.value_search_nodes > 0 && !matches!(self.net, NetConfig::Sparse(_)) {
            bail!("`selfplay.value_search_nodes` needs the sparse net (`net.kind = \"sparse\"`): alpha-beta runs it incrementally");
        }
        self.train.validate().context("in section [train]")?;
        self.check_growth()?;
        self.gate.validate().context("in section [gate]")?;
        self.eval.validate().context("in section [eval]")?;
        Ok(())
    }

    /// Checks `train.grow` against the net: only a sparse net grows, and each width is one the
    /// net family allows, above `net.accumulator`.
    fn check_growth(&self) -> Result<()> {
        let Some(first) = self.train.grow.0.first() else {
            return Ok(());
        };
        let NetConfig::Sparse(sparse) = &self.net else {
            bail!("`train.grow`: only a sparse net grows (`net.kind` is resnet)");
        };
        if first.accumulator <= sparse.accumulator {
            bail!(
                "`train.grow`: the first widening's accumulator = {} must be above `net.accumulator` = {}",
                first.accumulator,
                sparse.accumulator
            );
        }
        for width in self.train.grow.widths() {
            let grown = NetConfig::Sparse(SparseConfig { accumulator: width, ..sparse.clone() });
            grown.validate().with_context(|| format!("in `train.grow` (accumulator = {width})"))?;
        }
        Ok(())
    }
}

/// Characters of the parser's message an error shows (escaped: a key or value it quotes may hold
/// any character).
const MESSAGE_CHARS: usize = 300;

/// A TOML error on one line: where (line, column and, when the error is about one, the key as
/// `section.key`) and what. The parser's own text spans several lines with a drawn excerpt.
fn one_line(text: &str, error: &toml::de::Error) -> String {
    let message = support::escape_and_cut(error.message().trim(), MESSAGE_CHARS);
    let Some(span) =
        error.span().filter(|s| s.end <= text.len() && !text[s.clone()].trim_end().contains('\n'))
    else {
        return message;
    };
    let before = &text[..span.start];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    let key = key_on_line(text, line)
        .map_or(String::new(), |key| format!(", `{}`", support::shown(&key)));
    format!("line {line}, column {column}{key}: {message}")
}

/// The key set on line `line` (1-based) of `text`, prefixed by its section.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().take(line).collect();
    let key = lines.last()?.split_once('=')?.0.trim();
    let section = lines.iter().rev().find_map(|l| l.trim().strip_prefix('[')?.strip_suffix(']'));
    Some(section.map_or_else(
        || key.to_string(),
        |s| format!("{}.{key}", s.trim_matches(['[', ']']).trim()),
    ))
}

fn to_text<S: Serializer, T: Display>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

fn from_text<'de, D: Deserializer<'de>>(d: D) -> Result<DeviceSpec, D::Error> {
    String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests;
