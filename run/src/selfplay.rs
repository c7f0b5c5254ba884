//! `checkers-zero selfplay`: self-play games with the run's best net into its trajectory shards.
//! Several of these may run beside a `run` on the same run directory, or on many machines on one
//! S3 run: there each shard is written to the process's cache, then uploaded by an [`Uploader`]
//! (kept on local disk while the store cannot be reached). With `--follow` it plays batch after
//! batch. A newly promoted net is taken up within seconds, in the middle of a batch too
//! ([`follow`], which the self-play thread of a concurrent `run` runs too; the net that plays,
//! replaced while games are in flight, is [`PlayingNet`]). The games themselves are the `selfplay`
//! crate's.

use crate::run_state::{ensure_best, open_run_options, RunDirOptions};
use crate::store_retry::retry;
use progress::interrupt;
mod playing_net;

use anyhow::{Context, Result};
use egdb::Tables;
pub use playing_net::PlayingNet;
use runconfig::{OpeningsConfig, RunConfig};
use rundata::{BestNet, CachedRun, RunDir, Uploader};
use selfplay::{Openings, Session, SessionReport, ShardWritten};
use shard::list_shards;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How long a stopping process keeps trying to upload its last shards.
const UPLOAD_PATIENCE: Duration = Duration::from_secs(60);

/// What `checkers-zero selfplay` plays.
pub struct SelfplayOptions {
    /// The run and its config.
    pub run: RunDirOptions,
    /// Games to play (default: the config's games per generation); with `follow`, games per batch.
    pub games: Option<u64>,
    /// Worker threads (default: the config's).
    pub workers: Option<usize>,
    /// Keep playing batch after batch with the newest best net (until Ctrl-C).
    pub follow: bool,
}

/// What self-play's games need beside the net, loaded once: where they start and the endgame
/// tables their searches read.
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// The start position or ballots of `selfplay.openings.deck`.
    pub openings: Openings,
    /// The run's `[egdb]` tables, if any.
    pub tables: Option<Arc<Tables>>,
}

impl GameSetup {
    /// `tables` (loaded by the caller, who may share them) and the openings of `config`'s
    /// `[selfplay.openings]`; a deck that cannot be read is an error that names the key.
    pub fn new(tables: Option<Arc<Tables>>, config: &RunConfig) -> Result<GameSetup> {
        let section = &config.selfplay.openings;
        let deck = match section.deck.as_str() {
            "" => return Ok(GameSetup { openings: Openings::none(), tables }),
            OpeningsConfig::STANDARD => arena::standard_deck(),
            file => arena::read_deck(Path::new(file)),
        }
        .with_context(|| format!("`selfplay.openings.deck` = {:?}", section.deck))?;
        let ballots = deck.into_iter().map(|ballot| ballot.moves).collect();
        Ok(GameSetup { openings: Openings::new(ballots, section.share), tables })
    }
}

/// `checkers-zero selfplay`: plays games with the best net into shards, once or following.
pub fn selfplay(options: SelfplayOptions) -> Result<()> {
    interrupt::install();
    let (cached, mut config) =
        retry("opening the run", || open_run_options(&options.run, "selfplay"))?;
    if let Some(workers) = options.workers {
        config.selfplay.workers = workers;
        config.validate()?;
    }
    model::configure_cpu_threads(config.cpu_threads, config.selfplay.forward_threads());
    let cached = Arc::new(cached);
    let uploader = cached.is_remote().then(|| start_uploader(&cached)).transpose()?;
    let announce = |shard: &Path, games: u64| {
        if let Some(uploader) = &uploader {
            progress::line(format!("shard {}: {games} games", file_name(shard)));
            uploader.send(outbox_batch(cached.run(), shard));
        }
    };
    let best = retry("self-play waits for the best net", || ensure_best(&cached, &config))?;
    // Separate processes must not replay each other's games: mix the process into the seed.
    let seed = config.seed ^ (u64::from(std::process::id()) << 32) ^ support::unix_seconds();
    let mut batches = Numbered {
        games: options.games.unwrap_or(config.budget.games_per_generation),
        seed,
        started: 0,
        follow: options.follow,
    };
    let setup = GameSetup::new(config.egdb.load()?, &config)?;
    let played = follow(
        &cached,
        &config,
        &setup,
        best,
        Some(&announce),
        &interrupt::requested,
        &mut batches,
    );
    if let Some(uploader) = uploader {
        match uploader.finish(UPLOAD_PATIENCE) {
            0 => println!("every shard is in {}", cached.location()),
            kept => eprintln!(
                "{kept} shards kept locally in {}: they are uploaded when self-play starts again with this cache",
                cached.run().shards_dir().display()
            ),
        }
    }
    played
}

/// One batch of self-play games.
pub struct Batch {
    /// Games to play.
    pub games: u64,
    /// Seeds the batch's games.
    pub seed: u64,
}

/// What decides the batches of [`follow`] and hears how they went.
pub trait Batches {
    /// The next batch, or `None` to end self-play.
    fn next(&mut self) -> Result<Option<Batch>>;
    /// `games` more games are on disk, in shards (count them before a crash could forget them).
    fn written(&mut self, games: u64) -> Result<()>;
    /// A batch is over, played by `best`.
    fn played(&mut self, best: &BestNet, report: &SessionReport) -> Result<()>;
}

/// The batches of the `selfplay` command: `games` each, seeded by their number; one without
/// `--follow`, else until Ctrl-C.
struct Numbered {
    games: u64,
    seed: u64,
    started: u64,
    follow: bool,
}

impl Batches for Numbered {
    fn next(&mut self) -> Result<Option<Batch>> {
        if self.started > 0 && (!self.follow || interrupt::requested()) {
            return Ok(None);
        }
        let seed = selfplay::worker::game_seed(self.seed, self.started);
        self.started += 1;
        Ok(Some(Batch { games: self.games, seed }))
    }

    fn written(&mut self, _games: u64) -> Result<()> {
        Ok(())
    }

    fn played(&mut self, _best: &BestNet, report: &SessionReport) -> Result<()> {
        print_summary(report);
        Ok(())
    }
}

/// Plays the batches `batches` asks for, starting with `best` (in the cache) and taking up each
/// newer best net of the run within seconds of its promotion, in the middle of a batch too (see
/// [`PlayingNet`]); while the store is unreachable it goes on with the net it has. `stop` is
/// polled between games (see [`play_games`]).
pub fn follow(
    cached: &CachedRun,
    config: &RunConfig,
    setup: &GameSetup,
    best: BestNet,
    shard_written: Option<ShardWritten>,
    stop: &(dyn Fn() -> bool + Sync),
    batches: &mut impl Batches,
) -> Result<()> {
    let playing = PlayingNet::new(cached, config, best)?;
    while let Some(batch) = batches.next()? {
        let report =
            play_games(cached, config, setup, &playing, &batch, shard_written, stop, |n| {
                batches.written(n)
            })?;
        batches.played(&playing.best(), &report)?;
    }
    Ok(())
}

/// The uploader of an S3 run's shards, with the shards an earlier process left in the cache.
fn start_uploader(cached: &Arc<CachedRun>) -> Result<Uploader> {
    let run = cached.run();
    let leftovers: Vec<Vec<PathBuf>> = list_shards(&run.shards_dir())?
        .iter()
        .map(|shard| {
            progress::line(format!("outbox: shard {} left by an earlier start", file_name(shard)));
            outbox_batch(run, shard)
        })
        .collect();
    Ok(Uploader::start(cached.clone(), leftovers))
}

/// A shard and its PDN file, the shard last: once it is in the store, so are its games.
fn outbox_batch(run: &RunDir, shard: &Path) -> Vec<PathBuf> {
    let stem = shard.file_stem().unwrap_or_default().to_string_lossy();
    let pdn = run.games_dir().join(format!("{stem}.pdn"));
    vec![pdn, shard.to_path_buf()]
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap_or_default().to_string_lossy().into_owned()
}

/// Plays `batch` with the net `playing` plays (from the openings and with the endgame tables of
/// `setup`, loaded once by the caller) into the run's shards, with a progress bar, on libtorch's
/// CPU threads as the caller set them; a net promoted meanwhile is taken up at once (see
/// [`PlayingNet`]), and each shard records the generation that played its last game.
/// `shard_written` is told of each shard on disk; `written(n)` is called as soon as `n` more games
/// are on disk in shards (so a caller can count them before a crash could forget them); its first
/// error ends the session's counting and is returned. Once `stop()` says so (polled between
/// games), no new game starts and the games in flight are abandoned.
#[allow(clippy::too_many_arguments)]
pub fn play_games(
    cached: &CachedRun,
    config: &RunConfig,
    setup: &GameSetup,
    playing: &PlayingNet,
    batch: &Batch,
    shard_written: Option<ShardWritten>,
    stop: &(dyn Fn() -> bool + Sync),
    mut written: impl FnMut(u64) -> Result<()>,
) -> Result<SessionReport> {
    // A promotion between two batches is taken up before the next one's first game.
    if playing.look(true) {
        playing.failure()?;
    }
    let generation = || Some(playing.generation());
    let session = Session {
        run: cached.run(),
        config: &config.selfplay,
        seed: batch.seed,
        generation: &generation,
        openings: setup.openings.clone(),
        tables: setup.tables.clone(),
        shard_written,
    };
    let bar = progress::bar(batch.games, "games");
    bar.set_message(format!("generation {}", playing.generation()));
    let mut counted = Ok(0);
    let mut count = |total: u64| {
        if let Ok(done) = counted {
            counted = written(total - done).map(|()| total);
        }
    };
    let report = session.play(
        batch.games,
        |_| playing.evaluator().map_err(|e| format!("{e:#}")),
        &|| playing.look(false) || stop(),
        |totals| {
            bar.set_position(totals.games);
            bar.set_message(totals.describe());
            count(totals.written);
        },
    );
    playing.failure()?;
    let report = report?;
    count(report.totals.written); // the last shard lands after the last game
    bar.finish();
    counted?;
    Ok(report)
}

fn print_summary(report: &SessionReport) {
    let w = &report.workers;
    progress::line(format!(
        "self-play: {} games, {} samples ({})",
        report.totals.games,
        report.totals.samples,
        report.totals.describe()
    ));
    progress::line(format!(
        "net: {} positions in {} batches (mean batch {:.0}; {:.0}% of the leaves answered by the cache), busy {:.0}% of the time",
        w.net_positions(),
        w.batches,
        w.net_positions() as f64 / w.batches.max(1) as f64,
        100.0 * w.cache_hit_rate(),
        100.0 * w.net_busy_share()
    ));
}
