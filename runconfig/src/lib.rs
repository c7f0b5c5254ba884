//! The run config: the TOML file a run reads (`configs/*.toml`, `RUN/config.toml`), every section
//! of it typed, with its defaults and its checks, and no tch, so that any program (a test, a fuzz
//! target, a tool) can read, build and check a config without the net code.
//!
//! [`RunConfig`] is the whole file; [`SelfPlayConfig`] its `[selfplay]` section and
//! [`TrainConfig`] its `[train]` section; the `[net]`, `[gate]` and `[eval]` sections are the
//! types of the crates that own those files and matches (`netfile`, `arena`).
//!
//! ```
//! let config = runconfig::RunConfig::parse("[net]\nkind = \"sparse\"\n[budget]\nwall_minutes = 1.0\n")?;
//! assert_eq!(config.budget.wall_minutes, 1.0);
//! assert!(runconfig::RunConfig::parse("[net]\nkind = \"sparse\"\n[selfplay]\nworkers = 257\n").is_err());
//! # Ok::<(), anyhow::Error>(())
//! ```

pub mod run;
pub mod selfplay;
pub mod train;

pub use run::{BudgetConfig, EgdbConfig, RunConfig, RunLoopConfig, RunMode};
pub use selfplay::{DrawConfig, OpeningsConfig, SelfPlayConfig, SelfPlayConfigError, ServerConfig};
pub use train::{
    GrowSchedule, OptimizerConfig, Progress, RateDrop, ScheduleConfig, TrainConfig, Widening,
    WindowConfig,
};
