//! `checkers-zero`: the command-line front of the trainer. It parses every command line itself
//! and runs the commands that need no net here, without libtorch; the others (training, nets,
//! exports) it hands to the net library, loaded only then (see [`net_library`]).

mod net_library;

use clap::Parser;
use cli::{Cli, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
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
