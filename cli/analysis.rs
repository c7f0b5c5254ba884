//! Game analysis, shared by `checkers-zero analyse` (annotated PDN) and the browser board's
//! analysis view (`serve`'s `POST /api/analyse`): every position of a game searched by an engine,
//! each move's loss of value for its mover, and the moves that lost more than a margin marked as
//! mistakes or blunders with the engine's move and line.
//!
//! It needs nothing of the command line (the engine comes in as an [`arena::Player`], the pace
//! and the progress through a [`Watch`]), so it can move to whichever library crate needs it.

use anyhow::{anyhow, Context, Result};
use arena::Player;
use draughts::{Color, DrawRules, Game, Move, Outcome, PdnGame};
use search::{MoveBudget, Outlook, Progress, SearchControl, ThinkRequest};

/// The default margin: a quarter of the way from a draw to a win.
pub const DEFAULT_MARGIN: f32 = 0.25;

/// What the engine thinks of a position, for its side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    /// The expected result, from -1 (a loss) to 1 (a win).
    pub value: f32,
    /// The chances of a win, a draw and a loss, when the engine gives them.
    pub outlook: Option<Outlook>,
    /// The engine's move and the line it expects after it; empty where the game is over.
    pub line: Vec<Move>,
}

impl View {
    /// The view of a position where the game is over, for `to_move`.
    fn of_outcome(outcome: Outcome, to_move: Color) -> View {
        let value = f32::from(outcome.score_for(to_move));
        View { value, outlook: Some(Outlook::of_value(value, 1.0 - value.abs())), line: Vec::new() }
    }

    /// The same view for the other side (without the line, which is the side to move's).
    pub fn flipped(&self) -> View {
        let outlook = self.outlook.map(|o| Outlook { win: o.loss, draw: o.draw, loss: o.win });
        View { value: -self.value, outlook, line: Vec::new() }
    }

    /// `+0.12 (W 41% D 45% L 14%)`, the chances when known.
    pub fn text(&self) -> String {
        let percent = |p: f32| (100.0 * p).round();
        let chances = self.outlook.map_or_else(String::new, |o| {
            format!(" (W {}% D {}% L {}%)", percent(o.win), percent(o.draw), percent(o.loss))
        });
        // Rounded first, and + 0.0 turns -0 into 0: never `-0.00`.
        format!("{:+.2}{chances}", (100.0 * self.value).round() / 100.0 + 0.0)
    }
}

/// A move that lost too much.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Lost more than the margin.
    Mistake,
    /// Lost more than twice the margin.
    Blunder,
}

impl Kind {
    /// `mistake` or `blunder`.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Mistake => "mistake",
            Kind::Blunder => "blunder",
        }
    }
}

/// Each side's mistakes and blunders, Black's first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Mistakes, indexed by [`Color::index`].
    pub mistakes: [usize; 2],
    /// Blunders, indexed by [`Color::index`].
    pub blunders: [usize; 2],
}

impl Tally {
    fn count(&mut self, side: Color, kind: Kind) {
        let counts = match kind {
            Kind::Mistake => &mut self.mistakes,
            Kind::Blunder => &mut self.blunders,
        };
        counts[side.index()] += 1;
    }

    /// `Black 1 mistake, 0 blunders; White 0 mistakes, 2 blunders`.
    pub fn text(&self) -> String {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        [Color::Black, Color::White]
            .map(|side| {
                let i = side.index();
                let counts =
                    [plural(self.mistakes[i], "mistake"), plural(self.blunders[i], "blunder")];
                format!("{side:?} {}", counts.join(", "))
            })
            .join("; ")
    }
}

/// One move of the game as the engine saw it, for the side that played it.
#[derive(Clone, Debug)]
pub struct MoveReview {
    /// The move played.
    pub mv: Move,
    /// Who played it.
    pub mover: Color,
    /// The position before the move, with the engine's line.
    pub before: View,
    /// The position after it.
    pub after: View,
    /// Value lost by the move: `before.value - after.value`.
    pub lost: f32,
    /// A mistake or a blunder: the move was not the engine's and lost more than the margin.
    pub kind: Option<Kind>,
}

impl MoveReview {
    /// The engine's move, where the move played was marked.
    pub fn best(&self) -> Option<Move> {
        self.kind.and(self.before.line.first().copied())
    }

    /// The move's PDN comment: `-0.12 (...) -> -0.48 (...)`, and for a mistake or a blunder
    /// `; mistake (0.37): best 11-16 -0.12 (...), line 11-16 ...`.
    pub fn comment(&self) -> String {
        let mut comment = format!("{} -> {}", self.before.text(), self.after.text());
        if let (Some(kind), Some(best)) = (self.kind, self.best()) {
            let line = self.before.line.iter().map(Move::to_string).collect::<Vec<_>>().join(" ");
            comment += &format!(
                "; {} ({:.2}): best {best} {}, line {line}",
                kind.word(),
                self.lost,
                self.before.text()
            );
        }
        comment
    }
}

/// A whole game as the engine saw it.
#[derive(Clone, Debug)]
pub struct Review {
    /// Every position of the game, the start first and the position after the last move last,
    /// for its side to move (a position searched again under relaxed draw rules, see
    /// [`Analyst::review`], keeps its second view).
    pub positions: Vec<View>,
    /// Every move.
    pub moves: Vec<MoveReview>,
    /// Each side's mistakes and blunders.
    pub tally: Tally,
}

impl Review {
    /// `pdn` with each move's comment, a summary before the first move (`ENGINE, margin M:
    /// TALLY`) and the `Annotator` tag naming `engine`; its other comments dropped.
    pub fn annotated(&self, pdn: &PdnGame, engine: &str, margin: f32) -> PdnGame {
        let mut out = PdnGame { comments: Vec::new(), ..pdn.clone() };
        out.comments.push((0, format!("{engine}, margin {margin}: {}", self.tally.text())));
        for (ply, review) in self.moves.iter().enumerate() {
            out.comments.push((ply + 1, review.comment()));
        }
        out.set_tag("Annotator", format!("checkers-zero analyse {engine}"));
        out
    }
}

/// Told how an analysis goes, and sets its pace.
pub trait Watch {
    /// Position `index` of the game (0 the start) is about to be searched, of `total` (the
    /// moves plus one). An error ends the analysis with it.
    fn searching(&mut self, _index: usize, _total: usize) -> Result<()> {
        Ok(())
    }

    /// Position `index` was searched: the engine's view of it, for its side to move. An error
    /// ends the analysis with it.
    fn searched(&mut self, _index: usize, _view: &View) -> Result<()> {
        Ok(())
    }
}

/// A watch that watches nothing.
impl Watch for () {}

/// How the games are analysed.
pub struct Analyst<'a> {
    /// A move (not the engine's) that loses more than this much value is a mistake; more than
    /// twice as much, a blunder.
    pub margin: f32,
    /// The game's number in its file, from 1, for errors.
    pub number: usize,
    /// Each position's search budget.
    pub budget: MoveBudget,
    /// The searches' control: a stop ends the current search at once (it still answers), a
    /// deadline the [`Watch`] sets ends it then.
    pub control: &'a SearchControl,
}

impl Analyst<'_> {
    /// Every position of `pdn` searched by `player` (a fresh one, or one that played the game's
    /// earlier moves): the views, each move's loss and mark, the tally. A game played on past a
    /// draw rule (another program's rules) is analysed on without that rule. An error names the
    /// game and the move.
    pub fn review(
        &self,
        pdn: &PdnGame,
        player: &mut dyn Player,
        watch: &mut dyn Watch,
    ) -> Result<Review> {
        let total = pdn.moves.len() + 1;
        let mut search = |game: &Game, index: usize| -> Result<View> {
            let mut searched = || -> Result<View> {
                watch.searching(index, total)?;
                let view = self.view(player, game)?;
                watch.searched(index, &view)?;
                Ok(view)
            };
            searched().with_context(|| self.at(pdn, index))
        };
        let mut game = Game::new(pdn.start, DrawRules::default());
        let mut positions = vec![search(&game, 0)?];
        let mut moves = Vec::with_capacity(pdn.moves.len());
        let mut tally = Tally::default();
        for (ply, &mv) in pdn.moves.iter().enumerate() {
            if let Some(Outcome::Draw(reason)) = game.outcome() {
                // A game played on past a draw rule: on without it, the position searched again.
                game = replay(pdn, ply, game.rules().without(reason));
                positions[ply] = search(&game, ply)?;
            }
            let mover = game.position().side_to_move();
            game.play(mv).map_err(|e| anyhow!("{}: {e}", self.at(pdn, ply)))?;
            let next = search(&game, ply + 1)?;
            let before = positions[ply].clone();
            let after = next.flipped();
            let lost = before.value - after.value;
            let engines = before.line.first() == Some(&mv);
            let kind = if engines || before.line.is_empty() { None } else { self.verdict(lost) };
            if let Some(kind) = kind {
                tally.count(mover, kind);
            }
            moves.push(MoveReview { mv, mover, before, after, lost, kind });
            positions.push(next);
        }
        Ok(Review { positions, moves, tally })
    }

    /// A loss of `lost` value as a mistake or a blunder, or neither.
    fn verdict(&self, lost: f32) -> Option<Kind> {
        match lost {
            l if l > 2.0 * self.margin => Some(Kind::Blunder),
            l if l > self.margin => Some(Kind::Mistake),
            _ => None,
        }
    }

    /// Where ply `ply` of `pdn` is, for errors: `game 3, move 12... 23-19` (or the position after
    /// the last move).
    fn at(&self, pdn: &PdnGame, ply: usize) -> String {
        let number = pdn.move_number(ply);
        let white = (pdn.start.side_to_move() == Color::White) == (ply % 2 == 0);
        let dots = if white { "..." } else { "." };
        match pdn.moves.get(ply) {
            Some(mv) => format!("game {}, move {number}{dots} {mv}", self.number),
            None => format!("game {}, the position after its last move", self.number),
        }
    }

    /// The engine's view of the position `game` has reached.
    fn view(&self, player: &mut dyn Player, game: &Game) -> Result<View> {
        let to_move = game.position().side_to_move();
        if let Some(outcome) = game.outcome() {
            return Ok(View::of_outcome(outcome, to_move));
        }
        let mut outlook = None;
        let mut report = |progress: &Progress| outlook = progress.outlook.or(outlook);
        let request =
            ThinkRequest { budget: self.budget, control: self.control, report: &mut report };
        let choice = player.think(game, request)?;
        let value = choice.value.ok_or_else(|| {
            anyhow!(
                "the engine gives no value: analysis needs one that searches (mcts or alphabeta)"
            )
        })?;
        let line = match choice.pv.first() {
            Some(&first) if first == choice.mv => choice.pv,
            _ => vec![choice.mv],
        };
        Ok(View { value, outlook, line })
    }
}

/// The first `plies` moves of `pdn` under `rules`.
fn replay(pdn: &PdnGame, plies: usize, rules: DrawRules) -> Game {
    let mut game = Game::new(pdn.start, rules);
    for &mv in &pdn.moves[..plies] {
        game.play_unchecked(mv);
    }
    game
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena::{Contestant, NetOptions};
    use draughts::read_pdn;

    fn analyse(text: &str) -> (PdnGame, Review) {
        let pdn = read_pdn(text).unwrap().remove(0);
        let entrant = crate::lone_player::load("alphabeta:2", &NetOptions::default()).unwrap();
        let mut player = entrant.player(0).unwrap();
        let control = SearchControl::new();
        let analyst = Analyst {
            margin: DEFAULT_MARGIN,
            number: 1,
            budget: MoveBudget::Own,
            control: &control,
        };
        let review = analyst.review(&pdn, player.as_mut(), &mut ()).unwrap();
        (review.annotated(&pdn, entrant.name(), DEFAULT_MARGIN), review)
    }

    #[test]
    fn a_game_played_on_past_a_draw_rule_is_analysed_on() {
        // The start comes back a third time after move 4: a draw by repetition, played on.
        let moves = "1. 1-6 32-27 2. 6-1 27-32 3. 1-6 32-27 4. 6-1 27-32 5. 1-6 *";
        let (game, review) = analyse(&format!("[FEN \"B:WK32:BK1\"]\n{moves}"));
        assert_eq!(game.comments.len(), 1 + 9);
        assert_eq!(review.tally, Tally::default());
        assert_eq!(review.positions.len(), 10);
        let comment = |ply: usize| game.comments[ply].1.as_str();
        assert_eq!(comment(8), "+0.02 -> +0.00 (W 0% D 100% L 0%)");
        // After the draw the game goes on under the rules without repetition: searched again.
        assert_eq!(comment(9), "+0.00 -> +0.02");
        assert_eq!(review.positions[8].value, 0.0);
        assert!(!review.positions[8].line.is_empty(), "searched again, with a line");
        assert!(
            comment(0).ends_with(": Black 0 mistakes, 0 blunders; White 0 mistakes, 0 blunders")
        );
        assert!(game.comments.iter().all(|(_, text)| !text.contains("-0.00")));
    }

    /// Watches positions and can stop after a number of them.
    struct Counting {
        searching: Vec<(usize, usize)>,
        searched: usize,
        stop_after: usize,
    }

    impl Watch for Counting {
        fn searching(&mut self, index: usize, total: usize) -> Result<()> {
            self.searching.push((index, total));
            Ok(())
        }

        fn searched(&mut self, _index: usize, _view: &View) -> Result<()> {
            self.searched += 1;
            anyhow::ensure!(self.searched < self.stop_after, "stopped by the watch");
            Ok(())
        }
    }

    #[test]
    fn the_watch_sees_every_position_and_can_end_the_analysis() {
        let pdn = read_pdn("1. 11-15 23-19 2. 8-11 22-17 *").unwrap().remove(0);
        let entrant = crate::lone_player::load("alphabeta:1", &NetOptions::default()).unwrap();
        let control = SearchControl::new();
        let analyst = Analyst {
            margin: DEFAULT_MARGIN,
            number: 2,
            budget: MoveBudget::Own,
            control: &control,
        };
        let mut watch = Counting { searching: Vec::new(), searched: 0, stop_after: 100 };
        let review = analyst.review(&pdn, entrant.player(0).unwrap().as_mut(), &mut watch).unwrap();
        assert_eq!(watch.searching, (0..5).map(|i| (i, 5)).collect::<Vec<_>>());
        assert_eq!(review.positions.len(), 5);
        assert_eq!(review.moves.len(), 4);
        let mut watch = Counting { searching: Vec::new(), searched: 0, stop_after: 3 };
        let err = analyst.review(&pdn, entrant.player(0).unwrap().as_mut(), &mut watch);
        let err = format!("{:#}", err.unwrap_err());
        assert!(err.contains("game 2, move 2. 8-11") && err.contains("stopped"), "{err}");
    }
}
