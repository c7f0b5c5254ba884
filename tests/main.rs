//! The one integration-test binary (libtorch links once): a module per area.
mod bench;
mod cli;
mod concurrent_run;
mod egdb;
mod faults;
mod hub;
mod ladder;
mod layout;
mod many_machines;
mod model;
mod pickup;
mod play;
mod run;
#[path = "../rundata/tests/seaweed/mod.rs"]
mod seaweed;
mod train;
