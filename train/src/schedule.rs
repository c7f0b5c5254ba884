//! The learning rate at each step: linear warm-up, then the configured schedule.

use crate::config::{ScheduleConfig, TrainConfig};

/// The learning rate for update number `step` (0-based).
pub fn learning_rate(config: &TrainConfig, step: u64) -> f64 {
    let warmup = if step < config.warmup_steps {
        (step + 1) as f64 / config.warmup_steps as f64
    } else {
        1.0
    };
    let after = step.saturating_sub(config.warmup_steps);
    let share = match config.schedule {
        ScheduleConfig::Constant => 1.0,
        ScheduleConfig::Step { every, factor } => factor.powf((after / every) as f64),
        ScheduleConfig::Cosine { total_steps, final_fraction } => {
            let progress = (after as f64 / total_steps as f64).min(1.0);
            final_fraction
                + (1.0 - final_fraction) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos())
        }
    };
    config.learning_rate * warmup * share
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warmup_then_schedules() {
        let base = TrainConfig { learning_rate: 1.0, warmup_steps: 4, ..Default::default() };
        assert_eq!(learning_rate(&base, 0), 0.25);
        assert_eq!(learning_rate(&base, 3), 1.0);
        assert_eq!(learning_rate(&base, 1000), 1.0);
        let step = TrainConfig {
            schedule: ScheduleConfig::Step { every: 10, factor: 0.1 },
            ..base.clone()
        };
        assert!((learning_rate(&step, 4 + 25) - 0.01).abs() < 1e-12);
        let cosine = TrainConfig {
            schedule: ScheduleConfig::Cosine { total_steps: 100, final_fraction: 0.1 },
            ..base
        };
        assert!((learning_rate(&cosine, 4 + 50) - 0.55).abs() < 1e-12);
        assert!((learning_rate(&cosine, 4 + 500) - 0.1).abs() < 1e-12);
    }
}
