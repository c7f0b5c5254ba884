//! The games the page plays: one per browser tab, each against an engine of its own, kept while
//! the server runs (the oldest given up beyond [`MAX_GAMES`]). Engines are loaded once per spec and
//! shared by the games that play them.

use anyhow::Result;
use arena::{Contestant, Entrant, NetOptions, Player, PlayerSpec};
use draughts::{Color, DrawRules, Game, PdnGame, Position, Square};
use search::{MoveBudget, Progress, SearchControl, ThinkRequest};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Games kept at once; a new one beyond this gives up the oldest.
pub const MAX_GAMES: usize = 256;
/// Engines (distinct player specs) loaded at once; a game asking for another is refused.
pub const MAX_ENGINES: usize = 16;

/// What the page asks for a new game.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// The engine, written as for `match`; the server's default when absent.
    pub player: Option<String>,
    /// The person's colour: `black` (moves first, the default) or `white`.
    pub human: Option<String>,
    /// The start position in FEN (default: the initial position).
    pub fen: Option<String>,
    /// A ballot of the 3-move deck by name (`001`...), played from the initial position first.
    pub ballot: Option<String>,
}

/// Every game the server holds, and the engines they play.
pub struct Games {
    default_player: String,
    options: NetOptions,
    engines: Mutex<HashMap<String, Arc<Entrant>>>,
    tables: Mutex<BTreeMap<u64, Arc<Mutex<Table>>>>,
    next_id: AtomicU64,
}

/// One game: the position, who plays which side, and the engine's player for this game.
pub struct Table {
    /// The game so far.
    pub game: Game,
    /// The person's colour.
    pub human: Color,
    engine_name: String,
    engine: Box<dyn Player>,
}

impl Games {
    /// The games of a server whose engine is `default_player` (loaded now, so that a bad spec or
    /// net is an error at start).
    pub fn new(default_player: String, options: NetOptions) -> Result<Games> {
        let games = Games {
            default_player,
            options,
            engines: Mutex::new(HashMap::new()),
            tables: Mutex::new(BTreeMap::new()),
            next_id: AtomicU64::new(1),
        };
        games.engine(&games.default_player)?;
        Ok(games)
    }

    /// The engine a game plays when the page names none.
    pub fn default_player(&self) -> &str {
        &self.default_player
    }

    /// The loaded engine `spec` names (loaded once).
    fn engine(&self, spec: &str) -> Result<Arc<Entrant>> {
        let mut engines = self.engines.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(entrant) = engines.get(spec) {
            return Ok(Arc::clone(entrant));
        }
        anyhow::ensure!(
            engines.len() < MAX_ENGINES,
            "{MAX_ENGINES} engines are loaded already; play one of them ({})",
            engines.keys().cloned().collect::<Vec<_>>().join(", ")
        );
        let entrant = Arc::new(crate::lone_player::load(spec, &self.options)?);
        engines.insert(spec.to_string(), Arc::clone(&entrant));
        Ok(entrant)
    }

    /// Starts the game `request` asks for; its id and the game. An error says what is wrong with
    /// the request.
    pub fn create(&self, request: NewGame) -> Result<(u64, Arc<Mutex<Table>>)> {
        let human = match request.human.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None | Some("black") => Color::Black,
            Some("white") => Color::White,
            Some(other) => anyhow::bail!("`human`: `{other}` is not a colour (black or white)"),
        };
        let mut game = match &request.fen {
            Some(fen) => Game::new(Position::from_fen(fen)?, DrawRules::default()),
            None => Game::new(Position::start(), DrawRules::default()),
        };
        if let Some(name) = &request.ballot {
            anyhow::ensure!(request.fen.is_none(), "give a `fen` or a `ballot`, not both");
            let deck = arena::standard_deck()?;
            let ballot = deck.iter().find(|b| &b.name == name);
            let ballot = ballot.ok_or_else(|| anyhow::anyhow!("no ballot `{name}` in the deck"))?;
            for &mv in &ballot.moves {
                game.play(mv)?;
            }
        }
        let spec = request.player.unwrap_or_else(|| self.default_player.clone());
        spec.parse::<PlayerSpec>()?;
        let entrant = self.engine(&spec)?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let table = Arc::new(Mutex::new(Table {
            game,
            human,
            engine_name: entrant.name().to_string(),
            engine: entrant.player(id)?,
        }));
        let mut tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        while tables.len() >= MAX_GAMES {
            tables.pop_first();
        }
        tables.insert(id, Arc::clone(&table));
        Ok((id, table))
    }

    /// A fresh evaluator over the default engine's net; `None` when it plays without one.
    pub fn default_net(&self) -> Result<Option<search::BoxedEvaluator>> {
        Ok(self.engine(&self.default_player)?.evaluator())
    }

    /// The game `id`, if the server holds it.
    pub fn get(&self, id: u64) -> Option<Arc<Mutex<Table>>> {
        self.tables.lock().unwrap_or_else(|p| p.into_inner()).get(&id).cloned()
    }
}

impl Table {
    /// Whether the engine is to move (and the game not over).
    pub fn engine_to_move(&self) -> bool {
        self.game.outcome().is_none() && self.game.position().side_to_move() != self.human
    }

    /// Plays the person's move `text` (PDN move text).
    pub fn play(&mut self, text: &str) -> Result<()> {
        anyhow::ensure!(self.game.outcome().is_none(), "the game is over");
        anyhow::ensure!(!self.engine_to_move(), "it is the engine's move, not yours");
        let mv = self.game.position().parse_move(text)?;
        self.game.play(mv)?;
        Ok(())
    }

    /// The engine thinks and plays, telling `report` how its search goes.
    pub fn engine_move(
        &mut self,
        control: &SearchControl,
        report: &mut dyn FnMut(&Progress),
    ) -> Result<()> {
        anyhow::ensure!(self.engine_to_move(), "it is not the engine's move");
        let request = ThinkRequest { budget: MoveBudget::Own, control, report };
        let choice = self.engine.think(&self.game, request)?;
        self.game.play(choice.mv)?;
        Ok(())
    }

    /// Takes back the person's last move and the engine's reply to it, if any.
    pub fn undo(&mut self) {
        let human_moves: Vec<usize> =
            (0..self.game.ply()).filter(|&ply| self.side_at(ply) == self.human).collect();
        let Some(&last) = human_moves.last() else { return };
        self.game = crate::play::take_back(&self.game, self.game.ply() - last);
    }

    /// Who moved at `ply` of the game.
    fn side_at(&self, ply: usize) -> Color {
        let first = self.game.start().side_to_move();
        if ply % 2 == 0 {
            first
        } else {
            first.other()
        }
    }

    /// The game as the page shows it.
    pub fn state(&self, id: u64) -> Value {
        let position = self.game.position();
        let board = super::run_view::board(position);
        let human_to_move = !self.engine_to_move() && self.game.outcome().is_none();
        let legal: Vec<Value> = if human_to_move {
            position
                .legal_moves()
                .iter()
                .map(|mv| {
                    let squares: Vec<u8> = mv.squares().map(Square::pdn).collect();
                    json!({"move": mv.to_string(), "squares": squares})
                })
                .collect()
        } else {
            Vec::new()
        };
        let result = self.game.outcome().map(|outcome| {
            let score = draughts::GameResult::from_outcome(Some(outcome)).pdn();
            json!({"score": score, "reason": arena::ending(outcome)})
        });
        let mut pdn = PdnGame::from_game(&self.game);
        let (black, white) = match self.human {
            Color::Black => ("you", self.engine_name.as_str()),
            Color::White => (self.engine_name.as_str(), "you"),
        };
        pdn.set_tag("Event", "checkers-zero serve");
        pdn.set_tag("Black", black);
        pdn.set_tag("White", white);
        json!({
            "id": id,
            "engine": self.engine_name,
            "human": color_name(self.human),
            "to_move": color_name(position.side_to_move()),
            "fen": position.to_fen(),
            "board": board,
            "legal": legal,
            "moves": self.game.moves().iter().map(|mv| mv.to_string()).collect::<Vec<_>>(),
            "result": result,
            "pdn": draughts::write_pdn(&[pdn]),
        })
    }
}

/// `black` or `white`.
pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}
