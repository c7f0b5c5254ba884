//! Integration tests of the rules engine, in one test binary.

mod notation;
mod perft;
mod properties;
mod reference;
mod rules;
mod support;
mod turn;
