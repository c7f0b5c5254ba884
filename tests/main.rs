//! The one integration-test binary (libtorch links once): a module per area.
mod bench;
mod cli;
mod egdb;
mod faults;
mod hub;
mod ladder;
mod model;
mod play;
mod run;
mod train;
