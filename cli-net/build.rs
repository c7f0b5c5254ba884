//! Build script of the net library: bakes libtorch's library folder into its run path, so that
//! the binary loads it (and libtorch) from a plain shell without LD_LIBRARY_PATH, and records the
//! build identity the binary checks (see `../cli/build_id.rs`).

include!("../cli/build_id.rs");

fn main() {
    // torch-sys (`links = "tch"`) hands its libtorch folder to direct dependents.
    if let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,{lib}");
    }
    record_build_identity(std::path::Path::new(".."));
}
