//! `checkers-zero`: the command-line front of the trainer. It parses every command line itself
//! and runs the commands that need no net here, without libtorch; the others (training, nets,
//! exports) it hands to the net library, loaded only then (see [`net_library`]).

mod net_library;

use clap::Parser;
use cli::{Cli, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
    omp_threads_sleep_when_idle();
    let command = Cli::parse().command;
    let status = match command {
        Command::Shared(shared) if !shared.needs_net() => cli::exit_status(shared.run(None)),
        _ => net_library::run(std::env::args_os()),
    };
    ExitCode::from(status)
}

/// libtorch's OpenMP threads spin while they wait by default. When other work shares the cores
/// (self-play workers, a trainer, other programs) that spinning slowed forward passes by up to
/// 100x on a 2-core machine; letting idle threads sleep (`OMP_WAIT_POLICY=PASSIVE`) cured it.
/// OpenMP reads the variable in its library constructor, which runs when the net library (and
/// with it libtorch and its OpenMP) is loaded, after `main` started: so it is set here, first
/// thing, while no other thread runs; a policy the user chose is kept. (It cannot be set before
/// `main` from the executable's pre-initialisation array: glibc sets up the environment again
/// after that array ran, and the variable was lost.)
fn omp_threads_sleep_when_idle() {
    if std::env::var_os("OMP_WAIT_POLICY").is_none() {
        std::env::set_var("OMP_WAIT_POLICY", "PASSIVE");
    }
}
