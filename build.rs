//! Build script of the binary's package: gives its test binaries (which link libtorch through
//! their dev-dependencies) libtorch's folder as run path. The binary itself links no libtorch.

fn main() {
    if let Ok(libtorch) = std::env::var("LIBTORCH") {
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{libtorch}/lib");
    }
    println!("cargo:rerun-if-env-changed=LIBTORCH");
}
