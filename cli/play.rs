//! `checkers-zero play`: a person plays against a net or a built-in engine in the terminal, typing
//! moves in PDN (`11-15`, `15x24x31`, or `15x31` when that names one capture), with the board and
//! its square numbers drawn after every move. At the prompt: a move, `moves`, `undo`, `fen`, `help`
//! or `quit`; end of input (Ctrl-D) ends the session too.
//!
//! The game loop ([`play_game`]) reads any `BufRead` and writes any `Write`, so tests script it.

use crate::lone_player;
use crate::net_support::NetArgs;
use crate::shipped_net;
use anyhow::{Context, Result};
use arena::{Contestant, Player};
use clap::Args;
use draughts::{Color, DrawReason, DrawRules, Game, Move, Outcome, Position, WinReason};
use search::NetLoader;
use std::io::{BufRead, Write};
use std::sync::Arc;

/// `checkers-zero play`.
#[derive(Args)]
pub struct PlayArgs {
    /// Play a net with MCTS: a checkpoint file or a run directory (its best net). Shorthand for
    /// `--opponent mcts:CKPT`.
    #[arg(long, value_name = "CKPT", conflicts_with = "opponent")]
    net: Option<String>,
    /// The opponent, written as for `match`: random, alphabeta:DEPTH, mcts:CKPT[:PLAYOUTS] or
    /// policy:CKPT, or a level of the shipped net from level:1 (weakest) to level:8 (default: the
    /// shipped net, nets/default.safetensors, with MCTS).
    #[arg(long, value_name = "PLAYER")]
    opponent: Option<String>,
    /// The colour you play; Black moves first.
    #[arg(long, default_value = "black", value_parser = parse_color)]
    color: Color,
    /// Start from this position in draughts FEN, e.g. `B:W18,K26:B14,22` (default: the initial position).
    #[arg(long)]
    fen: Option<String>,
    #[command(flatten)]
    thinking: NetArgs,
    /// Seed of the opponent's randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

fn parse_color(text: &str) -> Result<Color, String> {
    match text.to_ascii_lowercase().as_str() {
        "black" | "b" => Ok(Color::Black),
        "white" | "w" => Ok(Color::White),
        _ => Err(format!("`{text}` is not a colour; expected black or white")),
    }
}

impl PlayArgs {
    /// The opponent named, as a spec; `None` for the shipped net.
    fn spec(&self) -> Option<String> {
        match (&self.net, &self.opponent) {
            (Some(net), _) => Some(format!("mcts:{net}")),
            (None, opponent) => opponent.clone(),
        }
    }

    /// Whether the opponent is a net that needs libtorch (the shipped net runs natively).
    pub fn needs_net(&self) -> bool {
        self.spec().is_some_and(|spec| crate::net_support::needs_libtorch(&spec))
    }
}

/// Plays one game in the terminal; `nets` loads a net opponent's net.
pub fn run(args: PlayArgs, nets: Option<Arc<dyn NetLoader>>) -> Result<()> {
    let spec = shipped_net::or_shipped(args.spec())?;
    let position = match &args.fen {
        Some(fen) => Position::from_fen(fen).context("--fen")?,
        None => Position::start(),
    };
    let entrant = lone_player::load(&spec, &args.thinking.options(nets)?)?;
    let mut engine = entrant.player(args.seed)?;
    let game = Game::new(position, DrawRules::default());
    play_game(
        game,
        args.color,
        engine.as_mut(),
        entrant.name(),
        std::io::stdin().lock(),
        std::io::stdout().lock(),
    )?;
    Ok(())
}

const HELP: &str = "\
Type a move by its squares (the numbers beside the board): 11-15, a capture 15x24 or its whole
path 15x24x31 (or just 15x31 when only one capture goes there). Commands:
  moves   list the legal moves
  undo    take back your last move and the reply to it
  fen     print the position in FEN
  help    this text
  quit    leave the game (so does Ctrl-D)";

/// Plays `game` with the person at `input`/`out` as `you` and `engine` as the other side, until
/// the game ends (its outcome) or the person leaves (`None`).
pub fn play_game(
    mut game: Game,
    you: Color,
    engine: &mut dyn Player,
    engine_name: &str,
    mut input: impl BufRead,
    mut out: impl Write,
) -> Result<Option<Outcome>> {
    writeln!(out, "You play {you:?} against {engine_name}. Type a move such as 11-15, or `help`.")?;
    let mut changed = true;
    loop {
        if changed {
            draw(&mut out, &game, you, engine_name)?;
            if let Some(outcome) = game.outcome() {
                writeln!(out, "{}", result_text(outcome, game.rules(), you))?;
                return Ok(Some(outcome));
            }
        }
        if game.position().side_to_move() != you {
            engine_move(&mut game, engine, engine_name, &mut out)?;
            changed = true;
            continue;
        }
        write!(out, "your move> ")?;
        out.flush()?;
        let line = match support::read_line_capped(&mut input, MAX_LINE_BYTES)? {
            None => {
                writeln!(out, "\nEnd of input: game left unfinished.")?;
                return Ok(None);
            }
            Some(Err(bad)) => {
                writeln!(out, "{bad}: not a move or a command. Try again (`help` lists them).")?;
                continue;
            }
            Some(Ok(line)) => line,
        };
        match obey(line.trim(), &mut game, &mut out)? {
            Typed::Quit => return Ok(None),
            typed => changed = matches!(typed, Typed::Changed),
        }
    }
}

/// The longest line taken at the prompt (a move is at most a few dozen characters); a longer one
/// is refused and never held whole.
const MAX_LINE_BYTES: usize = 4096;
/// Characters of a message that quotes what was typed.
const MESSAGE_CHARS: usize = 300;

/// What a line typed at the prompt did.
enum Typed {
    /// Nothing on the board changed (a command, a bad move, an empty line).
    Nothing,
    /// A move was played or taken back.
    Changed,
    Quit,
}

/// Carries out one line typed at the prompt: a command or a move.
fn obey(text: &str, game: &mut Game, out: &mut impl Write) -> Result<Typed> {
    match text {
        "" => {}
        "quit" | "exit" => {
            writeln!(out, "Game left unfinished.")?;
            return Ok(Typed::Quit);
        }
        "help" | "?" => writeln!(out, "{HELP}")?,
        "moves" => {
            let mut legal = game.position().legal_moves().to_vec();
            legal.sort_by_key(|mv| mv.squares().collect::<Vec<_>>());
            writeln!(out, "Legal moves: {}", move_list(legal.into_iter()))?;
        }
        "fen" => writeln!(out, "{}", game.position().to_fen())?,
        "undo" if game.ply() < 2 => writeln!(out, "Nothing to take back.")?,
        "undo" => {
            *game = take_back(game, 2);
            writeln!(out, "Took back two moves.")?;
            return Ok(Typed::Changed);
        }
        text => match game.position().parse_move(text) {
            Ok(mv) => {
                game.play_unchecked(mv);
                writeln!(out, "You play {mv}")?;
                return Ok(Typed::Changed);
            }
            Err(err) => writeln!(
                out,
                "{}\nTry again (`moves` lists the legal moves, `help` the commands).",
                support::escape_and_cut(&err.to_string(), MESSAGE_CHARS)
            )?,
        },
    }
    Ok(Typed::Nothing)
}

/// The engine's move, played and reported with its value and principal variation when it has them.
fn engine_move(
    game: &mut Game,
    engine: &mut dyn Player,
    name: &str,
    out: &mut impl Write,
) -> Result<()> {
    out.flush()?;
    let side = game.position().side_to_move();
    let choice =
        engine.choose(game).with_context(|| format!("{name} in {}", game.position().to_fen()))?;
    game.play(choice.mv).with_context(|| format!("{name} chose an illegal move"))?;
    write!(out, "{side:?} ({name}) plays {}", choice.mv)?;
    if let Some(value) = choice.value {
        write!(out, "  value {value:+.2} for {side:?}")?;
    }
    if !choice.pv.is_empty() {
        write!(out, "  pv {}", move_list(choice.pv.iter().copied()))?;
    }
    writeln!(out)?;
    Ok(())
}

/// The game with its last `plies` moves taken back.
pub(crate) fn take_back(game: &Game, plies: usize) -> Game {
    let mut earlier = Game::new(*game.start(), game.rules());
    for &mv in &game.moves()[..game.ply().saturating_sub(plies)] {
        earlier.play_unchecked(mv);
    }
    earlier
}

fn move_list(moves: impl Iterator<Item = Move>) -> String {
    moves.map(|mv| mv.to_string()).collect::<Vec<_>>().join(" ")
}

/// The board seen from `you`'s side, and whose turn it is.
fn draw(out: &mut impl Write, game: &Game, you: Color, engine_name: &str) -> Result<()> {
    let side = game.position().side_to_move();
    let who = if side == you { "you".to_string() } else { engine_name.to_string() };
    writeln!(
        out,
        "\n{}\n{side:?} to move ({who}), move {}\n",
        game.position().diagram(you),
        game.ply() / 2 + 1
    )?;
    Ok(())
}

/// How the game ended, in words, from `you`'s side.
fn result_text(outcome: Outcome, rules: DrawRules, you: Color) -> String {
    match outcome {
        Outcome::Win { winner, reason } => {
            let loser = winner.other();
            let why = match reason {
                WinReason::NoPieces => format!("{loser:?} has no pieces left"),
                WinReason::NoMoves => format!("{loser:?} has no legal move"),
            };
            let verdict = if winner == you { "you win" } else { "you lose" };
            format!("{winner:?} wins: {why}. Game over, {verdict}.")
        }
        Outcome::Draw(reason) => {
            let why = match reason {
                DrawReason::Repetition => {
                    format!("the same position came up {} times", rules.repetitions)
                }
                DrawReason::NoProgress => format!(
                    "{} moves each without a capture or a man's move",
                    rules.no_progress_moves
                ),
                DrawReason::PlyCap => format!("the game reached {} plies", rules.max_plies),
            };
            format!("Draw: {why}. Game over.")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena::NetOptions;

    /// Plays `input` against `opponent` from `fen` as `you`; the outcome and everything written.
    fn script(opponent: &str, fen: &str, you: Color, input: &str) -> (Option<Outcome>, String) {
        let entrant = lone_player::load(opponent, &NetOptions::default()).unwrap();
        let mut engine = entrant.player(7).unwrap();
        let game = Game::new(Position::from_fen(fen).unwrap(), DrawRules::default());
        let mut out = Vec::new();
        let outcome =
            play_game(game, you, engine.as_mut(), entrant.name(), input.as_bytes(), &mut out)
                .unwrap();
        (outcome, String::from_utf8(out).unwrap())
    }

    fn prompts(out: &str) -> usize {
        out.matches("your move> ").count()
    }

    #[test]
    fn a_whole_game_against_random_with_bad_input_on_the_way() {
        // Black 9 against White 21: after 9-14 White's only move is 21-17, and 14x21 takes it.
        let (outcome, out) =
            script("random", "B:W21:B9", Color::Black, "9-18\nhello\n\n9-14\n14x21\n");
        assert_eq!(
            outcome,
            Some(Outcome::Win { winner: Color::Black, reason: WinReason::NoPieces }),
            "{out}"
        );
        assert!(out.contains("\"9-18\" is not a legal move here; legal: 9-13, 9-14"), "{out}");
        assert!(out.contains("\"hello\" is not move text"), "{out}");
        assert!(out.contains("You play 9-14\n"), "{out}");
        assert!(out.contains("White (random) plays 21-17\n"), "{out}");
        assert!(out.contains("You play 14x21\n"), "{out}");
        assert!(
            out.trim_end().ends_with("Black wins: White has no pieces left. Game over, you win."),
            "{out}"
        );
        assert_eq!(prompts(&out), 5, "one prompt per line read:\n{out}");
    }

    /// `play` echoed a 20 MB bad line whole, and a terminal escape as is.
    #[test]
    fn a_huge_or_strange_line_is_answered_briefly_and_the_game_goes_on() {
        let input = format!("{}\n9-1\u{1b}[2J\nquit\n", "1".repeat(20 << 20));
        let (outcome, out) = script("random", "B:W21:B9", Color::Black, &input);
        assert_eq!(outcome, None);
        assert!(out.len() < 10_000, "{}", &out[..10_000.min(out.len())]);
        assert!(out.contains("a line of 20971520 bytes, more than the 4096-byte limit"), "{out}");
        assert!(out.contains("9-1\\u{1b}[2J") && !out.contains('\u{1b}'), "{out}");
        assert_eq!(prompts(&out), 3, "{out}");
    }

    #[test]
    fn an_ambiguous_capture_lists_the_paths_and_asks_again() {
        let (outcome, out) =
            script("random", "W:WK7:B10,11,18,19", Color::White, "7x7\n7x16x23x7\n");
        assert_eq!(
            outcome,
            Some(Outcome::Win { winner: Color::White, reason: WinReason::NoPieces }),
            "{out}"
        );
        assert!(out.contains("\"7x7\" is ambiguous; it may be any of"), "{out}");
        assert!(out.contains("You play 7x16x23x14x7\n"), "{out}");
        assert_eq!(prompts(&out), 2, "{out}");
    }

    #[test]
    fn undo_takes_back_a_move_and_its_reply() {
        let start = Position::start().to_fen();
        let (outcome, out) =
            script("alphabeta:1", &start, Color::Black, "11-15\nfen\nundo\nfen\nundo\nquit\n");
        assert_eq!(outcome, None);
        assert!(out.contains("White (alphabeta:1) plays "), "{out}");
        let fens: Vec<&str> =
            out.lines().filter(|l| l.starts_with("your move> ") && l.contains(':')).collect();
        assert_eq!(fens.len(), 2, "{out}");
        assert_ne!(fens[0], format!("your move> {start}"), "{out}");
        assert_eq!(fens[1], format!("your move> {start}"), "{out}");
        assert!(
            out.contains("Took back two moves.") && out.contains("Nothing to take back."),
            "{out}"
        );
        assert!(out.trim_end().ends_with("Game left unfinished."), "{out}");
    }

    #[test]
    fn end_of_input_ends_the_session_cleanly() {
        let (outcome, out) =
            script("random", &Position::start().to_fen(), Color::Black, "moves\nhelp\n");
        assert_eq!(outcome, None);
        assert!(out.contains("Legal moves: 9-13 9-14 10-14 10-15 11-15 11-16 12-16"), "{out}");
        assert!(out.contains("undo    take back"), "{out}");
        assert!(out.trim_end().ends_with("End of input: game left unfinished."), "{out}");
        assert_eq!(prompts(&out), 3, "{out}");
    }

    #[test]
    fn the_engine_opens_when_you_play_white() {
        let (_, out) = script("alphabeta:1", &Position::start().to_fen(), Color::White, "");
        let engine = out.find("Black (alphabeta:1) plays ").expect(&out);
        assert!(out.find("your move> ").expect(&out) > engine, "{out}");
        assert!(out.contains("White to move (you), move 1"), "{out}");
    }
}
