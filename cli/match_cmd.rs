//! `checkers-zero match A B`: two players over the 3-move ballots, each ballot twice with colours
//! swapped, games in parallel; progress per game and a final table. Each game is saved as it
//! finishes: its PDN to the games file, its result record appended to the results file of each run
//! directory involved (and `--record FILE`). With `--egdb DIR` a game ends at the first position
//! the endgame tables cover, with their result (`Termination "endgame_tables"`). With `--resume`,
//! the games already in the `--record` file (the same players, ballot and colours) count as
//! played, so an interrupted match goes on where it stopped. With `--sprt ELO0,ELO1[,ALPHA,BETA]`
//! the match stops as soon as the test decides (`--games` is then the most it plays). With
//! `--clock BASE+INC` both sides play under a game clock, and a side out of time loses
//! (`Termination "time"`). Ctrl-C or SIGTERM starts no further game: the games in flight finish
//! and are saved, and the table of the games played follows (a second one exits at once).

use crate::net_support::{needs_libtorch, NetArgs};
use anyhow::{Context, Result};
use arena::{
    black_points, read_deck, run_fixtures_until, run_results_file, schedule, standard_deck,
    Contestant, Entrant, Fixture, GameClock, MatchConfig, PlayedGame, PlayerSpec, ResultRecord,
    SprtConfig, SprtState, Tally,
};
use clap::Args;
use draughts::DrawRules;
use search::NetLoader;
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `checkers-zero match`.
#[derive(Args)]
pub struct MatchArgs {
    /// Player A: random, alphabeta:DEPTH, alphabeta:SECONDSs, mcts:CHECKPOINT[:PLAYOUTS][,KEY=VALUE...]
    /// or policy:CHECKPOINT (CHECKPOINT: a checkpoint file, or a run directory for its best net;
    /// KEY: c_puct, fpu_reduction, leaves_per_batch, solver, pass_forced, policy_temperature or
    /// draw_penalty, changing the player's search); an alphabeta player followed by ,net=CHECKPOINT is the
    /// full engine with the net's value at its quiet leaves, and ,KEY=VALUE (a setting of
    /// docs/alphabeta.md's table, e.g. reductions=0; a wrong key's error lists them) changes its
    /// search.
    a: String,
    /// Player B, written like A.
    b: String,
    /// Games to play, rounded up to even (default: every ballot twice); with --sprt, the most.
    #[arg(long)]
    games: Option<usize>,
    /// Stop as soon as a sequential probability ratio test decides between "A is ELO0 stronger"
    /// (H0) and "A is ELO1 stronger" (H1), with error rates ALPHA and BETA (default 0.05 each).
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]", allow_hyphen_values = true)]
    sprt: Option<SprtConfig>,
    /// The ballot deck (default: the shipped ACF 3-move deck).
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    #[command(flatten)]
    net: NetArgs,
    /// Play under a game clock: BASE seconds for each side, INC added before each of its moves
    /// (e.g. 60+0.5). Every player thinks within each move's budget of it, as an engine protocol
    /// gives it (a share of the clock as its target, three at most, which the alpha-beta
    /// engine's `time_management=1` decides within), and a side out of time loses. Players that name
    /// no budget are named by it (`alphabeta:60+0.5`).
    #[arg(long, value_name = "BASE+INC", conflicts_with_all = ["time", "playouts"])]
    clock: Option<GameClock>,
    /// Where to write the games as PDN (default: match-<unix time>.pdn in the first run directory's
    /// games/ folder; without a run directory, the games are not saved as PDN).
    #[arg(long, value_name = "FILE")]
    pdn: Option<PathBuf>,
    /// Also append each game's result record (JSON lines) to this file.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Count the games already in the --record file (same players, ballot and colours) as played
    /// and play only the others: an interrupted match goes on where it stopped.
    #[arg(long, requires = "record")]
    resume: bool,
    /// Games played at once (default: 128 between nets with fixed playouts, else one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Seed for the ballot sample and the players' randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

impl MatchArgs {
    /// Whether a player is a net that needs libtorch.
    pub fn needs_net(&self) -> bool {
        needs_libtorch(&self.a) || needs_libtorch(&self.b)
    }
}

/// Plays the match; `nets` loads the net players' nets.
pub fn run(args: MatchArgs, nets: Option<Arc<dyn NetLoader>>) -> Result<()> {
    let mut options = args.net.options(nets)?;
    options.clock = args.clock;
    let mut a = Entrant::load(&crate::levels::spec(&args.a)?.parse::<PlayerSpec>()?, &options)?;
    let mut b = Entrant::load(&crate::levels::spec(&args.b)?.parse::<PlayerSpec>()?, &options)?;
    // The games go into each player's run: there a net of another run is named by its run too.
    let runs: Vec<PathBuf> =
        [a.run_dir(), b.run_dir()].into_iter().flatten().map(Into::into).collect();
    for run in &runs {
        a.qualify_outside(run);
        b.qualify_outside(run);
    }
    Entrant::distinguish(&mut a, &mut b)?;
    if let Some(nets) = &options.nets {
        nets.set_cpu_threads(threads_per_net(&a, &b));
    }
    let deck = match &args.openings {
        Some(path) => read_deck(path)?,
        None => standard_deck()?,
    };
    let games = args.games.unwrap_or(2 * deck.len());
    anyhow::ensure!(games > 0, "--games 0: nothing to play");
    let fixtures = schedule(&deck, games, args.seed);
    let total = fixtures.len();
    let mut tally = Tally::default();
    let fixtures = match (args.resume, &args.record) {
        (true, Some(record)) => {
            let (left, done) = unplayed(fixtures, &a, &b, record)?;
            println!(
                "resuming: {} of the {total} games are in {} (A +{} ={} -{})",
                total - left.len(),
                record.display(),
                done.wins,
                done.draws,
                done.losses
            );
            tally = done;
            left
        }
        _ => fixtures,
    };
    let pdn_file = args.pdn.clone().or_else(|| default_pdn_file(&a, &b));
    let mut sink = Sink::open(
        pdn_file.as_deref(),
        record_files(&a, &b, args.record.as_deref())?,
        format!("{} vs {}", a.name(), b.name()),
        args.resume,
    )?;
    println!(
        "{} (A) vs {} (B): {} games from {} ballots",
        a.name(),
        b.name(),
        fixtures.len(),
        deck.len()
    );

    let decided = |tally: &Tally| {
        args.sprt.as_ref().is_some_and(|sprt| sprt.state(tally) != SprtState::Continue)
    };
    let fixtures = if decided(&tally) { Vec::new() } else { fixtures };
    let clock = Instant::now();
    let mut failure = None;
    let config = MatchConfig {
        rules: DrawRules::default(),
        seed: args.seed,
        threads: args.threads,
        tables: options.egdb.clone(),
        clock: args.clock,
    };
    progress::interrupt::install();
    let stop_starting = progress::interrupt::requested;
    run_fixtures_until(&a, &b, &fixtures, config, &stop_starting, |game| {
        tally.add(game.score_of_a());
        println!("{}", progress_line(game, &tally, total));
        match sink.save(game) {
            Ok(()) if decided(&tally) => ControlFlow::Break(()),
            Ok(()) => ControlFlow::Continue(()),
            Err(error) => {
                failure = Some(error);
                ControlFlow::Break(())
            }
        }
    })?;
    if let Some(error) = failure {
        return Err(error);
    }
    print_table(&a, &b, &tally, clock.elapsed());
    if let Some(sprt) = &args.sprt {
        println!("{}", sprt.verdict(&tally));
    }
    let played = tally.games() as usize;
    if progress::interrupt::requested() && !decided(&tally) && played < total {
        println!("{}", interrupted_line(played, total, args.record.as_deref()));
    }
    match &pdn_file {
        Some(file) => println!("games: {}", file.display()),
        None => println!("games: not saved as PDN (no run directory; give --pdn FILE)"),
    }
    for file in &sink.record_files {
        println!("results: {}", file.display());
    }
    Ok(())
}

/// The fixtures whose game is not yet in the results file `record`, and A's tally over those that
/// are: a fixture's game is its ballot played with the same players in the same colours. A ballot
/// and colour the schedule holds k times takes the first k such records; further ones are ignored.
fn unplayed(
    fixtures: Vec<Fixture>,
    a: &Entrant,
    b: &Entrant,
    record: &Path,
) -> Result<(Vec<Fixture>, Tally)> {
    let records = rundata::read_json_lines::<ResultRecord>(record)?.warned();
    // A match longer than two games a ballot plays a ballot and colour more than once, so each key
    // holds its results in the order they were played and each fixture takes the next one.
    let mut played: HashMap<_, VecDeque<_>> = HashMap::new();
    for r in records {
        played.entry((r.ballot, r.black, r.white)).or_default().push_back(r.result);
    }
    let mut tally = Tally::default();
    let mut left = Vec::new();
    for fixture in fixtures {
        let (black, white) = if fixture.a_is_black { (a, b) } else { (b, a) };
        let key = (fixture.ballot.name.clone(), black.name().to_string(), white.name().to_string());
        match played.get_mut(&key).and_then(VecDeque::pop_front).and_then(black_points) {
            Some(black_points) => {
                tally.add(if fixture.a_is_black { black_points } else { 1.0 - black_points })
            }
            None => left.push(fixture),
        }
    }
    Ok((left, tally))
}

/// libtorch's CPU threads for each net of a match of `a` and `b`: the cores shared among the nets
/// when their games share batches (each net's server runs one forward pass at a time, and more
/// threads than cores fight over them: docs/performance.md), else one (a game per core, each with
/// its own clock).
fn threads_per_net(a: &Entrant, b: &Entrant) -> usize {
    if a.shares_batches() && b.shares_batches() {
        let nets = usize::from(a.has_net()) + usize::from(b.has_net());
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (cores / nets.max(1)).max(1)
    } else {
        1
    }
}

/// Where each finished game goes at once, so an interrupted match keeps the games it finished:
/// its PDN to the games file, its result record to every results file.
struct Sink {
    /// The PDN file and its path, when the games are saved as PDN.
    pdn: Option<(File, PathBuf)>,
    record_files: Vec<PathBuf>,
    event: String,
}

impl Sink {
    /// The sink of a match; `append` (a resumed match) keeps the games a PDN file already holds.
    fn open(
        pdn_path: Option<&Path>,
        record_files: Vec<PathBuf>,
        event: String,
        append: bool,
    ) -> Result<Sink> {
        let pdn = pdn_path
            .map(|path| {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir)
                        .with_context(|| format!("creating {}", dir.display()))?;
                }
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .append(append)
                    .truncate(!append)
                    .open(path)
                    .with_context(|| format!("creating {}", path.display()))?;
                anyhow::Ok((file, path.to_path_buf()))
            })
            .transpose()?;
        Ok(Sink { pdn, record_files, event })
    }

    fn save(&mut self, game: &PlayedGame) -> Result<()> {
        if let Some((file, path)) = &mut self.pdn {
            let text = format!("{}\n", game.to_pdn(&self.event));
            file.write_all(text.as_bytes())
                .with_context(|| format!("writing {}", path.display()))?;
        }
        let record = [ResultRecord::of(game)];
        self.record_files.iter().try_for_each(|file| rundata::append_json_lines(file, &record))?;
        Ok(())
    }
}

/// The results files to append to: each run directory's, and `extra`.
fn record_files(a: &Entrant, b: &Entrant, extra: Option<&Path>) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = Vec::new();
    for run in [a.run_dir(), b.run_dir()].into_iter().flatten() {
        files.push(run_results_file(run)?);
    }
    files.extend(extra.map(Path::to_path_buf));
    files.sort();
    files.dedup();
    Ok(files)
}

/// `match-<unix time>.pdn` in the games folder of the first player's run directory, if any.
fn default_pdn_file(a: &Entrant, b: &Entrant) -> Option<PathBuf> {
    let games = a.run_dir().or(b.run_dir())?.join(rundata::layout::GAMES);
    Some(games.join(format!("match-{}.pdn", support::unix_seconds())))
}

/// One line per finished game: games finished (a resumed match's earlier ones included) out of
/// all, the game's own number in the schedule (games at once finish out of order), ballot, who had
/// Black, the result, and A's running total.
fn progress_line(game: &PlayedGame, tally: &Tally, total: usize) -> String {
    let width = total.to_string().len();
    let finished = tally.games();
    format!(
        "[{finished:>width$}/{total}] game {:>width$} ballot {} {} - {}: {} ({}, {} plies)   A +{} ={} -{} score {:.3}",
        game.fixture.index + 1,
        game.fixture.ballot.name,
        game.black.name,
        game.white.name,
        game.ending.result().pdn(),
        game.ending.word(),
        game.game.ply(),
        tally.wins,
        tally.draws,
        tally.losses,
        tally.score(),
    )
}

/// What an interrupted match says after its table: how far it got, and how to go on.
fn interrupted_line(played: usize, total: usize, record: Option<&Path>) -> String {
    let next = match record {
        Some(record) => format!(
            "the same command with --resume plays the rest ({} keeps them)",
            record.display()
        ),
        None => "give --record FILE to a match to resume it when interrupted".to_string(),
    };
    format!("interrupted after {played} of {total} games: {next}")
}

fn print_table(a: &Entrant, b: &Entrant, tally: &Tally, elapsed: Duration) {
    let elo = tally.elo();
    let width = a.name().len().max(b.name().len()).max(6);
    println!();
    println!("{:width$}  games  wins  draws  losses  score  Elo diff [95%]", "player");
    for (name, t, e) in
        [(a.name(), *tally, elo), (b.name(), tally.flipped(), tally.flipped().elo())]
    {
        println!(
            "{name:width$}  {:>5}  {:>4}  {:>5}  {:>6}  {:.3}  {e}",
            t.games(),
            t.wins,
            t.draws,
            t.losses,
            t.score(),
        );
    }
    println!("{} games in {:.1} s", tally.games(), elapsed.as_secs_f64());
}
