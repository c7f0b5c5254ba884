//! Raw forward passes timed beside self-play's own: on the worker's thread, with its net, at the
//! same moments, so machine load and thread setting are the same for both sides of the ratio.

use model::sample::random_observations;
use model::NetEvaluator;
use search::{EvalError, EvalRequest, Evaluation, Evaluator};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Every this many evaluator calls (from the first), one raw forward at the call's batch size,
/// and (half-way between) one at the running mean batch size.
pub const RAW_FORWARD_EVERY: u64 = 8;

/// Raw forward passes of one kind: positions and time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timed {
    pub positions: u64,
    pub time: Duration,
}

impl Timed {
    pub fn per_sec(&self) -> f64 {
        self.positions as f64 / self.time.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    fn add(&mut self, other: Timed) {
        self.positions += other.positions;
        self.time += other.time;
    }
}

/// The raw forward passes of all workers.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawForwardTotals {
    /// Repeats of self-play's own batches (the very same encoded inputs).
    pub same_batch: Timed,
    /// Batches of the running mean size (positions from random games).
    pub mean_batch: Timed,
}

impl RawForwardTotals {
    /// Time the workers spent in raw forward passes (to be taken out of self-play's own time).
    pub fn time(&self) -> Duration {
        self.same_batch.time + self.mean_batch.time
    }
}

/// A [`NetEvaluator`] that now and then repeats a forward pass untouched by the search, and adds
/// the timings into shared totals when dropped.
pub struct RawForwardTimer<'a> {
    inner: NetEvaluator,
    /// Encoded positions for the mean-size passes (`max_batch` positions of the net's input).
    mean_input: Vec<f32>,
    calls: u64,
    positions: u64,
    own: RawForwardTotals,
    totals: &'a Mutex<RawForwardTotals>,
}

impl<'a> RawForwardTimer<'a> {
    /// `max_batch`: the largest batch the worker can ask for.
    pub fn new(
        inner: NetEvaluator,
        max_batch: usize,
        totals: &'a Mutex<RawForwardTotals>,
    ) -> RawForwardTimer<'a> {
        let input = inner.net().input();
        let mut mean_input = vec![0.0; max_batch * input.size()];
        input.encode_batch_into(&random_observations(max_batch, 0x5eed), &mut mean_input);
        RawForwardTimer {
            inner,
            mean_input,
            calls: 0,
            positions: 0,
            own: RawForwardTotals::default(),
            totals,
        }
    }

    fn time_forward(&self, input: &[f32]) -> Result<Duration, EvalError> {
        let start = Instant::now();
        let batch = input.len() / self.inner.net().input().size();
        self.inner.net().forward_encoded(input).map_err(|e| EvalError::new(batch, e))?;
        Ok(start.elapsed())
    }
}

impl Evaluator for RawForwardTimer<'_> {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        let evaluations = self.inner.evaluate(requests)?;
        self.calls += 1;
        self.positions += requests.len() as u64;
        if self.calls % RAW_FORWARD_EVERY == 1 {
            let time = self.time_forward(self.inner.last_input())?;
            self.own.same_batch.add(Timed { positions: requests.len() as u64, time });
        } else if self.calls % RAW_FORWARD_EVERY == 1 + RAW_FORWARD_EVERY / 2 {
            let size = self.inner.net().input().size();
            let batch = ((self.positions as f64 / self.calls as f64).round() as usize)
                .clamp(1, self.mean_input.len() / size);
            let time = self.time_forward(&self.mean_input[..batch * size])?;
            self.own.mean_batch.add(Timed { positions: batch as u64, time });
        }
        Ok(evaluations)
    }
}

impl Drop for RawForwardTimer<'_> {
    fn drop(&mut self) {
        let mut totals = self.totals.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        totals.same_batch.add(self.own.same_batch);
        totals.mean_batch.add(self.own.mean_batch);
    }
}
