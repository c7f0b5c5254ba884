//! Games under a clock: each move thought about within its budget, the increment paid before
//! each move, a side out of time losing, and players that name no budget named by the clock.

use crate::clock::GameClock;
use crate::entrant::{Entrant, NetOptions};
use crate::error::ArenaError;
use crate::play::{finish, Ending};
use crate::player::{Choice, Contestant, Player};
use draughts::{Color, DrawRules, Game, GameResult, Position};
use search::{MoveBudget, ThinkRequest};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Plays the first legal move after `delay`, noting the budget of each move it is asked for.
struct Timed {
    delay: Duration,
    budgets: Arc<Mutex<Vec<MoveBudget>>>,
}

impl Player for Timed {
    fn choose(&mut self, _game: &Game) -> Result<Choice, ArenaError> {
        panic!("under a clock a player is asked to think within a budget")
    }

    fn think(&mut self, game: &Game, request: ThinkRequest<'_>) -> Result<Choice, ArenaError> {
        self.budgets.lock().unwrap().push(request.budget);
        std::thread::sleep(self.delay);
        Ok(Choice::bare(game.position().legal_moves()[0]))
    }
}

fn timed(millis: u64) -> (Box<dyn Player>, Arc<Mutex<Vec<MoveBudget>>>) {
    let budgets = Arc::new(Mutex::new(Vec::new()));
    let player = Timed { delay: Duration::from_millis(millis), budgets: Arc::clone(&budgets) };
    (Box::new(player), budgets)
}

fn targets(budgets: &Mutex<Vec<MoveBudget>>) -> Vec<f64> {
    let budgets = budgets.lock().unwrap();
    budgets
        .iter()
        .map(|budget| match budget {
            MoveBudget::Clock { target, .. } => target.as_secs_f64(),
            other => panic!("not a clock's budget: {other:?}"),
        })
        .collect()
}

#[test]
fn a_side_whose_moves_take_longer_than_its_clock_loses_on_time() {
    // Black spends 60 ms a move from 0.2 s and 10 ms a move back; White moves at once.
    let clock = GameClock { base: 0.2, increment: 0.01 };
    let ((slow, slow_budgets), (quick, quick_budgets)) = (timed(60), timed(0));
    let mut players = [slow, quick];
    let mut game = Game::new(Position::start(), DrawRules::default());
    let ending = finish(&mut game, &mut players, ["slow", "quick"], None, Some(clock)).unwrap();
    assert_eq!(ending, Ending::Time { loser: Color::Black });
    assert_eq!(ending.result(), GameResult::WhiteWins);
    assert_eq!(ending.word(), "time");
    // 0.2 s lasts at most four moves of 60 ms less 10 ms back each (0.2 - 4 · 0.05 = 0, then
    // below; fewer when a loaded machine stretches the sleeps).
    let slow = targets(&slow_budgets);
    assert!((1..=5).contains(&slow.len()), "{slow:?}");
    assert!(slow.windows(2).all(|w| w[1] < w[0]), "the shares shrink with the clock: {slow:?}");
    // White answered every move but the last, its first with the first share of a full clock.
    let quick = targets(&quick_budgets);
    assert_eq!(quick.len(), slow.len() - 1, "{quick:?}");
    if let Some(first) = quick.first() {
        assert!((first - (0.2 / 30.0 + 0.01)).abs() < 1e-9, "{quick:?}");
    }
}

#[test]
fn players_that_name_no_budget_are_named_by_the_clock_and_play_it_out() {
    let options = NetOptions { clock: Some("0.5+0.02".parse().unwrap()), ..NetOptions::default() };
    let engine = Entrant::load(&"alphabeta".parse().unwrap(), &options).unwrap();
    assert_eq!(engine.name(), "alphabeta:0.5+0.02");
    let deep = Entrant::load(&"alphabeta:3".parse().unwrap(), &options).unwrap();
    assert_eq!(deep.name(), "alphabeta:3");
    let mut players: [Box<dyn Player>; 2] = [engine.player(1).unwrap(), deep.player(2).unwrap()];
    let mut game = Game::new(Position::start(), DrawRules::default());
    let clock = options.clock;
    let ending = finish(&mut game, &mut players, ["clocked", "deep"], None, clock).unwrap();
    // Late in a game a side keeps about the clock's reserve (0.05 s) in hand, so a loaded
    // machine may stall a move past it: a loss on time is an ending too, never before the
    // half-second base is spent.
    assert!(matches!(ending, Ending::Rules(_) | Ending::Time { .. }), "{ending:?}");
    assert!(game.ply() >= 10, "{ending:?} after {} plies", game.ply());
}
