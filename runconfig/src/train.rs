//! Every training knob in one serde struct, with defaults for a laptop CPU and a `validate` that
//! names the first bad field.
//!
//! ```toml
//! batch_size = 256
//! reuse = 4.0
//! learning_rate = 0.02
//! [optimizer]
//! kind = "sgd"
//! momentum = 0.9
//! [schedule]
//! kind = "cosine"
//! total_steps = 100000
//! ```

use serde::{Deserialize, Serialize};
use support::Invalid;

/// The trainer's configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Positions per training step.
    pub batch_size: usize,
    /// Samples trained per new position: `reuse * new_positions / batch_size` steps are paid for by
    /// each batch of new positions. Around 4 to 8 neither overfits a small window nor starves.
    pub reuse: f64,
    /// Positions in the replay window before the first step.
    pub min_positions: usize,
    /// How the replay window grows with the run; a bare number is a fixed window of that many
    /// positions ([`WindowConfig::fixed`]).
    #[serde(deserialize_with = "window_or_size")]
    pub window: WindowConfig,
    /// The optimizer and its settings.
    pub optimizer: OptimizerConfig,
    /// Peak learning rate (after warm-up, before the schedule's decay).
    pub learning_rate: f64,
    /// How the learning rate decays after warm-up.
    pub schedule: ScheduleConfig,
    /// Steps of linear warm-up from 0 to `learning_rate`.
    pub warmup_steps: u64,
    /// Decay of the exponential moving average of the weights that the candidates are made of
    /// (Polyak averaging; see `train::average`), in [0, 1): the gate plays, and promotes, the
    /// average instead of the net as trained. 0 is off.
    pub ema_decay: f64,
    /// L2 penalty on weight matrices and convolution kernels (not on biases and batch-norm scales):
    /// added to the gradient for SGD, decoupled for AdamW.
    pub weight_decay: f64,
    /// Largest global gradient norm; larger gradients are scaled down. 0 turns clipping off.
    pub grad_clip_norm: f64,
    /// Share of the search value in the value target (the rest is the game result), in [0, 1].
    pub search_value_weight: f32,
    /// Only positions without a capture pending are value targets (see
    /// `train::batch::ValueTargets::quiet_only`).
    pub quiet_value_targets: bool,
    /// Policy-surprise weighting (after KataGo), in [0, 1]: this share of each full-search
    /// sample's policy weight goes in proportion to how much its visit distribution surprises the
    /// net being trained (the KL divergence from the net's policy to it, relative to the batch's
    /// mean), the rest evenly. 0 is off.
    pub policy_surprise_weight: f32,
    /// Weight of the soft-policy loss (KataGo's auxiliary target: a second policy head on the
    /// trunk learns the visit distribution to the power 1/4, renormalised, on the full-search
    /// samples; the head lives in the training state only). 0 is off.
    pub soft_policy_weight: f32,
    /// Weight of the opponent's-reply loss (KataGo's auxiliary target: a policy head on the
    /// trunk learns the visit distribution of the opponent's next decision, where that one had a
    /// full search; the head lives in the training state only). 0 is off.
    pub reply_policy_weight: f32,
    /// Weight of the policy loss.
    pub policy_weight: f32,
    /// Weight of the value (WDL) loss.
    pub value_weight: f32,
    /// Weight of the moves-left loss (0 turns it off).
    pub moves_left_weight: f32,
    /// Plies that count as one unit in the moves-left loss (targets are divided by it).
    pub moves_left_scale: f32,
    /// Steps between checkpoints.
    pub checkpoint_every: u64,
    /// Steps between TensorBoard points.
    pub log_every: u64,
    /// Non-finite losses in a row that stop training.
    pub max_bad_steps: u32,
    /// Mixed precision on CUDA: the forward pass under libtorch's autocast in bfloat16, weights,
    /// gradients and optimizer in f32 (see [`model::autocast_bf16`]); ignored on the CPU.
    pub autocast: bool,
    /// Batches assembled ahead on a background thread while the steps before them train
    /// (0: each batch is assembled on the training thread when its step starts). Either way
    /// the batches, and so the weights, are the same.
    pub prefetch_batches: usize,
    /// Seed of the sampling generator (set from the run's seed).
    pub seed: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 256,
            reuse: 4.0,
            min_positions: 2_000,
            window: WindowConfig::default(),
            optimizer: OptimizerConfig::default(),
            learning_rate: 0.02,
            schedule: ScheduleConfig::Constant,
            warmup_steps: 100,
            ema_decay: 0.0,
            weight_decay: 1e-4,
            grad_clip_norm: 10.0,
            search_value_weight: 0.0,
            quiet_value_targets: false,
            policy_surprise_weight: 0.0,
            soft_policy_weight: 0.0,
            reply_policy_weight: 0.0,
            policy_weight: 1.0,
            value_weight: 1.0,
            moves_left_weight: 0.1,
            moves_left_scale: 20.0,
            checkpoint_every: 500,
            log_every: 20,
            max_bad_steps: 10,
            autocast: true,
            prefetch_batches: 2,
            seed: 0,
        }
    }
}

/// The replay window: all positions up to `min`; beyond, it grows sub-linearly with the positions
/// seen `n` (KataGo): `min * (1 + growth * ((n / min)^exponent - 1) / exponent)`, at most `max`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WindowConfig {
    /// Positions the window holds before it starts growing sub-linearly (and before training starts).
    pub min: usize,
    /// Largest window, in positions.
    pub max: usize,
    /// Exponent of the growth (1 keeps every position).
    pub exponent: f64,
    /// Growth rate at the start of sub-linear growth (KataGo's `beta`).
    pub growth: f64,
}

impl Default for WindowConfig {
    fn default() -> Self {
        WindowConfig { min: 20_000, max: 1_000_000, exponent: 0.75, growth: 0.4 }
    }
}

/// `window = N` (a fixed window of `N` positions) or the `[train.window]` table.
fn window_or_size<'de, D: serde::Deserializer<'de>>(input: D) -> Result<WindowConfig, D::Error> {
    struct Form;
    impl<'de> serde::de::Visitor<'de> for Form {
        type Value = WindowConfig;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str(
                "a number of positions (a fixed window) or a table of min, max, exponent, growth",
            )
        }

        fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<WindowConfig, E> {
            let size = usize::try_from(n).map_err(|_| {
                E::custom(format!("a window of {n} positions; expected at least 1"))
            })?;
            Ok(WindowConfig::fixed(size))
        }

        fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<WindowConfig, E> {
            self.visit_i64(i64::try_from(n).unwrap_or(i64::MAX))
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<WindowConfig, A::Error> {
            WindowConfig::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    input.deserialize_any(Form)
}

impl WindowConfig {
    /// A window of the last `size` positions, which never grows (`window = N` in a config).
    pub fn fixed(size: usize) -> WindowConfig {
        WindowConfig { min: size, max: size, exponent: 1.0, growth: 0.0 }
    }

    /// The window size after `seen` positions.
    pub fn size(&self, seen: u64) -> usize {
        let min = self.min as f64;
        let n = seen as f64;
        if n <= min {
            return seen as usize;
        }
        let grown =
            min * (1.0 + self.growth * ((n / min).powf(self.exponent) - 1.0) / self.exponent);
        (grown as usize).min(self.max).min(seen as usize)
    }
}

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

impl TrainConfig {
    /// Checks every field's range; the error names the first bad field.
    pub fn validate(&self) -> Result<(), Invalid> {
        let bad = |field, value: &dyn std::fmt::Display, expected: &str| {
            Err(Invalid::new(field, value, expected))
        };
        let unit = |x: f64| (0.0..=1.0).contains(&x);
        let positive = |x: f64| x.is_finite() && x > 0.0;
        let non_negative = |x: f64| x.is_finite() && x >= 0.0;
        if self.batch_size == 0 || self.batch_size > 1 << 16 {
            return bad("batch_size", &self.batch_size, "in 1..=65536");
        }
        if !positive(self.reuse) {
            return bad("reuse", &self.reuse, "> 0");
        }
        let w = &self.window;
        if w.min == 0 || w.max < w.min {
            return bad("window.min", &w.min, &format!("in 1..=window.max ({})", w.max));
        }
        if !(positive(w.exponent) && w.exponent <= 1.0) {
            return bad("window.exponent", &w.exponent, "in (0, 1]");
        }
        if !non_negative(w.growth) {
            return bad("window.growth", &w.growth, ">= 0");
        }
        if self.min_positions < self.batch_size {
            let expected = format!("at least batch_size ({})", self.batch_size);
            return bad("min_positions", &self.min_positions, &expected);
        }
        match self.optimizer {
            OptimizerConfig::Sgd { momentum, .. } if !(unit(momentum) && momentum < 1.0) => {
                return bad("optimizer.momentum", &momentum, "in [0, 1)");
            }
            OptimizerConfig::AdamW { beta1, beta2, eps } => {
                for (field, beta) in [("optimizer.beta1", beta1), ("optimizer.beta2", beta2)] {
                    if !(unit(beta) && beta < 1.0) {
                        return bad(field, &beta, "in [0, 1)");
                    }
                }
                if !positive(eps) {
                    return bad("optimizer.eps", &eps, "> 0");
                }
            }
            OptimizerConfig::Sgd { .. } => {}
        }
        if !positive(self.learning_rate) {
            return bad("learning_rate", &self.learning_rate, "> 0");
        }
        match self.schedule {
            ScheduleConfig::Step { every, factor }
                if every == 0 || !(positive(factor) && factor <= 1.0) =>
            {
                let value = format!("step every {every} by {factor}");
                return bad("schedule", &value, "every > 0 and factor in (0, 1]");
            }
            ScheduleConfig::Cosine { total_steps, final_fraction }
                if total_steps == 0 || !unit(final_fraction) =>
            {
                let value = format!("cosine over {total_steps} to {final_fraction}");
                return bad("schedule", &value, "total_steps > 0 and final_fraction in [0, 1]");
            }
            ScheduleConfig::CosineBudget { final_fraction } if !unit(final_fraction) => {
                let value = format!("cosine over the budget to {final_fraction}");
                return bad("schedule", &value, "final_fraction in [0, 1]");
            }
            ScheduleConfig::Drops { ref drops, .. } => {
                let rising = drops.windows(2).all(|pair| pair[0].at < pair[1].at);
                if drops.is_empty() || !rising {
                    let ats: Vec<u64> = drops.iter().map(|d| d.at).collect();
                    return bad(
                        "schedule.drops",
                        &format!("{ats:?}"),
                        "at least one drop, in increasing `at`",
                    );
                }
                if let Some(drop) = drops.iter().find(|d| !(positive(d.share) && d.share <= 1.0)) {
                    return bad("schedule.drops", &drop.share, "each share in (0, 1]");
                }
            }
            _ => {}
        }
        if !(unit(self.ema_decay) && self.ema_decay < 1.0) {
            return bad("ema_decay", &self.ema_decay, "in [0, 1)");
        }
        for (field, x) in
            [("weight_decay", self.weight_decay), ("grad_clip_norm", self.grad_clip_norm)]
        {
            if !non_negative(x) {
                return bad(field, &x, ">= 0");
            }
        }
        if !unit(self.search_value_weight as f64) {
            return bad("search_value_weight", &self.search_value_weight, "in [0, 1]");
        }
        if !unit(self.policy_surprise_weight as f64) {
            return bad("policy_surprise_weight", &self.policy_surprise_weight, "in [0, 1]");
        }
        for (field, x) in [
            ("policy_weight", self.policy_weight),
            ("value_weight", self.value_weight),
            ("moves_left_weight", self.moves_left_weight),
            ("soft_policy_weight", self.soft_policy_weight),
            ("reply_policy_weight", self.reply_policy_weight),
        ] {
            if !non_negative(x as f64) {
                return bad(field, &x, ">= 0");
            }
        }
        if !positive(self.moves_left_scale as f64) {
            return bad("moves_left_scale", &self.moves_left_scale, "> 0");
        }
        if self.prefetch_batches > 16 {
            return bad("prefetch_batches", &self.prefetch_batches, "in 0..=16");
        }
        for (field, x) in [
            ("checkpoint_every", self.checkpoint_every),
            ("log_every", self.log_every),
            ("max_bad_steps", self.max_bad_steps as u64),
        ] {
            if x == 0 {
                return bad(field, &x, "at least 1");
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_toml_round_trips() {
        let cfg = TrainConfig::default();
        cfg.validate().unwrap();
        let text = toml::to_string(&cfg).unwrap();
        assert_eq!(toml::from_str::<TrainConfig>(&text).unwrap(), cfg);
        let adam: TrainConfig = toml::from_str("[optimizer]\nkind = \"adamw\"\nbeta1 = 0.9\nbeta2 = 0.999\neps = 1e-8\n[schedule]\nkind = \"cosine\"\ntotal_steps = 10\nfinal_fraction = 0.1\n").unwrap();
        adam.validate().unwrap();
    }

    #[test]
    fn unknown_and_bad_fields_are_named() {
        let err = toml::from_str::<TrainConfig>("batch_sise = 3").unwrap_err().to_string();
        assert!(err.contains("batch_sise"), "{err}");
        let cfg = TrainConfig {
            window: WindowConfig { exponent: 1.5, ..Default::default() },
            ..Default::default()
        };
        assert!(cfg.validate().unwrap_err().to_string().contains("window.exponent"));
        let cfg = TrainConfig { min_positions: 10, ..Default::default() };
        assert!(cfg.validate().unwrap_err().to_string().contains("min_positions"));
        let cfg = TrainConfig { ema_decay: 1.0, ..Default::default() };
        assert!(cfg.validate().unwrap_err().to_string().contains("ema_decay"));
    }

    #[test]
    fn a_bare_window_size_is_a_fixed_window_and_a_table_grows() {
        let fixed: TrainConfig = toml::from_str("window = 300000").unwrap();
        assert_eq!(fixed.window, WindowConfig::fixed(300_000));
        fixed.validate().unwrap();
        let table: TrainConfig = toml::from_str("[window]\nmin = 5000\nmax = 90000").unwrap();
        assert_eq!(table.window, WindowConfig { min: 5000, max: 90_000, ..Default::default() });
        assert_eq!(toml::from_str::<TrainConfig>("").unwrap().window, WindowConfig::default());
        for (text, named) in [
            ("window = -5", "a window of -5 positions"),
            ("window = \"big\"", "a number of positions (a fixed window) or a table"),
            ("[window]\nmni = 5", "mni"),
        ] {
            let err = toml::from_str::<TrainConfig>(text).unwrap_err().to_string();
            assert!(err.contains(named), "{text}: {err}");
        }
        let zero: TrainConfig = toml::from_str("window = 0").unwrap();
        assert!(zero.validate().unwrap_err().to_string().contains("window.min"));
    }

    #[test]
    fn rate_drops_read_from_toml_and_bad_ones_are_named() {
        let text = "[schedule]\nkind = \"drops\"\nby = \"positions\"\ndrops = [{at = 1000, share = 0.3}, {at = 5000, share = 0.1}]\n";
        let cfg: TrainConfig = toml::from_str(text).unwrap();
        cfg.validate().unwrap();
        let drops = vec![RateDrop { at: 1000, share: 0.3 }, RateDrop { at: 5000, share: 0.1 }];
        assert_eq!(cfg.schedule, ScheduleConfig::Drops { by: Progress::Positions, drops });
        let err = toml::from_str::<TrainConfig>(&text.replace("positions", "games")).unwrap_err();
        assert!(err.to_string().contains("games"), "{err}");
        for (text, expected) in [
            (text.replace("5000", "1000"), "increasing"),
            (text.replace("0.1", "1.5"), "each share in (0, 1]"),
            (
                text.replace("[{at = 1000, share = 0.3}, {at = 5000, share = 0.1}]", "[]"),
                "at least one",
            ),
        ] {
            let err = toml::from_str::<TrainConfig>(&text).unwrap().validate().unwrap_err();
            assert!(
                err.to_string().contains("schedule.drops") && err.to_string().contains(expected),
                "{err}"
            );
        }
    }

    #[test]
    fn the_window_grows_sub_linearly_up_to_its_cap() {
        let w = WindowConfig { min: 1000, max: 5000, exponent: 0.75, growth: 0.4 };
        assert_eq!(w.size(500), 500);
        assert_eq!(w.size(1000), 1000);
        let (a, b) = (w.size(10_000), w.size(100_000));
        assert!(1000 < a && a < b && b <= 5000, "{a} {b}");
        assert_eq!(w.size(u64::MAX / 2), 5000);
    }

    #[test]
    fn the_window_size_at_given_data_counts() {
        // min * (1 + growth * ((n / min)^exponent - 1) / exponent), at most max.
        let w = WindowConfig { min: 250_000, max: 4_000_000, exponent: 0.65, growth: 0.4 };
        for (n, expected) in [
            (100_000, 100_000),
            (1_000_000, 474_967),
            (10_000_000, 1_788_252),
            (100_000_000, 4_000_000),
            (1_000_000_000, 4_000_000),
        ] {
            assert!(w.size(n).abs_diff(expected) <= 1, "{n} positions: {}", w.size(n));
        }
        // A fixed window, as `window = N` writes it: `N` once that many positions were written.
        let fixed = WindowConfig::fixed(300_000);
        assert_eq!(
            [100_000, 300_000, 10_000_000].map(|n| fixed.size(n)),
            [100_000, 300_000, 300_000]
        );
    }
}
