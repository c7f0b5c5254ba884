//! The net library, the libtorch half of the binary: the commands of `checkers-zero` that need
//! libtorch (training, self-play, gates, exports, benchmarks, and net players in the shared
//! commands). The binary parses the command line, loads this library only when the command needs
//! it, and hands it the same command line ([`checkers_zero_torch_main`]); nothing but that text
//! crosses between the two. The commands themselves are the `run` and `bench` crates', which take
//! options of their own ([`commands`] fills them in from the flags).

mod commands;

use clap::Parser;
use cli::{Cli, Command, NetSupport};
use search::NetLoader;
use std::ffi::{c_char, c_int, CStr, OsString};
use std::io::Write;
use std::os::unix::ffi::OsStringExt;
use std::sync::Arc;

/// The build this library comes from (version and commit); the binary refuses another build's.
static BUILD: &str = concat!(env!("CHECKERS_ZERO_BUILD"), "\0");

/// This library's build identity, a NUL-terminated string that lives as long as the library.
#[no_mangle]
pub extern "C" fn checkers_zero_torch_build() -> *const c_char {
    BUILD.as_ptr().cast()
}

/// Runs the command line `argv[0..argc]` (program name first) and returns its exit status: 0,
/// 1 for an error (printed on stderr), 101 for a panic.
///
/// # Safety
/// `argv` points to `argc` NUL-terminated strings that live for the call.
#[no_mangle]
pub unsafe extern "C" fn checkers_zero_torch_main(
    argc: c_int,
    argv: *const *const c_char,
) -> c_int {
    let args: Vec<OsString> = (0..argc.max(0) as usize)
        // SAFETY: the caller passes `argc` valid strings.
        .map(|i| OsString::from_vec(unsafe { CStr::from_ptr(*argv.add(i)) }.to_bytes().to_vec()))
        .collect();
    // A panic must not unwind into the binary; the panic hook has already printed it.
    let status = std::panic::catch_unwind(|| run_command(Cli::parse_from(args))).unwrap_or(101);
    // This library has its own standard output buffer, which the binary's exit does not flush.
    let _ = std::io::stdout().flush();
    status
}

/// Runs the parsed command line and returns its exit status.
fn run_command(cli: Cli) -> c_int {
    let result = match cli.command {
        Command::Net(command) => commands::run_net_command(command),
        Command::Shared(shared) => shared.run(Some(&Torch)),
    };
    c_int::from(cli::exit_status(result))
}

/// What the shared commands get from libtorch.
struct Torch;

impl NetSupport for Torch {
    fn loader(&self) -> Arc<dyn NetLoader> {
        model::players_loader()
    }

    fn egdb_accuracy(&self, args: cli::net_commands::AccuracyArgs) -> anyhow::Result<()> {
        commands::egdb_accuracy(args)
    }
}
