//! How much of a run's budget is spent, kept in `RUN/progress.json` so that a resumed run goes on
//! towards the same budget.

use anyhow::{Context, Result};
use runconfig::BudgetConfig;
use rundata::RunDir;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use support::{process_cpu_time, write_atomic};

/// What the run has spent so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spent {
    /// Self-play games finished by the run loop.
    pub games: u64,
    /// Wall-clock seconds of all the run's sessions.
    pub wall_seconds: f64,
    /// CPU seconds of all the run's sessions (each session's process, all its threads); 0 in a
    /// progress file written before it was kept.
    #[serde(default)]
    pub cpu_seconds: f64,
}

/// The spent budget of one run, saved after every change.
pub struct Progress {
    path: PathBuf,
    spent: Spent,
    /// When `spent.wall_seconds` was last brought up to date.
    since: Instant,
    /// The process's CPU time when `spent.cpu_seconds` was last brought up to date.
    cpu_since: Option<Duration>,
}

impl Progress {
    pub fn open(run: &RunDir) -> Result<Progress> {
        let path = run.progress_file();
        let spent = match run.read_progress() {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .with_context(|| format!("{}: not a valid progress file", path.display()))?,
            Err(e) if e.is_not_found() => Spent::default(),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        Ok(Progress { path, spent, since: Instant::now(), cpu_since: process_cpu_time() })
    }

    /// The spent budget, wall and CPU time up to now.
    pub fn spent(&mut self) -> Spent {
        self.spent.wall_seconds += self.since.elapsed().as_secs_f64();
        self.since = Instant::now();
        let cpu = process_cpu_time();
        if let (Some(now), Some(since)) = (cpu, self.cpu_since) {
            self.spent.cpu_seconds += now.saturating_sub(since).as_secs_f64();
        }
        self.cpu_since = cpu;
        self.spent
    }

    /// Counts finished games and saves.
    pub fn add_games(&mut self, games: u64) -> Result<()> {
        self.spent.games += games;
        self.save()
    }

    pub fn save(&mut self) -> Result<()> {
        let spent = self.spent();
        write_atomic(&self.path, serde_json::to_string(&spent)?.as_bytes())?;
        Ok(())
    }
}

/// Which limit of the budget is reached, if any (`train_steps` is the trainer's step).
pub fn exhausted(budget: &BudgetConfig, spent: &Spent, train_steps: u64) -> Option<String> {
    if budget.train_steps > 0 && train_steps >= budget.train_steps {
        return Some(format!("{train_steps} of {} training steps", budget.train_steps));
    }
    if budget.selfplay_games > 0 && spent.games >= budget.selfplay_games {
        return Some(format!("{} of {} self-play games", spent.games, budget.selfplay_games));
    }
    if out_of_wall_time(budget, spent) {
        return Some(format!(
            "{:.1} of {} minutes",
            spent.wall_seconds / 60.0,
            budget.wall_minutes
        ));
    }
    if out_of_cpu_time(budget, spent) {
        return Some(format!(
            "{:.3} of {} CPU hours",
            spent.cpu_seconds / 3600.0,
            budget.cpu_hours
        ));
    }
    None
}

/// The share of the budget spent (0..=1): of the limit nearest to being reached.
pub fn share_spent(budget: &BudgetConfig, spent: &Spent, train_steps: u64) -> f64 {
    let share = |used: f64, limit: f64| if limit > 0.0 { used / limit } else { 0.0 };
    share(train_steps as f64, budget.train_steps as f64)
        .max(share(spent.games as f64, budget.selfplay_games as f64))
        .max(share(spent.wall_seconds, budget.wall_minutes * 60.0))
        .max(share(spent.cpu_seconds, budget.cpu_hours * 3600.0))
        .clamp(0.0, 1.0)
}

/// Whether the wall-clock or the CPU-time limit of the budget is reached.
pub fn out_of_time(budget: &BudgetConfig, spent: &Spent) -> bool {
    out_of_wall_time(budget, spent) || out_of_cpu_time(budget, spent)
}

fn out_of_wall_time(budget: &BudgetConfig, spent: &Spent) -> bool {
    budget.wall_minutes > 0.0 && spent.wall_seconds >= budget.wall_minutes * 60.0
}

fn out_of_cpu_time(budget: &BudgetConfig, spent: &Spent) -> bool {
    budget.cpu_hours > 0.0 && spent.cpu_seconds >= budget.cpu_hours * 3600.0
}

/// Games the next self-play phase may play: a generation, or what the game budget has left.
pub fn games_for_phase(budget: &BudgetConfig, spent: &Spent) -> u64 {
    let left = if budget.selfplay_games > 0 {
        budget.selfplay_games.saturating_sub(spent.games)
    } else {
        u64::MAX
    };
    budget.games_per_generation.min(left)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_spent_is_that_of_the_nearest_limit() {
        let budget = BudgetConfig {
            train_steps: 0,
            selfplay_games: 1000,
            wall_minutes: 10.0,
            ..BudgetConfig::default()
        };
        let spent = Spent { games: 100, wall_seconds: 300.0, cpu_seconds: 0.0 };
        assert_eq!(share_spent(&budget, &spent, 99_999), 0.5, "the wall time, 5 of 10 minutes");
        let spent = Spent { games: 900, ..spent };
        assert_eq!(share_spent(&budget, &spent, 0), 0.9);
        let spent = Spent { games: 2000, wall_seconds: 0.0, cpu_seconds: 0.0 };
        assert_eq!(share_spent(&budget, &spent, 0), 1.0);
        let cpu = BudgetConfig { cpu_hours: 2.0, ..budget };
        let spent = Spent { games: 0, wall_seconds: 60.0, cpu_seconds: 5400.0 };
        assert_eq!(share_spent(&cpu, &spent, 0), 0.75, "1.5 of 2 CPU hours");
    }

    #[test]
    fn each_limit_stops_the_run_and_zero_means_none() {
        let budget = BudgetConfig {
            train_steps: 10,
            selfplay_games: 5,
            wall_minutes: 1.0,
            cpu_hours: 0.5,
            games_per_generation: 4,
        };
        let fresh = Spent::default();
        assert_eq!(exhausted(&budget, &fresh, 0), None);
        assert!(exhausted(&budget, &fresh, 10).unwrap().contains("training steps"));
        assert!(exhausted(&budget, &Spent { games: 5, ..fresh }, 0).unwrap().contains("games"));
        assert!(exhausted(&budget, &Spent { wall_seconds: 61.0, ..fresh }, 0)
            .unwrap()
            .contains("minutes"));
        assert!(out_of_time(&budget, &Spent { wall_seconds: 61.0, ..fresh }));
        assert!(exhausted(&budget, &Spent { cpu_seconds: 1800.0, ..fresh }, 0)
            .unwrap()
            .contains("0.500 of 0.5 CPU hours"));
        assert!(out_of_time(&budget, &Spent { cpu_seconds: 1800.0, ..fresh }));
        assert!(!out_of_time(&budget, &Spent { games: 5, cpu_seconds: 1799.0, ..fresh }));
        let unlimited =
            BudgetConfig { train_steps: 0, selfplay_games: 0, cpu_hours: 0.0, ..budget };
        assert_eq!(exhausted(&unlimited, &Spent { games: 1000, ..fresh }, 1000), None);
        assert_eq!(games_for_phase(&budget, &Spent { games: 3, ..fresh }), 2);
        assert_eq!(games_for_phase(&unlimited, &fresh), 4);
    }

    #[test]
    fn progress_survives_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::create(dir.path()).unwrap();
        let mut progress = Progress::open(&run).unwrap();
        progress.add_games(3).unwrap();
        let mut again = Progress::open(&run).unwrap();
        assert_eq!(again.spent().games, 3);
    }

    #[test]
    fn the_cpu_time_spent_counts_from_the_open_and_adds_to_the_saved() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::create(dir.path()).unwrap();
        std::fs::write(run.progress_file(), r#"{"games": 3, "wall_seconds": 60.0}"#).unwrap();
        let mut progress = Progress::open(&run).unwrap();
        // A file without it: none before the open (the process's other threads, the other tests,
        // may add a little since).
        assert!(progress.spent().cpu_seconds < 1.0);
        let start = process_cpu_time().unwrap();
        while process_cpu_time().unwrap() < start + Duration::from_millis(30) {
            std::hint::black_box((0..10_000u64).sum::<u64>());
        }
        progress.save().unwrap();
        let file: Spent = serde_json::from_slice(&run.read_progress().unwrap()).unwrap();
        assert!(file.cpu_seconds >= 0.03, "{file:?}");
        assert_eq!((file.games, file.wall_seconds >= 60.0), (3, true));
        // Reopened, it goes on from the saved CPU time.
        let again = Progress::open(&run).unwrap().spent().cpu_seconds;
        assert!(again >= file.cpu_seconds, "{again} of {file:?}");
    }

    #[test]
    fn a_progress_file_over_its_limit_is_refused_naming_the_limit_and_its_setting() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::create(dir.path()).unwrap();
        let file = std::fs::File::create(run.progress_file()).unwrap();
        file.set_len(rundata::MAX_PROGRESS_BYTES + 1).unwrap();
        let err = format!("{:#}", Progress::open(&run).err().expect("refused"));
        assert!(
            err.contains("progress.json: 1048577 bytes is more than the 1048576-byte limit of a progress file (raise it with CHECKERS_ZERO_MAX_FILE_MB=MIB)"),
            "{err}"
        );
    }
}
