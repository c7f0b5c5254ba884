//! The games the page plays: one per browser tab, each against an engine of its own, kept while
//! the server runs under an id no other page can guess (128 random bits). Each game, analysis and
//! engine reserves its worst-case memory of the server's [`Budget`]; a new one gives up the
//! oldest games beyond [`MAX_GAMES`], then the oldest no request is using while it would pass the
//! budget, and is refused ([`OverBudget`]) when it passes it still. Engines are loaded once per
//! spec and shared by the games that play them. A page may start only the built-in engines
//! within [`PAGE_MAX_DEPTH`] and [`PAGE_MAX_SECONDS`], and the players the server was started
//! with (`--player`, `--net`, `--page-player`): never a net by a path of its choosing, so it
//! cannot make the server read files; and a net that fails to load is told to the page in one
//! generic line.

use super::memory::{self, Budget, OverBudget, Share};
use anyhow::{Context, Result};
use arena::{Contestant, Entrant, NetOptions, Player, PlayerSpec, SearchLimit};
use draughts::{Color, DrawRules, Game, PdnGame, Position, Square};
use search::{MoveBudget, Progress, SearchControl, ThinkRequest};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Games kept at once; a new one beyond this gives up the oldest (tabs close without telling the
/// server). What they hold together is bounded by the memory budget.
pub const MAX_GAMES: usize = 64;
/// The deepest alpha-beta search a page may start on its own.
pub const PAGE_MAX_DEPTH: u32 = 16;
/// The longest alpha-beta think a move a page may start on its own, in seconds.
pub const PAGE_MAX_SECONDS: f64 = 10.0;
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
    /// The other players a page may start by name (`--page-player`).
    page_players: Vec<String>,
    options: NetOptions,
    engines: Mutex<HashMap<String, Arc<Entrant>>>,
    /// The games by id, oldest first.
    tables: Mutex<VecDeque<(String, Arc<Mutex<Table>>)>>,
    /// What the games, analyses and engines may hold together.
    budget: Arc<Budget>,
    /// The engines' reservations, kept while the server runs.
    engine_shares: Mutex<Vec<Share>>,
    /// The seed of the next game's player.
    next_seed: AtomicU64,
}

/// One game: the position, who plays which side, and the engine's player for this game.
pub struct Table {
    /// The game so far.
    pub game: Game,
    /// The person's colour.
    pub human: Color,
    engine_name: String,
    engine: Box<dyn Player>,
    /// The game's reservation of the budget, given back when the game is dropped.
    _memory: Share,
}

impl Games {
    /// The games of a server whose engine is `default_player` (loaded now, so that a bad spec or
    /// net, or one whose game does not fit `budget`, is an error at start); a page may also start
    /// the `page_players` (checked now, loaded when a page first asks).
    pub fn new(
        default_player: String,
        page_players: Vec<String>,
        options: NetOptions,
        budget: Arc<Budget>,
    ) -> Result<Games> {
        for spec in &page_players {
            crate::levels::spec(spec)?.parse::<PlayerSpec>().with_context(|| "--page-player")?;
        }
        let games = Games {
            default_player,
            page_players,
            options,
            engines: Mutex::new(HashMap::new()),
            tables: Mutex::new(VecDeque::new()),
            budget,
            engine_shares: Mutex::new(Vec::new()),
            next_seed: AtomicU64::new(1),
        };
        games.engine(&games.default_player)?;
        // One game of the default player must fit beside its engine (reserved and given back).
        drop(games.reserve_player(&games.default_player, false, false)?);
        Ok(games)
    }

    /// `spec` when a page may start it: one of the server's own players, or a built-in engine
    /// within the page's limits. Decided on the text alone, before any file is looked at.
    fn page_may_start(&self, spec: &str) -> Result<()> {
        // A level plays the net built into the binary: no path to look at.
        if spec == self.default_player
            || self.page_players.iter().any(|p| p == spec)
            || crate::levels::names_a_level(spec)
        {
            return Ok(());
        }
        let within = !arena::names_a_net(spec)
            && match spec.parse::<PlayerSpec>() {
                Ok(PlayerSpec::Random | PlayerSpec::AlphaBeta { limit: None, .. }) => true,
                Ok(PlayerSpec::AlphaBeta { limit: Some(SearchLimit::Depth(depth)), .. }) => {
                    depth <= PAGE_MAX_DEPTH
                }
                Ok(PlayerSpec::AlphaBeta { limit: Some(SearchLimit::Time(time)), .. }) => {
                    time.as_secs_f64() <= PAGE_MAX_SECONDS
                }
                _ => false,
            };
        anyhow::ensure!(
            within,
            "the page may start random, alphabeta up to depth {PAGE_MAX_DEPTH} or {PAGE_MAX_SECONDS} s a move, the levels level:1 to level:8, and the server's own players ({}); `{}` is none of them (serve --page-player SPEC allows another)",
            support::some_of(&[std::slice::from_ref(&self.default_player), &self.page_players[..]].concat()),
            support::shown(spec)
        );
        Ok(())
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
        let bytes = memory::engine_bytes(&parse(spec)?);
        let share = self.reserve(bytes, &format!("the engine {}", support::shown(spec)))?;
        let entrant = Arc::new(crate::lone_player::load(spec, &self.options)?);
        self.engine_shares.lock().unwrap_or_else(|p| p.into_inner()).push(share);
        engines.insert(spec.to_string(), Arc::clone(&entrant));
        Ok(entrant)
    }

    /// The engine a page names (the server's default when `None`), if a page may start it
    /// ([`Games::page_may_start`]): loaded once, shared by the games and analyses that use it.
    pub fn page_engine(&self, spec: Option<&str>) -> Result<Arc<Entrant>> {
        let spec = spec.unwrap_or(&self.default_player);
        self.page_may_start(spec)?;
        // A net's details (a path, what the file held) go to the server's log, not to the page.
        self.engine(spec).map_err(|e| {
            if !arena::names_a_net(spec) || e.is::<OverBudget>() {
                return e;
            }
            let detail = support::escape_and_cut(&format!("{e:#}"), 1000);
            eprintln!("serve: a page asked for {}: {detail}", support::shown(spec));
            anyhow::anyhow!("cannot load that player's net (the server's log says why)")
        })
    }

    /// The seed of the next player made for a page (each game's and analysis's its own).
    pub fn next_seed(&self) -> u64 {
        self.next_seed.fetch_add(1, Ordering::Relaxed)
    }

    /// Starts the game `request` asks for; its id and the game. An error says what is wrong with
    /// the request.
    pub fn create(&self, request: NewGame) -> Result<(String, Arc<Mutex<Table>>)> {
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
        let spec = request.player.as_deref().unwrap_or(&self.default_player);
        let entrant = self.page_engine(Some(spec))?;
        {
            let mut tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
            while tables.len() >= MAX_GAMES {
                tables.pop_front();
            }
        }
        let memory = self.reserve_player(spec, false, false)?;
        let table = Arc::new(Mutex::new(Table {
            game,
            human,
            engine_name: entrant.name().to_string(),
            engine: entrant.player(self.next_seed())?,
            _memory: memory,
        }));
        let id = format!("{:032x}", rand::random::<u128>());
        let mut tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        tables.push_back((id.clone(), Arc::clone(&table)));
        Ok((id, table))
    }

    /// Reserves the worst case of a game of `spec` (a page may start it: checked before), or of
    /// an `analysis` by it under a clock when `timed`.
    pub fn reserve_player(&self, spec: &str, analysis: bool, timed: bool) -> Result<Share> {
        let player = parse(spec)?;
        let (bytes, what) = match analysis {
            false => (memory::player_bytes(&player, &self.options, timed), "a game"),
            true => (memory::analysis_bytes(&player, &self.options, timed), "an analysis"),
        };
        let note = memory::ceiling_note(&player, &self.options, timed);
        Ok(self.reserve(bytes, &format!("{what} of {}{note}", support::shown(spec)))?)
    }

    /// Reserves `bytes` of the budget for a request's `what` while it is answered (a replay, a
    /// plot, a position's view), as [`Games::reserve`] does.
    pub fn reserve_request(&self, bytes: u64, what: &str) -> Result<Share> {
        Ok(self.reserve(bytes, what)?)
    }

    /// Reserves `bytes` of the budget for `what`, giving up the oldest games no request is using
    /// (their reservations come back) while it would pass it; refused when it passes it still.
    fn reserve(&self, bytes: u64, what: &str) -> Result<Share, OverBudget> {
        let mut tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let refused = match self.budget.reserve(bytes, what) {
                Ok(share) => return Ok(share),
                Err(refused) => refused,
            };
            // A game is in use while a request holds it (they take it under this lock).
            let idle = tables.iter().position(|(_, table)| Arc::strong_count(table) == 1);
            match idle {
                Some(oldest) => drop(tables.remove(oldest)),
                None => return Err(refused),
            }
        }
    }

    /// A fresh evaluator over the default engine's net; `None` when it plays without one.
    pub fn default_net(&self) -> Result<Option<search::BoxedEvaluator>> {
        Ok(self.engine(&self.default_player)?.evaluator())
    }

    /// The game `id`, if the server holds it.
    pub fn get(&self, id: &str) -> Option<Arc<Mutex<Table>>> {
        let tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        tables.iter().find(|(key, _)| key == id).map(|(_, table)| Arc::clone(table))
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
    pub fn state(&self, id: &str) -> Value {
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

/// The player `text` names (a level as the spec it stands for).
fn parse(text: &str) -> Result<PlayerSpec> {
    Ok(crate::levels::spec(text)?.parse::<PlayerSpec>()?)
}

/// `black` or `white`.
pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}
