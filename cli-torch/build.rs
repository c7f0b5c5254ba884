//! Build script of the net library: bakes libtorch's library folder into its run path, so that
//! the binary loads it (and libtorch) from a plain shell without LD_LIBRARY_PATH, and records the
//! build identity the binary checks (see `../cli/build_id.rs`). Where that libtorch has CUDA, the
//! library also names libtorch_cuda as needed: nothing calls into it, so the linker's `--as-needed`
//! would drop it, and then libtorch would see no CUDA device.

include!("../cli/build_id.rs");

fn main() {
    // torch-sys (`links = "tch"`) hands its libtorch folder to direct dependents.
    if let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,{lib}");
        let cuda = std::path::Path::new(&lib).join("libtorch_cuda.so");
        if cuda.exists() {
            let cuda = cuda.display();
            println!(
                "cargo:rustc-cdylib-link-arg=-Wl,--push-state,--no-as-needed,{cuda},--pop-state"
            );
        }
    }
    record_build_identity(std::path::Path::new(".."));
}
