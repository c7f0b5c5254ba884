//! The learning rate at each step: linear warm-up, then the configured schedule (over steps, over
//! the run's budget, or drops at given steps or positions).

use runconfig::{Progress, ScheduleConfig, TrainConfig};

/// The learning rate for update number `step` (0-based), after `positions` self-play positions
/// were read, `budget_spent` of the run's budget (0..=1) spent, when a run reports it.
pub fn learning_rate(
    config: &TrainConfig,
    step: u64,
    positions: u64,
    budget_spent: Option<f64>,
) -> f64 {
    let warmup = if step < config.warmup_steps {
        (step + 1) as f64 / config.warmup_steps as f64
    } else {
        1.0
    };
    let after = step.saturating_sub(config.warmup_steps);
    let share = match config.schedule {
        ScheduleConfig::Constant => 1.0,
        ScheduleConfig::Drops { by, ref drops } => {
            let now = match by {
                Progress::Steps => step,
                Progress::Positions => positions,
            };
            drops.iter().take_while(|drop| drop.at <= now).last().map_or(1.0, |drop| drop.share)
        }
        ScheduleConfig::Step { every, factor } => factor.powf((after / every) as f64),
        ScheduleConfig::Cosine { total_steps, final_fraction } => {
            cosine(after as f64 / total_steps as f64, final_fraction)
        }
        ScheduleConfig::CosineBudget { final_fraction } => {
            cosine(budget_spent.unwrap_or(0.0), final_fraction)
        }
    };
    config.learning_rate * warmup * share
}

/// From 1 at `progress` 0 down to `final_fraction` at 1 and after, along half a cosine.
fn cosine(progress: f64, final_fraction: f64) -> f64 {
    let progress = progress.clamp(0.0, 1.0);
    final_fraction + (1.0 - final_fraction) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos())
}

#[cfg(test)]
mod tests {
    use super::*;
    use runconfig::RateDrop;

    #[test]
    fn warmup_then_schedules() {
        let base = TrainConfig { learning_rate: 1.0, warmup_steps: 4, ..Default::default() };
        assert_eq!(learning_rate(&base, 0, 0, None), 0.25);
        assert_eq!(learning_rate(&base, 3, 0, None), 1.0);
        assert_eq!(learning_rate(&base, 1000, 0, None), 1.0);
        let step = TrainConfig {
            schedule: ScheduleConfig::Step { every: 10, factor: 0.1 },
            ..base.clone()
        };
        assert!((learning_rate(&step, 4 + 25, 0, None) - 0.01).abs() < 1e-12);
        let cosine = TrainConfig {
            schedule: ScheduleConfig::Cosine { total_steps: 100, final_fraction: 0.1 },
            ..base.clone()
        };
        assert!((learning_rate(&cosine, 4 + 50, 0, None) - 0.55).abs() < 1e-12);
        assert!((learning_rate(&cosine, 4 + 500, 0, None) - 0.1).abs() < 1e-12);
        let budget =
            TrainConfig { schedule: ScheduleConfig::CosineBudget { final_fraction: 0.1 }, ..base };
        assert_eq!(learning_rate(&budget, 1000, 0, None), 1.0, "no budget: the peak");
        assert!((learning_rate(&budget, 1000, 0, Some(0.5)) - 0.55).abs() < 1e-12);
        assert!((learning_rate(&budget, 1000, 0, Some(1.0)) - 0.1).abs() < 1e-12);
        assert!((learning_rate(&budget, 1000, 0, Some(1.5)) - 0.1).abs() < 1e-12, "flat after");
        // A resume to twice the budget at its end: the rate rises back to the middle.
        assert!((learning_rate(&budget, 1000, 0, Some(1.0 / 2.0)) - 0.55).abs() < 1e-12);
        assert!(learning_rate(&budget, 2, 0, Some(0.5)) < 0.55, "warm-up first");
    }

    #[test]
    fn drops_hold_from_their_step_or_position_count_on() {
        let drops = vec![RateDrop { at: 100, share: 0.3 }, RateDrop { at: 300, share: 0.1 }];
        let by_steps = TrainConfig {
            learning_rate: 1.0,
            warmup_steps: 4,
            schedule: ScheduleConfig::Drops { by: Progress::Steps, drops: drops.clone() },
            ..Default::default()
        };
        let rates =
            [2, 99, 100, 299, 300, 10_000].map(|step| learning_rate(&by_steps, step, 0, None));
        assert_eq!(rates, [0.75, 1.0, 0.3, 0.3, 0.1, 0.1], "steps count from 0, warm-up first");
        let by_positions = TrainConfig {
            schedule: ScheduleConfig::Drops { by: Progress::Positions, drops },
            ..by_steps
        };
        let rates = [0, 99, 100, 300, 1 << 40]
            .map(|positions| learning_rate(&by_positions, 50, positions, None));
        assert_eq!(rates, [1.0, 1.0, 0.3, 0.1, 0.1], "the steps do not count");
    }
}
