//! The one integration-test binary (libtorch links once): a module per area.
mod model;
mod run;
mod train;
