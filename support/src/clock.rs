//! The wall clock as the program's files record it: time since the Unix epoch (0 on a clock set
//! before 1970); and the CPU time the process has used, the measure of a run's compute.

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

/// The CPU time this process has used so far, user and system, over all its threads (those that
/// ended included); `None` where the system does not say.
pub fn process_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage writes a whole `rusage` into the buffer it is given, which lives here.
        let usage = unsafe {
            if libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) != 0 {
                return None;
            }
            usage.assume_init()
        };
        let time = |t: libc::timeval| {
            Duration::from_secs(t.tv_sec.max(0) as u64)
                + Duration::from_micros(t.tv_usec.max(0) as u64)
        };
        Some(time(usage.ru_utime) + time(usage.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_process_cpu_time_grows_with_work_and_keeps_that_of_ended_threads() {
        let before = process_cpu_time().expect("a unix system says");
        // Busy work on a thread until the clock has counted 50 ms more (a minute at most).
        let reached = std::thread::spawn(move || {
            let deadline = std::time::Instant::now() + Duration::from_secs(60);
            let mut x = 0u64;
            loop {
                for _ in 0..100_000 {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
                let now = process_cpu_time().unwrap();
                if now >= before + Duration::from_millis(50) {
                    return now;
                }
                assert!(std::time::Instant::now() < deadline, "the CPU time stays at {now:?}");
            }
        })
        .join()
        .unwrap();
        // The thread has ended; its time still counts.
        assert!(process_cpu_time().unwrap() >= reached);
    }
}
