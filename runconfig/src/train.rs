//! Every training knob in one section, each declared once with its default and range (see
//! [`search::settings!`]), with defaults for a laptop CPU; the replay window and the tables of
//! several kinds (optimizer, schedule) in modules of their own.
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

mod grow;
mod schedule;
mod window;

pub use grow::{GrowSchedule, Widening};
pub use schedule::{OptimizerConfig, Progress, RateDrop, ScheduleConfig};
pub use window::WindowConfig;

use grow::GROW_RULE;
use schedule::{OPTIMIZER_RULE, SCHEDULE_RULE};
use search::settings::{Invalid, Range};
use serde::{Deserialize, Serialize};
use window::window_or_size;

search::settings! {
    /// The trainer's configuration.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct TrainConfig ("") {
        /// Positions per training step.
        batch_size: usize = 256, Range::Whole(1, 65_536);
        /// Samples trained per new position: `reuse * new_positions / batch_size` steps are paid
        /// for by each batch of new positions. Around 4 to 8 neither overfits a small window nor
        /// starves.
        reuse: f64 = 4.0, Range::Positive;
        /// Positions in the replay window before the first step.
        min_positions: usize = 2_000, Range::AtLeastSetting("batch_size");
        /// Peak learning rate (after warm-up, before the schedule's decay).
        learning_rate: f64 = 0.02, Range::Positive;
        /// Steps of linear warm-up from 0 to `learning_rate`.
        warmup_steps: u64 = 100, Range::Any;
        /// Decay of the exponential moving average of the weights that the candidates are made of
        /// (Polyak averaging; see `train::average`): the gate plays, and promotes, the average
        /// instead of the net as trained. 0 is off.
        ema_decay: f64 = 0.0, Range::ClosedOpen(0.0, 1.0);
        /// L2 penalty on weight matrices and convolution kernels (not on biases and batch-norm
        /// scales): added to the gradient for SGD, decoupled for AdamW.
        weight_decay: f64 = 1e-4, Range::NonNegative;
        /// Largest global gradient norm; larger gradients are scaled down. 0 turns clipping off.
        grad_clip_norm: f64 = 10.0, Range::NonNegative;
        /// Share of the search value in the value target (the rest is the game result).
        search_value_weight: f32 = 0.0, Range::Closed(0.0, 1.0);
        /// Only positions without a capture pending are value targets (see
        /// `train::batch::ValueTargets::quiet_only`).
        quiet_value_targets: bool = false, Range::Any;
        /// Policy-surprise weighting (after KataGo): this share of each full-search sample's
        /// policy weight goes in proportion to how much its visit distribution surprises the net
        /// being trained (the KL divergence from the net's policy to it, relative to the batch's
        /// mean), the rest evenly. 0 is off.
        policy_surprise_weight: f32 = 0.0, Range::Closed(0.0, 1.0);
        /// Weight of the soft-policy loss (KataGo's auxiliary target: a second policy head on the
        /// trunk learns the visit distribution to the power 1/4, renormalised, on the full-search
        /// samples; the head lives in the training state only). 0 is off.
        soft_policy_weight: f32 = 0.0, Range::NonNegative;
        /// Weight of the opponent's-reply loss (KataGo's auxiliary target: a policy head on the
        /// trunk learns the visit distribution of the opponent's next decision, where that one
        /// had a full search; the head lives in the training state only). 0 is off.
        reply_policy_weight: f32 = 0.0, Range::NonNegative;
        /// Weight of the policy loss.
        policy_weight: f32 = 1.0, Range::NonNegative;
        /// Weight of the value (WDL) loss.
        value_weight: f32 = 1.0, Range::NonNegative;
        /// Weight of the moves-left loss (0 turns it off).
        moves_left_weight: f32 = 0.1, Range::NonNegative;
        /// Plies that count as one unit in the moves-left loss (targets are divided by it).
        moves_left_scale: f32 = 20.0, Range::Positive;
        /// Steps between checkpoints.
        checkpoint_every: u64 = 500, Range::AtLeast(1.0);
        /// Steps between TensorBoard points.
        log_every: u64 = 20, Range::AtLeast(1.0);
        /// Non-finite losses in a row that stop training.
        max_bad_steps: u32 = 10, Range::AtLeast(1.0);
        /// Mixed precision on CUDA: the forward pass under libtorch's autocast in bfloat16,
        /// weights, gradients and optimizer in f32 (see `model::autocast_bf16`); ignored on the CPU.
        autocast: bool = true, Range::Any;
        /// Batches assembled ahead on a background thread while the steps before them train
        /// (0: each batch is assembled on the training thread when its step starts). Either way
        /// the batches, and so the weights, are the same.
        prefetch_batches: usize = 2, Range::Whole(0, 16);
        /// Seed of the sampling generator (set from the run's seed).
        seed: u64 = 0, Range::Any;
        rules:
        /// A checkpoint a new run's first net starts from (a warm start), instead of random
        /// weights seeded by `seed`: its generation 0 and the trainer's first weights. A sparse
        /// net narrower than `net.accumulator` is widened, one of one value stack split into
        /// `net.buckets` (the same outputs). Read only when
        /// the run has no best net or training state yet. "" starts from random weights.
        init: String = String::new(), "a checkpoint file of the run's net (or a smaller sparse net: narrower, or of one value stack), or `\"\"`", |_: &String| Ok::<(), Invalid>(());
        /// The optimizer and its settings.
        optimizer: OptimizerConfig = OptimizerConfig::default(), OPTIMIZER_RULE, OptimizerConfig::check;
        /// How the learning rate decays after warm-up.
        schedule: ScheduleConfig = ScheduleConfig::Constant, SCHEDULE_RULE, ScheduleConfig::check;
        /// Widenings of a sparse net's accumulator at counts of self-play positions read
        /// (`[{at = 20000000, accumulator = 256}]`): the trainer widens its net (the same outputs;
        /// the optimizer's buffers, auxiliary heads and averaged weights start afresh) once the
        /// data reaches each. Empty keeps `net.accumulator`.
        grow: GrowSchedule = GrowSchedule::default(), GROW_RULE, GrowSchedule::check;
        sections:
        /// How the replay window grows with the run; a bare number is a fixed window of that many
        /// positions ([`WindowConfig::fixed`]).
        #[serde(deserialize_with = "window_or_size")]
        window: WindowConfig;
    }
}

impl TrainConfig {
    /// Checks every field's range; the error names the first bad field.
    pub fn validate(&self) -> Result<(), Invalid> {
        self.check_ranges()
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
}
