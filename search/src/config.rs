//! The search's configuration: PUCT constants, root noise, temperature schedule, playout-cap
//! randomisation and resignation, deserialised from TOML/JSON and validated once.

use crate::settings::{Key, Range, Value};
use serde::{Deserialize, Serialize};

crate::settings! {
    /// Everything the MCTS and the self-play game driver (the `selfplay` crate's) read. Every
    /// field has a default, so a config file names only what it changes; unknown fields are
    /// rejected. Each setting is declared once below: its type, default and range (see
    /// [`crate::settings!`]).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct MctsConfig ("") {
        /// Exploration constant of PUCT: `U = c_puct * prior * sqrt(N_parent) / (1 + N_child)`.
        c_puct: f32 = 1.5, Range::Positive, player;
        /// First-play urgency: an unvisited child is valued at the parent's value minus
        /// `fpu_reduction * sqrt(sum of the priors of visited children)` (Leela Chess Zero's rule).
        fpu_reduction: f32 = 0.25, Range::Closed(0.0, 2.0), player;
        /// Dirichlet concentration per legal step of the root noise.
        dirichlet_alpha: f32 = 1.0, Range::Positive;
        /// Share of the root priors replaced by noise in full searches: `(1 - f) * prior + f * noise`.
        /// 0 turns noise off (for players).
        dirichlet_fraction: f32 = 0.25, Range::Closed(0.0, 1.0);
        /// Leaves one search may hand to the evaluator at once (virtual loss spreads them); also the
        /// batch of the single-game conveniences ([`crate::Search::run`], self-play's
        /// `SelfPlayGame::play`).
        leaves_per_batch: u32 = 8, Range::AtLeast(1.0), player;
        /// MCTS-solver: game ends (and endgame-table positions) are exact values that the search
        /// proves up the tree; it plays a proven win and avoids a proven loss (see `solver.rs`).
        solver: bool = false, Range::Any, player;
        /// A decision with a single legal step (a forced capture, the next jump of a multi-jump) is
        /// passed through to its child without asking the evaluator, so every evaluation is spent
        /// where there is a choice.
        pass_forced: bool = true, Range::Any, player;
        /// KataGo's forced playouts in full searches with root noise: a root child with fewer than
        /// `sqrt(forced_playouts * prior * root visits)` visits is searched next, and the policy
        /// target takes those visits off again where they were only forced (0: off; KataGo uses 2).
        forced_playouts: f32 = 0.0, Range::Closed(0.0, 10.0);
        /// The net's priors are taken to the power `1 / policy_temperature` and normalised again
        /// (a softmax of the policy logits divided by it): above 1 the search looks wider than the
        /// net suggests (Leela Chess Zero plays at about 1.6), below 1 narrower; 1 leaves them.
        policy_temperature: f32 = 1.0, Range::Closed(0.1, 10.0), player;
        /// Draw aversion: selection rates a child `W - L - draw_penalty * D` for the side choosing it
        /// (its mean value less the penalty times its mean draw probability), for both sides alike,
        /// so a search steers away from lines the net sees drawn. 0 (off) leaves selection to the
        /// value alone; the reported values stay `W - L`.
        draw_penalty: f32 = 0.0, Range::Closed(0.0, 1.0), player;
        sections:
        /// How the chosen step is drawn from the root visit counts.
        temperature: TemperatureSchedule;
        /// KataGo's playout-cap randomisation.
        playout_cap: PlayoutCap;
        /// When a self-play game may end by resignation.
        resignation: Resignation;
    }
}

crate::settings! {
    /// Temperature `opening` for the first `opening_plies` plies of a game, then `later`.
    /// A temperature of 0 picks the most visited step; 1 samples in proportion to visits.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct TemperatureSchedule ("temperature.") {
        /// Temperature of the opening plies (1 samples in proportion to visits).
        opening: f32 = 1.0, Range::Closed(0.0, 10.0);
        /// Plies of each game played at the `opening` temperature.
        opening_plies: u32 = 16, Range::Any;
        /// Temperature of every later ply (0 plays the most visited step).
        later: f32 = 0.0, Range::Closed(0.0, 10.0);
    }
}

crate::settings! {
    /// With probability `full_probability` a decision gets a full search of `full_visits` root
    /// visits (with root noise; a policy target), otherwise a cheap one of `cheap_visits` (no noise;
    /// value target only). Set `full_probability = 1` to search every decision fully.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct PlayoutCap ("playout_cap.") {
        /// Root visits of a full search.
        full_visits: u32 = 400, Range::AtLeast(1.0);
        /// Root visits of a cheap search.
        cheap_visits: u32 = 80, Range::UpTo("full_visits");
        /// Chance that a decision gets a full search.
        full_probability: f32 = 0.25, Range::Closed(0.0, 1.0);
    }
}

crate::settings! {
    /// A side resigns after `consecutive` searched decisions in a row whose root value (its own
    /// view) is below `threshold`. In a `disabled_share` of games resignation is off, and the driver
    /// reports where it would have resigned, so the false-positive rate can be measured.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct Resignation ("resignation.") {
        /// Whether resignation is on at all.
        enabled: bool = true, Range::Any;
        /// Root value (the mover's view) below which a decision counts towards resigning.
        threshold: f32 = -0.95, Range::Open(-1.0, 1.0);
        /// Decisions in a row below `threshold` before the side resigns.
        consecutive: u32 = 3, Range::AtLeast(1.0);
        /// Share of games played with resignation off, to measure false resignations.
        disabled_share: f32 = 0.1, Range::Closed(0.0, 1.0);
    }
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

/// The player setting that is no field: a player's moves at every ply drawn at this temperature
/// (0: the most visited), in the range of `temperature.opening`.
pub const MOVE_TEMPERATURE: &str = "move_temperature";

impl MctsConfig {
    /// The settings a player's spec may change, as `KEY=VALUE` (see [`MctsConfig::set`]): those
    /// declared `player`, then [`MOVE_TEMPERATURE`].
    pub fn player_keys() -> Vec<Key> {
        let mut keys: Vec<Key> = Self::keys().into_iter().filter(|k| k.player).collect();
        let opening =
            TemperatureSchedule::keys().into_iter().find(|k| k.name == "temperature.opening");
        let range = opening.map_or_else(|| Range::Any.to_string(), |k| k.range);
        keys.push(Key {
            name: MOVE_TEMPERATURE,
            default: "0".into(),
            range,
            meaning:
                "A player's moves at every ply drawn at this temperature (0: the most visited).",
            player: true,
        });
        keys
    }

    /// Sets one of the [`MctsConfig::player_keys`] from its text, e.g. `c_puct` to `2.0` or
    /// `solver` to `false`, and checks the result. The error says which key or value is wrong.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let players = Self::player_keys();
        if key == MOVE_TEMPERATURE {
            let t = f32::from_text(key, value)?;
            self.temperature = TemperatureSchedule { opening: t, opening_plies: 0, later: t };
        } else {
            let settable = players.iter().any(|k| k.name == key);
            match settable.then(|| self.set_text(key, value)).flatten() {
                Some(set) => set?,
                None => {
                    let names: Vec<&str> = players.iter().map(|k| k.name).collect();
                    let expected = names.join(", ");
                    return Err(format!(
                        "unknown search setting `{key}`; expected one of {expected}"
                    ));
                }
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
        self.check_ranges()
    }
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
        let names: Vec<&str> = MctsConfig::player_keys().iter().map(|k| k.name).collect();
        let expected = [
            "c_puct",
            "fpu_reduction",
            "leaves_per_batch",
            "solver",
            "pass_forced",
            "policy_temperature",
            "draw_penalty",
            "move_temperature",
        ];
        assert_eq!(names, expected);
        assert!(MctsConfig::default()
            .set("dirichlet_fraction", "0")
            .unwrap_err()
            .contains("unknown"));
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
