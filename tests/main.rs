//! The one integration-test binary (libtorch links once), a module per area:
//!
//! - `helpers`: what the modules share: the real binary, the Python with the test packages.
//! - `analyse`: `analyse` over a 100-game file (read back by pydraughts too), a planted blunder.
//! - `architecture`: `docs/architecture.md`'s crate table against the crates' dependencies.
//! - `browser`: the browser board in headless Chromium over WebDriver: a whole game by clicks.
//! - `bench`: `bench --quick` writes every figure, both net families' included.
//! - `cli`: which commands load the net library and libtorch; OpenMP's waiting; errors, not panics.
//! - `docs`: every relative link of the README and `docs/` resolves; the README stays a short manual.
//! - `concurrent_run`: `run.mode = "concurrent"`: every artifact, resume, kills, a failing role.
//! - `egdb`: endgame tables from the command line: adjudication, damage, self-play with tables.
//! - `faults`: crashes, damaged and untrusted files, a full disk, bad input, concurrent writers.
//! - `growth`: a run with the long-run levers on whose net is widened in its config.
//! - `hub`: the Hub engine driven by pydraughts: whole games, levels, stop, ponder, bad lines.
//! - `ladder`: the ladder's anchor and plots over hand-written records.
//! - `layout`: a run folder of the old layout still loads.
//! - `matches`: `match` resumed from its record file after an interruption.
//! - `many_machines`: one run on S3 (SeaweedFS) shared by separate processes, the store stopped.
//! - `model`: checkpoints, inference and exports of both families, checked in the real runtimes.
//! - `pickup`: self-play takes up a promoted net in the middle of a batch.
//! - `play`: `play` reading moves from its standard input.
//! - `run`: `run` end to end on the tiny configs: artifacts, resume, `[eval]`, gate and schedule
//!   options.
//! - `shipped_net`: the built-in net: the default player, its checksum, legal games without libtorch.
//! - `serve`: the browser board's HTTP API: a whole game, the thinking stream, bad requests.
//! - `seaweed`: the SeaweedFS server the S3 tests start (shared with `rundata`'s tests).
//! - `train`: training on generated trajectories, exact resume, damage, TensorBoard files.
//! - `value_search`: self-play whose value targets come from the alpha-beta engine.
mod analyse;
mod architecture;
mod bench;
mod browser;
mod cli;
mod concurrent_run;
mod docs;
mod egdb;
mod faults;
mod growth;
mod helpers;
mod hub;
mod ladder;
mod layout;
mod many_machines;
mod matches;
mod model;
mod pickup;
mod play;
mod run;
#[path = "../rundata/tests/seaweed/mod.rs"]
mod seaweed;
mod serve;
mod shipped_net;
mod train;
mod value_search;
