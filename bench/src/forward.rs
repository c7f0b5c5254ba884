//! Forward-pass throughput: positions per second at a given batch size.

use model::sample::random_observations;
use model::{Inference, ModelError};
use std::time::{Duration, Instant};

/// Positions per second through [`Inference::forward_encoded`] (host-to-device copy, forward,
/// device-to-host copy; the encoding is done once beforehand) at batch size `batch`, measured for
/// about `duration` after a short warm-up. Inputs are real positions from random games.
pub fn forward_positions_per_sec(
    inference: &Inference,
    batch: usize,
    duration: Duration,
) -> Result<f64, ModelError> {
    let batch = batch.max(1);
    let encoding = inference.input();
    let mut input = vec![0.0; batch * encoding.size()];
    encoding.encode_batch_into(&random_observations(batch, 0x5eed), &mut input);
    for _ in 0..2 {
        inference.forward_encoded(&input)?;
    }
    let start = Instant::now();
    let mut calls = 0u64;
    while calls < 3 || start.elapsed() < duration {
        inference.forward_encoded(&input)?;
        calls += 1;
    }
    Ok((calls * batch as u64) as f64 / start.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{NetConfig, PolicyValueNet};
    use tch::Device;

    #[test]
    fn measures_a_positive_rate() {
        let inference =
            Inference::new(PolicyValueNet::new(&NetConfig::new(1, 8), Device::Cpu).unwrap(), false);
        assert!(forward_positions_per_sec(&inference, 4, Duration::from_millis(10)).unwrap() > 0.0);
    }
}
