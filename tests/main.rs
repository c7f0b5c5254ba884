//! The one integration-test binary (libtorch links once): a module per area.
mod bench;
mod cli;
mod faults;
mod hub;
mod model;
mod play;
mod run;
mod train;
