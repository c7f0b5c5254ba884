//! The alpha-beta engine's settings: its table's size and which refinements of the plain
//! negamax it uses. The classic set is the fixed baseline opponent (`alphabeta` with the static
//! evaluation, unchanged so that its strength stays a yardstick); the full set is the engine that
//! runs a net at its leaves.

mod declare;
#[cfg(test)]
mod tests;

use declare::{features, Values};
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

    /// Bytes the engine's transposition table holds at most (what a server counts for it).
    pub fn table_bytes(&self) -> u64 {
        super::tt::table_bytes(self.tt_bits)
    }
}

/// The most threads one search may use.
pub const MAX_THREADS: u8 = 64;

/// A half-width of the aspiration window, in hundredths of a man.
const HALF_WIDTH: Values =
    Values::Whole { what: "a half-width", low: 0, high: 1000, note: " (a man is 100)" };

/// A margin a ply of the static-null-move pruning, in hundredths of a man.
const MARGIN: Values =
    Values::Whole { what: "a margin a ply", low: 0, high: 1000, note: " (a man is 100; 0: off)" };

/// A margin of the verified pruning, in hundredths of a man.
const VERIFY_MARGIN: Values =
    Values::Whole { what: "a margin", low: 0, high: 1000, note: " (a man is 100; 0: off)" };

/// A thread count.
const THREADS: Values =
    Values::Whole { what: "a count", low: 1, high: MAX_THREADS as i64, note: "" };

features! {
    /// The refinements of the plain negamax, each on its own switch so that its worth can be
    /// measured by a match with and without it. Each is declared once below: its type, its value
    /// in the classic and in the full engine, and the values a player spec may give it.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct SearchFeatures {
        /// Principal-variation search: every move after the first is searched with a null window
        /// first, and again with the full window only when it may be better.
        pvs: bool = false, true, Values::Switch;
        /// Half-width of the root's aspiration window around the last iteration's score, in
        /// hundredths of a man (0: the full window every iteration). A fail widens it fourfold.
        aspiration: i32 = 0, 30, HALF_WIDTH;
        /// Two killer moves a ply (quiet moves that cut off at that ply) tried right after the
        /// table's move.
        killers: bool = false, true, Values::Switch;
        /// The history heuristic: quiet moves ordered by how often (weighted by depth squared)
        /// they cut off before.
        history: bool = false, true, Values::Switch;
        /// Quiet moves at nodes with at least two plies left ordered by the net's policy head
        /// (after the table's move and the killers; history breaks ties), where the leaf
        /// evaluator has one.
        policy: bool = false, true, Values::Switch;
        /// The table keeps its entries from one move to the next (replacing by depth and age),
        /// instead of forgetting them at each search.
        keep_table: bool = false, true, Values::Switch;
        /// Late-move reductions: quiet moves late in the order, at depth 3 or more, are searched
        /// a ply shallower first, and again at full depth only when they beat alpha.
        reductions: bool = false, true, Values::Switch;
        /// With `reductions`: the later the move and the deeper the node, the more plies it is
        /// reduced by (`1 + ln(depth) · ln(index) / 2`, one less on the principal variation).
        deep_reductions: bool = false, true, Values::Switch;
        /// Static-null-move pruning (reverse futility): a quiet node off the principal variation
        /// with at most three plies left whose leaf score, less this margin a ply left, still
        /// reaches beta, is cut off without searching its moves (0: off).
        futility: i32 = 0, 0, MARGIN;
        /// Verified pruning: off the principal variation, a move to a position of more than six
        /// pieces, without a capture to make and with at least three plies left, whose leaf
        /// score passes beta by this margin is not searched when a search four plies shallower
        /// confirms it passes by the margin (0: off).
        verified_pruning: i32 = 0, 30, VERIFY_MARGIN;
        /// The capture search below the horizon probes and stores the transposition table (off:
        /// only nodes with plies left use it, so the table's memory is spent on them).
        capture_table: bool = true, false, Values::Switch;
        /// Extensions of a ply: a capture that answers a capture or lies on the principal
        /// variation, and a quiet move at the horizon after which its side threatens a capture.
        extensions: bool = false, true, Values::Switch;
        /// A position with one legal move is answered at once, without searching.
        instant_forced: bool = false, true, Values::Switch;
        /// Under a game clock, no iteration begins once the answer has had time enough: about
        /// half the move's share, a quarter once the answer has lasted four iterations, the whole
        /// share when it just changed or its score fell; an iteration is cut short only at the
        /// most the move may take. Without it a clock's move takes its share, as a fixed time.
        time_management: bool = false, false, Values::Switch;
        /// When the clock cuts an iteration short, a root move it searched to the end and found
        /// better than the last iteration's answer is played (else the last answer is).
        partial_iterations: bool = false, true, Values::Switch;
        /// Threads a search uses (Lazy SMP: helpers search the same root through the shared
        /// table); with a net, the leaves of a net without an incremental evaluator are scored on
        /// one thread.
        threads: u8 = 1, 1, THREADS;
    }
}

impl Default for SearchFeatures {
    fn default() -> Self {
        SearchFeatures::classic()
    }
}
