//! Test support: small endgame tables built once per test run, a 16-visit search, and self-play
//! games with them.

use crate::SelfPlayGame;
use draughts::{DrawRules, Game, Position};
use egdb::Tables;
use search::{GameRecord, MctsConfig, PlayoutCap, UniformEvaluator};
use std::sync::{Arc, OnceLock};

/// Tables for up to 3 pieces, built once into a folder kept for the whole test run.
pub fn tables() -> Arc<Tables> {
    static TABLES: OnceLock<(tempfile::TempDir, Arc<Tables>)> = OnceLock::new();
    let (_, tables) = TABLES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        egdb::build(dir.path(), 3, |_| {}).unwrap();
        let tables = Tables::open(dir.path()).unwrap();
        (dir, Arc::new(tables))
    });
    Arc::clone(tables)
}

/// Black's two kings against White's king: a win in 21 plies by the tables.
pub const WON: &str = "B:WK32:BK14,K15";

/// Plays a self-play game from `fen` (16 visits a decision, at most 20 plies), the tables as the
/// searches' leaves with `search`, as its adjudicator with `adjudicate`.
pub fn self_played(fen: &str, search: bool, adjudicate: bool) -> GameRecord {
    let rules = DrawRules { max_plies: 20, ..DrawRules::default() };
    let game = Game::new(Position::from_fen(fen).unwrap(), rules);
    let config = sixteen_visits();
    let (search_tables, adjudicator) = (search.then(tables), adjudicate.then(tables));
    let game = SelfPlayGame::with_tables(&config, game, 5, search_tables, adjudicator).unwrap();
    game.play(&mut UniformEvaluator).unwrap()
}

/// The default search with 16 visits every decision.
pub fn sixteen_visits() -> MctsConfig {
    let cap = PlayoutCap { full_visits: 16, cheap_visits: 16, full_probability: 1.0 };
    MctsConfig { playout_cap: cap, ..MctsConfig::default() }
}
