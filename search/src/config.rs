//! The search's configuration: PUCT constants, root noise, temperature schedule, playout-cap
//! randomisation and resignation, deserialised from TOML/JSON and validated once.

use serde::{Deserialize, Serialize};
use support::check;

/// Everything the MCTS and the self-play game driver read. Every field has a default, so a config
/// file names only what it changes; unknown fields are rejected.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MctsConfig {
    /// Exploration constant of PUCT: `U = c_puct * prior * sqrt(N_parent) / (1 + N_child)`.
    pub c_puct: f32,
    /// First-play urgency: an unvisited child is valued at the parent's value minus
    /// `fpu_reduction * sqrt(sum of the priors of visited children)` (Leela Chess Zero's rule).
    pub fpu_reduction: f32,
    /// Dirichlet concentration per legal step of the root noise.
    pub dirichlet_alpha: f32,
    /// Share of the root priors replaced by noise in full searches: `(1 - f) * prior + f * noise`.
    /// 0 turns noise off (for players).
    pub dirichlet_fraction: f32,
    /// Leaves one search may hand to the evaluator at once (virtual loss spreads them); also the
    /// batch of the single-game conveniences ([`crate::Search::run`], [`crate::SelfPlayGame::play`]).
    pub leaves_per_batch: u32,
    /// How the chosen step is drawn from the root visit counts.
    pub temperature: TemperatureSchedule,
    /// KataGo's playout-cap randomisation.
    pub playout_cap: PlayoutCap,
    /// When a self-play game may end by resignation.
    pub resignation: Resignation,
    /// MCTS-solver: game ends (and endgame-table positions) are exact values that the search
    /// proves up the tree; it plays a proven win and avoids a proven loss (see `solver.rs`).
    pub solver: bool,
    /// A decision with a single legal step (a forced capture, the next jump of a multi-jump) is
    /// passed through to its child without asking the evaluator, so every evaluation is spent
    /// where there is a choice.
    pub pass_forced: bool,
    /// KataGo's forced playouts in full searches with root noise: a root child with fewer than
    /// `sqrt(forced_playouts * prior * root visits)` visits is searched next, and the policy
    /// target takes those visits off again where they were only forced (0: off; KataGo uses 2).
    pub forced_playouts: f32,
    /// The net's priors are taken to the power `1 / policy_temperature` and normalised again
    /// (a softmax of the policy logits divided by it): above 1 the search looks wider than the
    /// net suggests (Leela Chess Zero plays at about 1.6), below 1 narrower; 1 leaves them.
    pub policy_temperature: f32,
    /// Draw aversion: selection rates a child `W - L - draw_penalty * D` for the side choosing it
    /// (its mean value less the penalty times its mean draw probability), for both sides alike,
    /// so a search steers away from lines the net sees drawn. 0 (off) leaves selection to the
    /// value alone; the reported values stay `W - L`.
    pub draw_penalty: f32,
}

/// Temperature `opening` for the first `opening_plies` plies of a game, then `later`.
/// A temperature of 0 picks the most visited step; 1 samples in proportion to visits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TemperatureSchedule {
    /// Temperature of the opening plies (1 samples in proportion to visits).
    pub opening: f32,
    /// Plies of each game played at the `opening` temperature.
    pub opening_plies: u32,
    /// Temperature of every later ply (0 plays the most visited step).
    pub later: f32,
}

/// With probability `full_probability` a decision gets a full search of `full_visits` root visits
/// (with root noise; a policy target), otherwise a cheap one of `cheap_visits` (no noise; value
/// target only). Set `full_probability = 1` to search every decision fully.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlayoutCap {
    /// Root visits of a full search.
    pub full_visits: u32,
    /// Root visits of a cheap search.
    pub cheap_visits: u32,
    /// Chance (0..=1) that a decision gets a full search.
    pub full_probability: f32,
}

/// A side resigns after `consecutive` searched decisions in a row whose root value (its own view)
/// is below `threshold`. In a `disabled_share` of games resignation is off, and the driver reports
/// where it would have resigned, so the false-positive rate can be measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Resignation {
    /// Whether resignation is on at all.
    pub enabled: bool,
    /// Root value (-1..=1, the mover's view) below which a decision counts towards resigning.
    pub threshold: f32,
    /// Decisions in a row below `threshold` before the side resigns.
    pub consecutive: u32,
    /// Share (0..=1) of games played with resignation off, to measure false resignations.
    pub disabled_share: f32,
}

/// A setting of [`MctsConfig`] out of its range (the field dotted, e.g. `playout_cap.cheap_visits`).
pub use support::Invalid as ConfigError;

/// What one search is asked to do: reach `visits` root visits (a reused subtree counts), with or
/// without Dirichlet noise on the root priors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Root visits to reach.
    pub visits: u32,
    /// Whether to mix Dirichlet noise into the root priors (self-play's full searches).
    pub root_noise: bool,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            c_puct: 1.5,
            fpu_reduction: 0.25,
            dirichlet_alpha: 1.0,
            dirichlet_fraction: 0.25,
            leaves_per_batch: 8,
            temperature: TemperatureSchedule::default(),
            playout_cap: PlayoutCap::default(),
            resignation: Resignation::default(),
            solver: false,
            pass_forced: true,
            forced_playouts: 0.0,
            policy_temperature: 1.0,
            draw_penalty: 0.0,
        }
    }
}

impl Default for TemperatureSchedule {
    fn default() -> Self {
        TemperatureSchedule { opening: 1.0, opening_plies: 16, later: 0.0 }
    }
}

impl Default for PlayoutCap {
    fn default() -> Self {
        PlayoutCap { full_visits: 400, cheap_visits: 80, full_probability: 0.25 }
    }
}

impl Default for Resignation {
    fn default() -> Self {
        Resignation { enabled: true, threshold: -0.95, consecutive: 3, disabled_share: 0.1 }
    }
}

impl TemperatureSchedule {
    /// The temperature for a decision at game ply `ply`.
    pub fn at(&self, ply: usize) -> f32 {
        if ply < self.opening_plies as usize {
            self.opening
        } else {
            self.later
        }
    }
}

/// The settings a player's spec may change, as `KEY=VALUE` (see [`MctsConfig::set`]).
pub const PLAYER_SETTINGS: &[&str] = &[
    "c_puct",
    "fpu_reduction",
    "leaves_per_batch",
    "solver",
    "pass_forced",
    "policy_temperature",
    "draw_penalty",
    "move_temperature",
];

impl MctsConfig {
    /// Sets one of the [`PLAYER_SETTINGS`] from its text, e.g. `c_puct` to `2.0` or `solver` to
    /// `false`, and checks the result. The error says which key or value is wrong.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let number = || value.parse::<f32>().map_err(|_| format!("`{key}={value}`: not a number"));
        let flag =
            || value.parse::<bool>().map_err(|_| format!("`{key}={value}`: not true or false"));
        match key {
            "c_puct" => self.c_puct = number()?,
            "fpu_reduction" => self.fpu_reduction = number()?,
            "leaves_per_batch" => {
                self.leaves_per_batch =
                    value.parse().map_err(|_| format!("`{key}={value}`: not a whole number"))?
            }
            "solver" => self.solver = flag()?,
            "pass_forced" => self.pass_forced = flag()?,
            "policy_temperature" => self.policy_temperature = number()?,
            "draw_penalty" => self.draw_penalty = number()?,
            // A player's moves at every ply drawn at this temperature (0: the most visited).
            "move_temperature" => {
                let t = number()?;
                self.temperature = TemperatureSchedule { opening: t, opening_plies: 0, later: t };
            }
            _ => {
                return Err(format!(
                    "unknown search setting `{key}`; expected one of {}",
                    PLAYER_SETTINGS.join(", ")
                ))
            }
        }
        self.validate().map_err(|e| e.to_string())
    }

    /// The budget of a full (`true`) or cheap search under the playout cap.
    pub fn budget(&self, full: bool) -> Budget {
        if full {
            Budget {
                visits: self.playout_cap.full_visits,
                root_noise: self.dirichlet_fraction > 0.0,
            }
        } else {
            Budget { visits: self.playout_cap.cheap_visits, root_noise: false }
        }
    }

    /// Checks every field's range; the error names the first bad field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let cap = &self.playout_cap;
        let resign = &self.resignation;
        let temp = &self.temperature;
        check(
            "c_puct",
            self.c_puct,
            self.c_puct > 0.0 && self.c_puct.is_finite(),
            "a finite number > 0",
        )?;
        check(
            "fpu_reduction",
            self.fpu_reduction,
            is_in(self.fpu_reduction, 0.0, 2.0),
            "in [0, 2]",
        )?;
        check(
            "dirichlet_alpha",
            self.dirichlet_alpha,
            self.dirichlet_alpha > 0.0 && self.dirichlet_alpha.is_finite(),
            "a finite number > 0",
        )?;
        check(
            "dirichlet_fraction",
            self.dirichlet_fraction,
            is_in(self.dirichlet_fraction, 0.0, 1.0),
            "in [0, 1]",
        )?;
        check(
            "forced_playouts",
            self.forced_playouts,
            is_in(self.forced_playouts, 0.0, 10.0),
            "in [0, 10]",
        )?;
        check(
            "policy_temperature",
            self.policy_temperature,
            is_in(self.policy_temperature, 0.1, 10.0),
            "in [0.1, 10]",
        )?;
        check("draw_penalty", self.draw_penalty, is_in(self.draw_penalty, 0.0, 1.0), "in [0, 1]")?;
        check("leaves_per_batch", self.leaves_per_batch, self.leaves_per_batch >= 1, "at least 1")?;
        check("temperature.opening", temp.opening, is_in(temp.opening, 0.0, 10.0), "in [0, 10]")?;
        check("temperature.later", temp.later, is_in(temp.later, 0.0, 10.0), "in [0, 10]")?;
        check("playout_cap.full_visits", cap.full_visits, cap.full_visits >= 1, "at least 1")?;
        check(
            "playout_cap.cheap_visits",
            cap.cheap_visits,
            (1..=cap.full_visits).contains(&cap.cheap_visits),
            "in 1..=full_visits",
        )?;
        check(
            "playout_cap.full_probability",
            cap.full_probability,
            is_in(cap.full_probability, 0.0, 1.0),
            "in [0, 1]",
        )?;
        check(
            "resignation.threshold",
            resign.threshold,
            resign.threshold > -1.0 && resign.threshold < 1.0,
            "in (-1, 1)",
        )?;
        check(
            "resignation.consecutive",
            resign.consecutive,
            resign.consecutive >= 1,
            "at least 1",
        )?;
        check(
            "resignation.disabled_share",
            resign.disabled_share,
            is_in(resign.disabled_share, 0.0, 1.0),
            "in [0, 1]",
        )?;
        Ok(())
    }
}

fn is_in(value: f32, low: f32, high: f32) -> bool {
    (low..=high).contains(&value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        MctsConfig::default().validate().unwrap();
    }

    #[test]
    fn partial_config_fills_defaults_and_unknown_fields_are_rejected() {
        let config: MctsConfig =
            serde_json::from_str(r#"{"c_puct": 2.0, "playout_cap": {"full_visits": 800}}"#)
                .unwrap();
        assert_eq!(config.c_puct, 2.0);
        assert_eq!(config.playout_cap.full_visits, 800);
        assert_eq!(config.playout_cap.cheap_visits, PlayoutCap::default().cheap_visits);
        let err = serde_json::from_str::<MctsConfig>(r#"{"cpuct": 2.0}"#).unwrap_err();
        assert!(err.to_string().contains("cpuct"), "{err}");
    }

    #[test]
    fn validate_names_the_bad_field() {
        let mut config = MctsConfig::default();
        config.playout_cap.cheap_visits = config.playout_cap.full_visits + 1;
        let err = config.validate().unwrap_err();
        assert_eq!(err.field, "playout_cap.cheap_visits");
        assert!(err.to_string().contains("playout_cap.cheap_visits"));
        let config = MctsConfig { dirichlet_fraction: 1.5, ..MctsConfig::default() };
        assert_eq!(config.validate().unwrap_err().field, "dirichlet_fraction");
    }

    #[test]
    fn player_settings_are_set_from_text_and_checked() {
        let mut config = MctsConfig::default();
        config.set("c_puct", "2.5").unwrap();
        config.set("solver", "true").unwrap();
        assert_eq!((config.c_puct, config.solver), (2.5, true));
        assert!(config.set("c_puct", "-1").unwrap_err().contains("c_puct"));
        assert!(config.set("solver", "yes").unwrap_err().contains("not true or false"));
        assert!(config.set("cpuct", "1").unwrap_err().contains("unknown search setting `cpuct`"));
        let mut config = MctsConfig::default();
        config.set("move_temperature", "1.5").unwrap();
        assert_eq!((config.temperature.at(0), config.temperature.at(300)), (1.5, 1.5));
        assert!(config.set("move_temperature", "-1").unwrap_err().contains("temperature"));
    }

    #[test]
    fn temperature_schedule_switches_after_the_opening() {
        let schedule = TemperatureSchedule { opening: 1.0, opening_plies: 4, later: 0.0 };
        assert_eq!(schedule.at(3), 1.0);
        assert_eq!(schedule.at(4), 0.0);
    }
}
