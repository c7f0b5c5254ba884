//! Build script of the binary: records the build identity (see `build_id.rs`), and gives the test
//! binaries (which link libtorch through their dev-dependencies) libtorch's folder as run path.

include!("build_id.rs");

fn main() {
    record_build_identity(std::path::Path::new("."));
    // The binary itself links no libtorch; the integration tests do.
    if let Ok(libtorch) = std::env::var("LIBTORCH") {
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{libtorch}/lib");
    }
    println!("cargo:rerun-if-env-changed=LIBTORCH");
}
