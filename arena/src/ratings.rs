//! What the results say, apart from playing them: a tally's score and Elo with its interval
//! ([`tally`]), the sequential test that stops a match early ([`sprt`]), the Elo ladder of a set of
//! result records ([`ladder`], fitted by [`bradley_terry`]), the learning curve against the fixed
//! opponents ([`curve`]), and the SVG plots of both ([`plot`]).

pub mod bradley_terry;
pub mod curve;
pub mod ladder;
pub mod plot;
pub mod sprt;
pub mod tally;
