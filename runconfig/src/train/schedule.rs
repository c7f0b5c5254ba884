//! The trainer's settings that are tables of several kinds: the optimizer and the learning-rate
//! schedule, each with its check and the text a config writes for it.

use search::settings::{check, inline_table, ConfigText, Invalid, Range};
use serde::{Deserialize, Serialize};

/// The optimizer, as the config's `[train.optimizer]` table names it (`kind = "sgd"` or `"adamw"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "lowercase")]
pub enum OptimizerConfig {
    /// SGD with (optionally Nesterov) momentum, PyTorch's update rule.
    Sgd {
        /// Momentum, in 0..1.
        momentum: f64,
        /// Whether to use Nesterov's variant.
        nesterov: bool,
    },
    /// Adam with decoupled weight decay.
    AdamW {
        /// Decay rate of the first moment, in 0..1.
        beta1: f64,
        /// Decay rate of the second moment, in 0..1.
        beta2: f64,
        /// Added to the denominator for stability.
        eps: f64,
    },
}

impl Default for OptimizerConfig {
    fn default() -> Self {
        OptimizerConfig::Sgd { momentum: 0.9, nesterov: true }
    }
}

/// What [`OptimizerConfig::check`] asks, as `docs/configs.md` writes it.
pub const OPTIMIZER_RULE: &str =
    "`sgd`: momentum in [0, 1); `adamw`: beta1, beta2 in [0, 1), eps > 0";

/// A share of a moment's decay: in [0, 1).
const DECAY: Range = Range::ClosedOpen(0.0, 1.0);

impl OptimizerConfig {
    /// Checks the optimizer's settings; the error names the first bad one (`optimizer.beta1`).
    pub fn check(&self) -> Result<(), Invalid> {
        let none = |_: &str| None;
        match *self {
            OptimizerConfig::Sgd { momentum, .. } => {
                check("optimizer.momentum", momentum, DECAY, none)
            }
            OptimizerConfig::AdamW { beta1, beta2, eps } => {
                check("optimizer.beta1", beta1, DECAY, none)?;
                check("optimizer.beta2", beta2, DECAY, none)?;
                check("optimizer.eps", eps, Range::Positive, none)
            }
        }
    }
}

impl ConfigText for OptimizerConfig {
    fn config_text(&self) -> String {
        match self {
            OptimizerConfig::Sgd { momentum, nesterov } => {
                inline_table(Some("sgd"), &[("momentum", momentum), ("nesterov", nesterov)])
            }
            OptimizerConfig::AdamW { beta1, beta2, eps } => {
                inline_table(Some("adamw"), &[("beta1", beta1), ("beta2", beta2), ("eps", eps)])
            }
        }
    }
}

/// The learning rate after warm-up, as a share of `learning_rate`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "lowercase")]
pub enum ScheduleConfig {
    /// No decay: the peak learning rate throughout.
    Constant,
    /// Multiplied by `factor` every `every` steps.
    Step {
        /// Steps between two multiplications.
        every: u64,
        /// The multiplier (0..=1).
        factor: f64,
    },
    /// Cosine from 1 down to `final_fraction` at `total_steps`, then flat.
    Cosine {
        /// Step at which the cosine reaches `final_fraction`.
        total_steps: u64,
        /// Share of the peak learning rate at the end (0..=1).
        final_fraction: f64,
    },
    /// Cosine from 1 down to `final_fraction` over the run's budget (the share of its first limit
    /// spent: wall time, games or steps), as `run` reports it to the trainer. A resumed run with
    /// a bigger budget stretches the cosine over the new budget: the rate rises to where the
    /// longer run would have it now (a warm restart) and decays to the same end. Outside `run`
    /// (no budget) the peak rate.
    #[serde(rename = "cosine_budget")]
    CosineBudget {
        /// Share of the peak learning rate at the end of the budget (0..=1).
        final_fraction: f64,
    },
    /// Drops at given points of the run's progress: from each drop's `at` on, the rate is its
    /// `share` of the peak (until the next drop), the peak before the first.
    Drops {
        /// What the drops' `at` counts.
        by: Progress,
        /// The drops, in increasing `at`.
        drops: Vec<RateDrop>,
    },
}

/// What a learning-rate drop is keyed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Progress {
    /// Training steps.
    Steps,
    /// Self-play positions the trainer has read (every one written, over the whole run), so the
    /// drops fall at the same amount of data whatever the machine's speed or `reuse`.
    Positions,
}

/// One learning-rate drop of [`ScheduleConfig::Drops`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateDrop {
    /// The step or position count from which it holds.
    pub at: u64,
    /// The learning rate from then on, as a share of `learning_rate`, in (0, 1].
    pub share: f64,
}

/// What [`ScheduleConfig::check`] asks, as `docs/configs.md` writes it.
pub const SCHEDULE_RULE: &str =
    "`step`: every at least 1, factor in (0, 1]; `cosine`: total_steps \
    at least 1; `cosine`, `cosine_budget`: final_fraction in [0, 1]; `drops`: at least one, in \
    increasing `at`, each share in (0, 1]";

impl ScheduleConfig {
    /// Checks the schedule's settings; the error names the first bad one (`schedule.factor`).
    pub fn check(&self) -> Result<(), Invalid> {
        let none = |_: &str| None;
        let (share, fraction) = (Range::OpenClosed(0.0, 1.0), Range::Closed(0.0, 1.0));
        match self {
            ScheduleConfig::Constant => Ok(()),
            ScheduleConfig::Step { every, factor } => {
                check("schedule.every", *every, Range::AtLeast(1.0), none)?;
                check("schedule.factor", *factor, share, none)
            }
            ScheduleConfig::Cosine { total_steps, final_fraction } => {
                check("schedule.total_steps", *total_steps, Range::AtLeast(1.0), none)?;
                check("schedule.final_fraction", *final_fraction, fraction, none)
            }
            ScheduleConfig::CosineBudget { final_fraction } => {
                check("schedule.final_fraction", *final_fraction, fraction, none)
            }
            ScheduleConfig::Drops { drops, .. } => {
                let rising = drops.windows(2).all(|pair| pair[0].at < pair[1].at);
                if drops.is_empty() || !rising {
                    let ats: Vec<u64> = drops.iter().map(|d| d.at).collect();
                    let expected = "at least one drop, in increasing `at`";
                    return Err(Invalid::new("schedule.drops", format!("{ats:?}"), expected));
                }
                let each = format!("each share {share}");
                drops.iter().try_for_each(|drop| {
                    support::check(
                        "schedule.drops",
                        drop.share,
                        share.contains(drop.share, none),
                        &each,
                    )
                })
            }
        }
    }
}

impl ConfigText for ScheduleConfig {
    fn config_text(&self) -> String {
        match self {
            ScheduleConfig::Constant => inline_table(Some("constant"), &[]),
            ScheduleConfig::Step { every, factor } => {
                inline_table(Some("step"), &[("every", every), ("factor", factor)])
            }
            ScheduleConfig::Cosine { total_steps, final_fraction } => inline_table(
                Some("cosine"),
                &[("total_steps", total_steps), ("final_fraction", final_fraction)],
            ),
            ScheduleConfig::CosineBudget { final_fraction } => {
                inline_table(Some("cosine_budget"), &[("final_fraction", final_fraction)])
            }
            ScheduleConfig::Drops { by, drops } => {
                let by = match by {
                    Progress::Steps => "\"steps\"",
                    Progress::Positions => "\"positions\"",
                };
                let drops: Vec<String> = drops
                    .iter()
                    .map(|d| format!("{{at = {}, share = {}}}", d.at, d.share))
                    .collect();
                inline_table(
                    Some("drops"),
                    &[("by", &by), ("drops", &format!("[{}]", drops.join(", ")))],
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value `text` gives as a config's `key = text`.
    fn read<T: serde::de::DeserializeOwned>(text: &str) -> T {
        #[derive(Deserialize)]
        struct Wrapped<T> {
            value: T,
        }
        toml::from_str::<Wrapped<T>>(&format!("value = {text}")).unwrap().value
    }

    #[test]
    fn every_kind_is_written_as_a_config_reads_it() {
        let drops = vec![RateDrop { at: 1000, share: 0.3 }, RateDrop { at: 5000, share: 0.1 }];
        for schedule in [
            ScheduleConfig::Constant,
            ScheduleConfig::Step { every: 10, factor: 0.5 },
            ScheduleConfig::Cosine { total_steps: 10, final_fraction: 0.1 },
            ScheduleConfig::CosineBudget { final_fraction: 0.1 },
            ScheduleConfig::Drops { by: Progress::Positions, drops: drops.clone() },
            ScheduleConfig::Drops { by: Progress::Steps, drops },
        ] {
            assert_eq!(read::<ScheduleConfig>(&schedule.config_text()), schedule);
        }
        for optimizer in [
            OptimizerConfig::default(),
            OptimizerConfig::AdamW { beta1: 0.9, beta2: 0.999, eps: 1e-8 },
        ] {
            assert_eq!(read::<OptimizerConfig>(&optimizer.config_text()), optimizer);
        }
    }

    #[test]
    fn a_bad_setting_is_named() {
        let adam = OptimizerConfig::AdamW { beta1: 0.9, beta2: 1.0, eps: 1e-8 };
        assert_eq!(
            adam.check().unwrap_err().to_string(),
            "`optimizer.beta2` = 1 is invalid: in [0, 1)"
        );
        let step = ScheduleConfig::Step { every: 0, factor: 0.5 };
        assert_eq!(step.check().unwrap_err().field, "schedule.every");
        let cosine = ScheduleConfig::Cosine { total_steps: 10, final_fraction: 2.0 };
        assert_eq!(cosine.check().unwrap_err().field, "schedule.final_fraction");
        assert_eq!(ScheduleConfig::Constant.check(), Ok(()));
    }
}
