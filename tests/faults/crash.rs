//! Crash safety: one run of the tiny config is SIGKILLed at seeded random moments and restarted,
//! 24 times, then run to the end of a budget a little beyond what it had played. After every kill
//! the run directory is audited: nothing half-written, no shard lost, the best net loadable, the
//! counters never going back, no candidate gated twice. The budget during the kills is out of
//! reach, so the number of kills does not depend on the machine's speed. The concurrent mode's
//! run is killed the same way (`concurrent_run.rs`).

use super::audit::{audit, Audit};
use super::{arg, assert_no_panic, checkers_zero};
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::SplitMix64;

const KILLS: usize = 24;
/// The self-play budget while the run is being killed: never reached.
const UNREACHED_GAMES: u64 = 1_000_000;
/// Games the final run adds to those counted after the last kill.
const FINAL_GAMES: u64 = 24;
/// Kill moments after a start, uniform in this range: from loading libtorch to a whole generation.
const KILL_AFTER_MS: std::ops::Range<u64> = 30..1200;

/// When the kill moments start counting.
#[derive(Clone, Copy, PartialEq)]
pub enum KillClock {
    /// At the start of the process.
    Start,
    /// At the process's first line of output (the run opened), whatever its start-up took on a
    /// loaded machine: every kill then comes while the run works.
    FirstLine,
}

#[test]
fn a_run_killed_at_random_moments_resumes_and_loses_nothing() {
    killed_at_random_moments_resumes_and_loses_nothing("configs/tiny.toml", KillClock::Start);
}

/// The test above for a new run of `config` (the tiny config, or a copy in another mode).
pub fn killed_at_random_moments_resumes_and_loses_nothing(config: &str, clock: KillClock) {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let args = |games: u64| {
        let run = ["run", "--config", config, "--run-dir", arg(&run_dir)];
        let budget = [
            "--selfplay-games".to_string(),
            games.to_string(),
            "--wall-minutes".into(),
            "0".into(),
        ];
        run.iter().map(|a| a.to_string()).chain(budget).collect::<Vec<String>>()
    };
    let mut rng = SplitMix64::new(10);
    let mut last = Audit::default();
    let (mut killed, mut temporaries) = (0, 0);
    let start = Instant::now();
    while killed < KILLS {
        let log = dir.path().join(format!("attempt-{killed}.log"));
        let mut child = checkers_zero()
            .args(args(UNREACHED_GAMES))
            .stdout(if clock == KillClock::Start { Stdio::null() } else { Stdio::piped() })
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        if let Some(stdout) = child.stdout.take() {
            let mut stdout = BufReader::new(stdout);
            stdout.read_line(&mut String::new()).unwrap();
            std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        }
        std::thread::sleep(Duration::from_millis(
            KILL_AFTER_MS.start + rng.below(KILL_AFTER_MS.end - KILL_AFTER_MS.start),
        ));
        if let Some(status) = child.try_wait().unwrap() {
            panic!(
                "the run ended by itself ({status}) after {killed} kills:\n{}",
                std::fs::read_to_string(&log).unwrap()
            );
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        killed += 1;
        assert_no_panic(&std::fs::read_to_string(&log).unwrap());
        let now = audit(&run_dir);
        now.assert_clean();
        assert_kept(&last, &now);
        temporaries = now.temporaries;
        last = now;
    }
    let budget = last.counted_games + FINAL_GAMES;
    let final_args = args(budget);
    let out = super::succeed(&final_args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.contains("budget reached"), "{out}");
    let end = audit(&run_dir);
    end.assert_clean();
    assert_kept(&last, &end);
    assert_eq!(end.counted_games, budget);
    // Games whose shard was written but not yet counted when a kill came are played again: the
    // run then holds more games than its budget, by exactly those. The final run adds none.
    let uncounted = last.shards.len() as u64 - last.counted_games;
    assert_eq!(
        end.shards.len() as u64,
        budget + uncounted,
        "games on disk: counted {budget} + uncounted at kills {uncounted}"
    );
    println!(
        "crash safety: {killed} kills, 0 games lost, 0 corrupt files, {} games on disk ({} played between kills, \
         {uncounted} over the budget, played again after a kill between their shard and its count), \
         {temporaries} temporary files left by kills, {} gates, best net generation {}, {:.1} s",
        end.shards.len(),
        last.shards.len(),
        end.gates,
        end.best.as_ref().map_or(0, |b| b.generation),
        start.elapsed().as_secs_f64()
    );
}

/// Nothing the run had finished before a kill is gone after it, and nothing is counted twice or
/// counted without being on disk.
fn assert_kept(before: &Audit, after: &Audit) {
    let lost: Vec<_> = before.shards.difference(&after.shards).collect();
    assert!(lost.is_empty(), "shards lost: {lost:?}");
    assert!(
        after.counted_games >= before.counted_games,
        "progress went back: {} -> {}",
        before.counted_games,
        after.counted_games
    );
    assert!(
        after.counted_games <= after.shards.len() as u64,
        "{} games counted, {} on disk",
        after.counted_games,
        after.shards.len()
    );
    // At most the shard being committed when the kill came is left uncounted (one game per shard in the tiny config).
    let uncounted = |a: &Audit| a.shards.len() as u64 - a.counted_games;
    assert!(
        uncounted(after) <= uncounted(before) + 1,
        "a kill left {} games uncounted",
        uncounted(after) - uncounted(before)
    );
    assert!(
        after.newest_state >= before.newest_state,
        "training state went back: {:?} -> {:?}",
        before.newest_state,
        after.newest_state
    );
    assert!(
        after.gates >= before.gates
            && after.results >= before.results
            && after.evaluations >= before.evaluations,
        "gate, evaluation or game records lost"
    );
    assert!(after.doubled_gates.is_empty(), "candidates gated twice: {:?}", after.doubled_gates);
    let generation = |a: &Audit| a.best.as_ref().map(|b| b.generation);
    assert!(generation(after) >= generation(before), "the best net went back");
    assert!(before.best.is_none() || after.best.is_some(), "the best-net pointer disappeared");
}
