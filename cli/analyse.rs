//! `checkers-zero analyse GAMES.pdn`: an engine's view of every move of every game in a PDN file.
//!
//! Each position is searched (by the shipped net with MCTS unless `--player` names another
//! engine). Each move gets a comment with the mover's value (its expected result, -1 a loss to 1 a
//! win) and, from an MCTS engine, its chances of a win, a draw and a loss, before the move and
//! after it. A move other than the engine's that loses more than `--margin` of value is a mistake,
//! more than twice the margin a blunder; its comment names the engine's move and line. A comment
//! before the first move counts each side's mistakes and blunders, and the `Annotator` tag names
//! the engine. The games go back out as PDN (to `--out`, else standard output); standard error
//! gets a line a game (and a bar over the positions on a terminal).

use crate::lone_player;
use crate::net_support::NetArgs;
use crate::shipped_net;
use anyhow::{anyhow, Context, Result};
use arena::{Contestant, Player};
use clap::Args;
use draughts::{read_pdn, write_pdn, Color, DrawRules, Game, Move, Outcome, PdnGame};
use search::{MoveBudget, NetLoader, Outlook, Progress, SearchControl, ThinkRequest};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// The default `--margin`: a quarter of the way from a draw to a win.
pub const DEFAULT_MARGIN: f32 = 0.25;

/// `checkers-zero analyse`.
#[derive(Args)]
pub struct AnalyseArgs {
    /// The PDN file of the games.
    pdn: PathBuf,
    /// The engine, written as for `match`; it must search (mcts or alphabeta). Default: the
    /// shipped net, nets/default.safetensors, with MCTS.
    #[arg(long, value_name = "PLAYER")]
    player: Option<String>,
    /// A move (not the engine's) that loses more than this much of the mover's value (-1 a loss
    /// to 1 a win) is a mistake; more than twice as much, a blunder.
    #[arg(long, default_value_t = DEFAULT_MARGIN)]
    margin: f32,
    /// Where to write the annotated games (default: standard output).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    #[command(flatten)]
    net: NetArgs,
    /// Seed of the engine's randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

impl AnalyseArgs {
    /// Whether the engine is a net that needs libtorch (the shipped net runs natively).
    pub fn needs_net(&self) -> bool {
        self.player.as_deref().is_some_and(crate::net_support::needs_libtorch)
    }
}

/// Analyses every game of the file; `nets` loads a net engine's net.
pub fn run(args: AnalyseArgs, nets: Option<Arc<dyn NetLoader>>) -> Result<()> {
    anyhow::ensure!(
        args.margin > 0.0 && args.margin < 2.0,
        "--margin {}: must be in (0, 2), a share of the value's range from -1 to 1",
        args.margin
    );
    let shown = args.pdn.display();
    let text = std::fs::read_to_string(&args.pdn).with_context(|| format!("reading {shown}"))?;
    let games = read_pdn(&text).with_context(|| format!("reading {shown}"))?;
    anyhow::ensure!(!games.is_empty(), "{shown}: no games in it");
    let spec = shipped_net::or_shipped(args.player)?;
    let entrant = lone_player::load(&spec, &args.net.options(nets)?)?;
    let positions = games.iter().map(|game| game.moves.len() as u64 + 1).sum();
    let bar = progress::bar(positions, "positions");
    let mut annotated = Vec::with_capacity(games.len());
    for (index, game) in games.iter().enumerate() {
        let number = index + 1;
        let mut player = entrant.player(args.seed)?;
        let analysis = Analysis { engine: entrant.name(), margin: args.margin, number };
        let (game, tally) = analysis.game(game, player.as_mut(), &mut || bar.inc(1))?;
        bar.suspend(|| eprintln!("game {number}/{}: {}", games.len(), tally.text()));
        annotated.push(game);
    }
    bar.finish_and_clear();
    let text = write_pdn(&annotated);
    match &args.out {
        Some(out) => {
            std::fs::write(out, text).with_context(|| format!("writing {}", out.display()))?;
        }
        None => std::io::stdout().lock().write_all(text.as_bytes()).context("standard output")?,
    }
    Ok(())
}

/// How one game is analysed.
struct Analysis<'a> {
    /// The engine's name, for the `Annotator` tag and the summary.
    engine: &'a str,
    margin: f32,
    /// The game's number in the file, from 1, for errors.
    number: usize,
}

impl Analysis<'_> {
    /// `pdn` with a comment on each move and a summary before the first, and each side's count
    /// of mistakes and blunders; `searched` is called after each position's search.
    fn game(
        &self,
        pdn: &PdnGame,
        player: &mut dyn Player,
        searched: &mut dyn FnMut(),
    ) -> Result<(PdnGame, Tally)> {
        let mut out = PdnGame { comments: Vec::new(), ..pdn.clone() };
        let mut tally = Tally::default();
        let mut game = Game::new(pdn.start, DrawRules::default());
        let mut before = view(player, &game).with_context(|| self.at(pdn, 0))?;
        searched();
        for (ply, &mv) in pdn.moves.iter().enumerate() {
            if let Some(Outcome::Draw(reason)) = game.outcome() {
                // A game played on past a draw rule (another program's rules): on without it.
                game = replay(pdn, ply, game.rules().without(reason));
                before = view(player, &game).with_context(|| self.at(pdn, ply))?;
            }
            let mover = game.position().side_to_move();
            game.play(mv).map_err(|e| anyhow!("{}: {e}", self.at(pdn, ply)))?;
            let next = view(player, &game).with_context(|| self.at(pdn, ply + 1))?;
            searched();
            let after = next.flipped();
            let lost = before.value - after.value;
            let mut comment = format!("{} -> {}", before.text(), after.text());
            let best = before.line.first().copied();
            if let (Some(best), Some(kind)) = (best.filter(|&b| b != mv), self.verdict(lost)) {
                tally.count(mover, kind);
                let line = before.line.iter().map(Move::to_string).collect::<Vec<_>>().join(" ");
                comment += &format!(
                    "; {} ({lost:.2}): best {best} {}, line {line}",
                    kind.word(),
                    before.text()
                );
            }
            out.comments.push((ply + 1, comment));
            before = next;
        }
        out.set_tag("Annotator", format!("checkers-zero analyse {}", self.engine));
        let summary = format!("{}, margin {}: {}", self.engine, self.margin, tally.text());
        out.comments.insert(0, (0, summary));
        Ok((out, tally))
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
}

/// The first `plies` moves of `pdn` under `rules`.
fn replay(pdn: &PdnGame, plies: usize, rules: DrawRules) -> Game {
    let mut game = Game::new(pdn.start, rules);
    for &mv in &pdn.moves[..plies] {
        game.play_unchecked(mv);
    }
    game
}

/// What the engine thinks of a position, for its side to move.
#[derive(Clone, Debug)]
struct View {
    /// The expected result, from -1 (a loss) to 1 (a win).
    value: f32,
    /// The chances of a win, a draw and a loss, when the engine gives them.
    outlook: Option<Outlook>,
    /// The engine's move and the line it expects after it; empty where the game is over.
    line: Vec<Move>,
}

impl View {
    /// The view of a position where the game is over, for `to_move`.
    fn of_outcome(outcome: Outcome, to_move: Color) -> View {
        let value = f32::from(outcome.score_for(to_move));
        View { value, outlook: Some(Outlook::of_value(value, 1.0 - value.abs())), line: Vec::new() }
    }

    /// The same view for the other side.
    fn flipped(&self) -> View {
        let outlook = self.outlook.map(|o| Outlook { win: o.loss, draw: o.draw, loss: o.win });
        View { value: -self.value, outlook, line: Vec::new() }
    }

    /// `+0.12 (W 41% D 45% L 14%)`, the chances when known.
    fn text(&self) -> String {
        let percent = |p: f32| (100.0 * p).round();
        let chances = self.outlook.map_or_else(String::new, |o| {
            format!(" (W {}% D {}% L {}%)", percent(o.win), percent(o.draw), percent(o.loss))
        });
        // Rounded first, and + 0.0 turns -0 into 0: never `-0.00`.
        format!("{:+.2}{chances}", (100.0 * self.value).round() / 100.0 + 0.0)
    }
}

/// The engine's view of the position `game` has reached.
fn view(player: &mut dyn Player, game: &Game) -> Result<View> {
    let to_move = game.position().side_to_move();
    if let Some(outcome) = game.outcome() {
        return Ok(View::of_outcome(outcome, to_move));
    }
    let control = SearchControl::new();
    let mut outlook = None;
    let mut report = |progress: &Progress| outlook = progress.outlook.or(outlook);
    let request = ThinkRequest { budget: MoveBudget::Own, control: &control, report: &mut report };
    let choice = player.think(game, request)?;
    let value = choice.value.ok_or_else(|| {
        anyhow!("the engine gives no value: analyse needs one that searches (mcts or alphabeta)")
    })?;
    let line = match choice.pv.first() {
        Some(&first) if first == choice.mv => choice.pv,
        _ => vec![choice.mv],
    };
    Ok(View { value, outlook, line })
}

/// A move that lost too much.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Mistake,
    Blunder,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Mistake => "mistake",
            Kind::Blunder => "blunder",
        }
    }
}

/// Each side's mistakes and blunders, Black's first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tally {
    mistakes: [usize; 2],
    blunders: [usize; 2],
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
    fn text(&self) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use arena::NetOptions;

    fn analyse(text: &str) -> (PdnGame, Tally) {
        let pdn = read_pdn(text).unwrap().remove(0);
        let entrant = lone_player::load("alphabeta:2", &NetOptions::default()).unwrap();
        let mut player = entrant.player(0).unwrap();
        let analysis = Analysis { engine: entrant.name(), margin: DEFAULT_MARGIN, number: 1 };
        analysis.game(&pdn, player.as_mut(), &mut || ()).unwrap()
    }

    #[test]
    fn a_game_played_on_past_a_draw_rule_is_analysed_on() {
        // The start comes back a third time after move 4: a draw by repetition, played on.
        let moves = "1. 1-6 32-27 2. 6-1 27-32 3. 1-6 32-27 4. 6-1 27-32 5. 1-6 *";
        let (game, tally) = analyse(&format!("[FEN \"B:WK32:BK1\"]\n{moves}"));
        assert_eq!(game.comments.len(), 1 + 9);
        assert_eq!(tally, Tally::default());
        let comment = |ply: usize| game.comments[ply].1.as_str();
        assert_eq!(comment(8), "+0.02 -> +0.00 (W 0% D 100% L 0%)");
        // After the draw the game goes on under the rules without repetition: searched again.
        assert_eq!(comment(9), "+0.00 -> +0.02");
        assert!(
            comment(0).ends_with(": Black 0 mistakes, 0 blunders; White 0 mistakes, 0 blunders")
        );
        assert!(game.comments.iter().all(|(_, text)| !text.contains("-0.00")));
    }
}
