// Included by the build scripts of the command line's crate (`cli/build.rs`) and of the net
// library (`cli-torch/build.rs`): both record the same build identity, so the binary refuses a
// net library from another build.

/// Sets `CHECKERS_ZERO_GIT_HASH` (the commit) and `CHECKERS_ZERO_BUILD` (version and commit).
fn record_build_identity(repo: &std::path::Path) {
    let hash = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(repo)
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    println!("cargo:rustc-env=CHECKERS_ZERO_GIT_HASH={hash}");
    println!("cargo:rustc-env=CHECKERS_ZERO_BUILD={version}+{hash}");
    for watched in [".git/HEAD", ".git/refs/heads"] {
        println!("cargo:rerun-if-changed={}", repo.join(watched).display());
    }
}
