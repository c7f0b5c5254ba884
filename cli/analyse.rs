//! `checkers-zero analyse GAMES.pdn`: an engine's view of every move of every game in a PDN file.
//!
//! Each position is searched (by the shipped net with MCTS unless `--player` names another
//! engine). Each move gets a comment with the mover's value (its expected result, -1 a loss to 1 a
//! win) and, from an MCTS engine, its chances of a win, a draw and a loss, before the move and
//! after it. A move other than the engine's that loses more than `--margin` of value is a mistake,
//! more than twice the margin a blunder; its comment names the engine's move and line. A comment
//! before the first move counts each side's mistakes and blunders, and the `Annotator` tag names
//! the engine. The games go back out as PDN (to `--out`, else standard output); standard error
//! gets a line a game (and a bar over the positions on a terminal). The analysis itself is
//! [`crate::analysis`]'s, which the browser board's analysis view shares.

use crate::analysis::{Analyst, View, Watch, DEFAULT_MARGIN};
use crate::lone_player;
use crate::net_support::NetArgs;
use crate::shipped_net;
use anyhow::{Context, Result};
use arena::Contestant;
use clap::Args;
use draughts::{read_pdn, write_pdn};
use search::{MoveBudget, NetLoader, SearchControl};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// The largest PDN file read (tens of thousands of games, each searched position by position);
/// a bigger one, or one that is not a regular file, is refused by name.
const MAX_PDN_BYTES: u64 = 16 << 20;

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
    let text = support::read_text_capped(&args.pdn, MAX_PDN_BYTES, "a PDN file")
        .with_context(|| format!("reading {shown}"))?;
    let games = read_pdn(&text).with_context(|| format!("reading {shown}"))?;
    anyhow::ensure!(!games.is_empty(), "{shown}: no games in it");
    let spec = shipped_net::or_shipped(args.player)?;
    let entrant = lone_player::load(&spec, &args.net.options(nets)?)?;
    let positions = games.iter().map(|game| game.moves.len() as u64 + 1).sum();
    let bar = progress::bar(positions, "positions");
    let control = SearchControl::new();
    let mut annotated = Vec::with_capacity(games.len());
    for (index, game) in games.iter().enumerate() {
        let number = index + 1;
        let mut player = entrant.player(args.seed)?;
        let analyst =
            Analyst { margin: args.margin, number, budget: MoveBudget::Own, control: &control };
        let review = analyst.review(game, player.as_mut(), &mut OnSearched(|| bar.inc(1)))?;
        bar.suspend(|| eprintln!("game {number}/{}: {}", games.len(), review.tally.text()));
        annotated.push(review.annotated(game, entrant.name(), args.margin));
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

/// Calls its function after each position's search (to move the bar).
struct OnSearched<F>(F);

impl<F: FnMut()> Watch for OnSearched<F> {
    fn searched(&mut self, _index: usize, _view: &View) -> Result<()> {
        (self.0)();
        Ok(())
    }
}
