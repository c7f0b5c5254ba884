//! `checkers-zero`: the command-line front of the trainer. One subcommand per module.

mod bench;
mod bestmove;
mod budget;
mod config;
mod egdb;
mod export;
mod gating;
mod hub_cmd;
mod interrupt;
mod ladder;
mod match_cmd;
mod perft;
mod play;
mod progress;
mod run;
mod run_state;
mod selfplay;
mod train;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "checkers-zero",
    version,
    about = "AlphaZero-style self-play trainer for English draughts"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The whole loop: self-play, training and gating until the budget is spent (resumes).
    Run(run::RunArgs),
    /// Self-play games with a run's best net into its trajectory shards.
    Selfplay(selfplay::SelfplayArgs),
    /// Train on a run's shards (resumes), writing candidate nets for the gate.
    Train(train::TrainArgs),
    /// Count the leaves of the move tree (move-generator check and speed).
    Perft(perft::PerftArgs),
    /// Endgame databases: build the exact tables up to N pieces, or probe positions in them.
    Egdb(egdb::EgdbArgs),
    /// Export a checkpoint for other engines (TorchScript, ONNX, safetensors) with a JSON description.
    Export(export::ExportArgs),
    /// Play two players against each other over the 3-move ballots (colours swapped per ballot).
    Match(match_cmd::MatchArgs),
    /// Elo ratings of every player in a run's recorded games, with a plot against training step.
    Ladder(ladder::LadderArgs),
    /// The move a player chooses in a FEN position (PDN, full path), with value and PV.
    Bestmove(bestmove::BestmoveArgs),
    /// A Hub-protocol engine on stdin/stdout for GUIs, tournament tools and pydraughts.
    Hub(hub_cmd::HubArgs),
    /// Play against a net or a built-in engine in the terminal, typing moves in PDN.
    Play(play::PlayArgs),
    /// Every performance figure in one run: perft, search, forward, self-play, training.
    Bench(bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run::run(args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Train(args) => train::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Egdb(args) => egdb::run(args),
        Command::Export(args) => export::run(args),
        Command::Match(args) => match_cmd::run(args),
        Command::Ladder(args) => ladder::run(args),
        Command::Bestmove(args) => bestmove::run(args),
        Command::Hub(args) => hub_cmd::run(args),
        Command::Play(args) => play::run(args),
        Command::Bench(args) => bench::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // `{:#}`: the error and its causes on one line, each said once (library errors keep
            // their cause as the source instead of repeating it in their message).
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// libtorch's OpenMP threads spin while they wait by default. When other work shares the cores
/// (self-play workers, a trainer, other programs) that spinning slowed forward passes by up to
/// 100x on a 2-core machine; letting idle threads sleep (`OMP_WAIT_POLICY=PASSIVE`) cured it.
/// OpenMP reads the variable in its library constructor, before `main`, so it is set here from
/// the executable's pre-initialisation array, which the dynamic loader runs before any shared
/// library's constructor; a policy the user chose is kept.
#[used]
#[link_section = ".preinit_array"]
static OMP_THREADS_SLEEP_WHEN_IDLE: extern "C" fn() = omp_threads_sleep_when_idle;

extern "C" fn omp_threads_sleep_when_idle() {
    extern "C" {
        fn setenv(
            name: *const std::ffi::c_char,
            value: *const std::ffi::c_char,
            overwrite: std::ffi::c_int,
        ) -> std::ffi::c_int;
    }
    // SAFETY: runs once, before `main` and before any other thread or library code; both strings
    // are NUL-terminated literals. `overwrite = 0` leaves a value the user set.
    unsafe {
        setenv(c"OMP_WAIT_POLICY".as_ptr(), c"PASSIVE".as_ptr(), 0);
    }
}
