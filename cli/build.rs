//! Build script of the command line's crate: records the build identity (see `build_id.rs`) that
//! the binary and the net library compare.

include!("build_id.rs");

fn main() {
    record_build_identity(std::path::Path::new(".."));
}
