//! Build script of the binary: bakes libtorch's library folder into the run path, so that
//! `target/release/checkers-zero` (and the test binary) run from a plain shell without
//! LD_LIBRARY_PATH, and records the git commit for the provenance written beside every run.

fn main() {
    // torch-sys (`links = "tch"`) hands its libtorch folder to direct dependents.
    if let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    }
    let hash = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=CHECKERS_ZERO_GIT_HASH={hash}");
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs/heads");
}
