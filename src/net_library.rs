//! Loading the net library (`libcheckers_zero_torch.so`, built from `cli-torch/`): the commands
//! that need libtorch live there, so that only they pay for loading and initialising libtorch (a
//! noticeable fraction of a second) and every other command starts at once. It is found beside
//! the executable, or where `CHECKERS_ZERO_NET_LIBRARY` points, and must come from the same build
//! as the executable.

use std::ffi::{c_char, c_int, CStr, CString, OsString};
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

/// The library's file name (what cargo builds from `cli-torch/` on Linux).
const FILE_NAME: &str = "libcheckers_zero_torch.so";

/// Runs the command line `args` (program name first) in the net library and returns its exit
/// status; a library that is missing or from another build is a one-line error (status 1).
pub fn run(args: impl Iterator<Item = OsString>) -> u8 {
    match load_and_run(args) {
        Ok(status) => status,
        Err(message) => {
            eprintln!("error: {message}");
            1
        }
    }
}

fn load_and_run(args: impl Iterator<Item = OsString>) -> Result<u8, String> {
    let path = library_path()?;
    let rebuild = "build it with `make setup` (or `cargo build --release --workspace`)";
    // SAFETY: the library is our own net library; loading it runs libtorch's initialisers, which
    // is what this command needs.
    let library = unsafe { libloading::Library::new(&path) }
        .map_err(|e| format!("loading the net library {}: {e}; {rebuild}", path.display()))?;
    // SAFETY: both symbols are defined by `cli-torch/src/lib.rs` with exactly these signatures.
    let (build, main) = unsafe {
        let build = library.get::<extern "C" fn() -> *const c_char>(b"checkers_zero_torch_build\0");
        let main = library.get::<extern "C" fn(c_int, *const *const c_char) -> c_int>(
            b"checkers_zero_torch_main\0",
        );
        (build, main)
    };
    let missing = |e| format!("{} is not the net library ({e}); {rebuild}", path.display());
    let (build, main) = (build.map_err(missing)?, main.map_err(missing)?);
    // SAFETY: the library returns a NUL-terminated string that lives as long as the library.
    let theirs = unsafe { CStr::from_ptr(build()) }.to_string_lossy().into_owned();
    let ours = cli::BUILD;
    if theirs != ours {
        return Err(format!(
            "the net library {} is from build {theirs}, this program from build {ours}; {rebuild}",
            path.display()
        ));
    }
    // Command-line arguments hold no NUL byte on Unix.
    let args: Vec<CString> =
        args.map(|a| CString::new(a.into_vec()).expect("an argument without NUL")).collect();
    let argv: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
    let status = main(argv.len() as c_int, argv.as_ptr());
    // The library's threads may still run (e.g. libtorch's pools): leave it loaded until exit.
    std::mem::forget(library);
    Ok(status.clamp(0, 255) as u8)
}

/// Where the net library is: `CHECKERS_ZERO_NET_LIBRARY`, else beside the executable.
fn library_path() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("CHECKERS_ZERO_NET_LIBRARY") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|e| format!("finding this program's folder: {e}"))?;
    Ok(exe.with_file_name(FILE_NAME))
}
