//! The alpha-beta engine's settings: its table's size and which refinements of the plain
//! negamax it uses. The classic set is the fixed baseline opponent (`alphabeta` with the static
//! evaluation, unchanged so that its strength stays a yardstick); the full set is the engine that
//! runs a net at its leaves.

use serde::{Deserialize, Serialize};

/// Settings of the alpha-beta engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AlphaBetaConfig {
    /// The transposition table has `2^tt_bits` entries of 16 bytes.
    pub tt_bits: u8,
    /// The refinements of the search.
    pub features: SearchFeatures,
}

impl Default for AlphaBetaConfig {
    fn default() -> Self {
        AlphaBetaConfig { tt_bits: 18, features: SearchFeatures::classic() }
    }
}

impl AlphaBetaConfig {
    /// The engine with every refinement that measured as a gain and a table of `2^tt_bits`
    /// entries.
    pub fn full(tt_bits: u8) -> AlphaBetaConfig {
        AlphaBetaConfig { tt_bits, features: SearchFeatures::full() }
    }
}

/// The most threads one search may use.
pub const MAX_THREADS: u8 = 64;

/// The refinements of the plain negamax, each on its own switch so that its worth can be
/// measured by a match with and without it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchFeatures {
    /// Principal-variation search: every move after the first is searched with a null window
    /// first, and again with the full window only when it may be better.
    pub pvs: bool,
    /// Half-width of the root's aspiration window around the last iteration's score, in
    /// hundredths of a man (0: the full window every iteration). A fail widens it fourfold.
    pub aspiration: i32,
    /// Two killer moves a ply (quiet moves that cut off at that ply) tried right after the
    /// table's move.
    pub killers: bool,
    /// The history heuristic: quiet moves ordered by how often (weighted by depth squared)
    /// they cut off before.
    pub history: bool,
    /// The table keeps its entries from one move to the next (replacing by depth and age),
    /// instead of forgetting them at each search.
    pub keep_table: bool,
    /// Quiet moves at nodes with at least two plies left ordered by the net's policy head
    /// (after the table's move and the killers; history breaks ties), where the leaf evaluator
    /// has one.
    pub policy: bool,
    /// Late-move reductions: quiet moves late in the order, at depth 3 or more, are searched
    /// a ply shallower first, and again at full depth only when they beat alpha.
    pub reductions: bool,
    /// With `reductions`: the later the move and the deeper the node, the more plies it is
    /// reduced by (`1 + ln(depth) · ln(index) / 2`, one less on the principal variation).
    pub deep_reductions: bool,
    /// A position with one legal move is answered at once, without searching.
    pub instant_forced: bool,
    /// When the clock cuts an iteration short, a root move it searched to the end and found
    /// better than the last iteration's answer is played (else the last answer is).
    pub partial_iterations: bool,
    /// Threads a search uses (Lazy SMP: helpers search the same root through the shared
    /// table); with a net, the leaves of a net without an incremental evaluator are scored on
    /// one thread.
    pub threads: u8,
}

impl SearchFeatures {
    /// No refinement: the baseline engine.
    pub const fn classic() -> SearchFeatures {
        SearchFeatures {
            pvs: false,
            aspiration: 0,
            killers: false,
            history: false,
            policy: false,
            keep_table: false,
            reductions: false,
            deep_reductions: false,
            instant_forced: false,
            partial_iterations: false,
            threads: 1,
        }
    }

    /// Every refinement that measured as a gain (see docs/alphabeta.md for the measurements).
    pub const fn full() -> SearchFeatures {
        SearchFeatures {
            pvs: true,
            aspiration: 30,
            killers: true,
            history: true,
            policy: true,
            keep_table: true,
            reductions: true,
            deep_reductions: true,
            instant_forced: true,
            partial_iterations: true,
            threads: 1,
        }
    }
}

impl SearchFeatures {
    /// The settings a player spec may change (`alphabeta:0.1s,net=X,KEY=VALUE`).
    pub const KEYS: [&'static str; 11] = [
        "pvs",
        "aspiration",
        "killers",
        "history",
        "policy",
        "keep_table",
        "reductions",
        "deep_reductions",
        "instant_forced",
        "partial_iterations",
        "threads",
    ];

    /// Changes the setting `key` to `value` (a switch: `1`/`0`, `on`/`off`, `true`/`false`;
    /// `aspiration`: a half-width from 0 to 1000; `threads`: a count from 1 to [`MAX_THREADS`]).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let switch = || match value {
            "1" | "on" | "true" => Ok(true),
            "0" | "off" | "false" => Ok(false),
            _ => Err(format!(
                "`{key}` is a switch: 1 or 0 (on/off, true/false), not `{}`",
                support::shown(value)
            )),
        };
        match key {
            "pvs" => self.pvs = switch()?,
            "aspiration" => {
                let width = value.parse().ok().filter(|w| (0..=1000).contains(w));
                self.aspiration = width.ok_or_else(|| {
                    let value = support::shown(value);
                    format!(
                        "`aspiration` is a half-width from 0 to 1000 (a man is 100), not `{value}`"
                    )
                })?;
            }
            "killers" => self.killers = switch()?,
            "history" => self.history = switch()?,
            "policy" => self.policy = switch()?,
            "keep_table" => self.keep_table = switch()?,
            "reductions" => self.reductions = switch()?,
            "deep_reductions" => self.deep_reductions = switch()?,
            "instant_forced" => self.instant_forced = switch()?,
            "partial_iterations" => self.partial_iterations = switch()?,
            "threads" => {
                let threads = value.parse().ok().filter(|t| (1..=MAX_THREADS).contains(t));
                self.threads = threads.ok_or_else(|| {
                    let value = support::shown(value);
                    format!("`threads` is a count from 1 to {MAX_THREADS}, not `{value}`")
                })?;
            }
            _ => {
                return Err(format!(
                    "unknown alpha-beta setting `{}`; expected one of {}",
                    support::shown(key),
                    Self::KEYS.join(", ")
                ))
            }
        }
        Ok(())
    }
}

impl Default for SearchFeatures {
    fn default() -> Self {
        SearchFeatures::classic()
    }
}
