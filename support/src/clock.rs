//! The wall clock as the program's files record it: time since the Unix epoch (0 on a clock set
//! before 1970).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Time since the Unix epoch.
pub fn since_epoch() -> Duration {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default()
}

/// Whole seconds since the Unix epoch.
pub fn unix_seconds() -> u64 {
    since_epoch().as_secs()
}

/// Milliseconds since the Unix epoch.
pub fn unix_millis() -> u64 {
    since_epoch().as_millis() as u64
}
