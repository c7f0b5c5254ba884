//! The commands that need libtorch, run: each command line's arguments (the binary's flags)
//! turned into the options of the `run` crate's command, which then runs.

use anyhow::Result;
use bench::BenchOptions;
use cli::net_commands::AccuracyArgs;
use cli::net_commands::{NetCommand, RunDirArgs};
use run::commands::{self as run_commands, *};

/// Runs a command that always needs libtorch.
pub fn run_net_command(command: NetCommand) -> Result<()> {
    match command {
        NetCommand::Run(args) => run_commands::run(RunOptions {
            run: run_dir(args.run),
            train_steps: args.train_steps,
            selfplay_games: args.selfplay_games,
            wall_minutes: args.wall_minutes,
            cpu_hours: args.cpu_hours,
        }),
        NetCommand::Selfplay(args) => selfplay(SelfplayOptions {
            run: run_dir(args.run),
            games: args.games,
            workers: args.workers,
            follow: args.follow,
        }),
        NetCommand::Train(args) => {
            train(TrainOptions { run: run_dir(args.run), steps: args.steps, follow: args.follow })
        }
        NetCommand::Gate(args) => gate(GateOptions { run: run_dir(args.run), follow: args.follow }),
        NetCommand::Export(args) => export(ExportOptions {
            checkpoint: args.checkpoint,
            format: args.format.parse().map_err(anyhow::Error::msg)?,
            out: args.out,
        }),
        NetCommand::Widen(args) => widen(WidenOptions {
            checkpoint: args.checkpoint,
            accumulator: args.accumulator,
            buckets: args.buckets,
            out: args.out,
            seed: args.seed,
        }),
        NetCommand::Average(args) => average(AverageOptions {
            checkpoints: args.checkpoints,
            weights: args.weights,
            out: args.out,
        }),
        NetCommand::Ladder(args) => ladder(LadderOptions {
            run_dir: args.run_dir,
            cache: args.cache,
            anchor: args.anchor,
            plot: args.plot,
        }),
        NetCommand::Bench(args) => bench::run(BenchOptions {
            quick: args.quick,
            json: args.json,
            device: args.device,
            config: args.config,
            shipped_net: cli::shipped_net::checkpoint()?,
        }),
    }
}

/// Runs `egdb accuracy`.
pub fn egdb_accuracy(args: AccuracyArgs) -> Result<()> {
    run_commands::egdb_accuracy(AccuracyOptions {
        net: args.net,
        dir: cli::egdb::folder(args.dir)?,
        pieces: args.pieces,
        seed: args.seed,
    })
}

/// The run the flags name, opened by this build.
fn run_dir(args: RunDirArgs) -> RunDirOptions {
    RunDirOptions {
        run_dir: args.run_dir,
        cache: args.cache,
        config: args.config,
        commit: cli::COMMIT,
    }
}
