//! `checkers-zero average`: several checkpoints of one net architecture averaged, weight by
//! weight, into one (stochastic weight averaging over a run's late nets, which lie close together
//! once its learning rate has dropped). A ResNet's batch-norm running statistics are averaged too,
//! not recomputed.

use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use std::path::PathBuf;
use tch::{Device, Kind, Tensor};

/// What `checkers-zero average` averages.
pub struct AverageOptions {
    /// The checkpoints (.safetensors) to average: at least two, of one architecture.
    pub checkpoints: Vec<PathBuf>,
    /// Each checkpoint's weight (finite, >= 0, not all 0; normalised to sum 1), or equal weights.
    pub weights: Option<Vec<f64>>,
    /// The file to write.
    pub out: PathBuf,
}

/// `checkers-zero average`: reads the checkpoints, checks they share an architecture, writes their
/// weighted mean. Its step is the largest of theirs.
pub fn average(options: AverageOptions) -> Result<()> {
    let shares = shares(options.checkpoints.len(), options.weights.as_deref())?;
    let load = |path: &PathBuf| model::checkpoint::load(path, None, Device::Cpu);
    let first = load(&options.checkpoints[0])?;
    let mut step = first.meta.step;
    let mut others = Vec::new();
    for path in &options.checkpoints[1..] {
        let other = load(path)?;
        if other.meta.config != first.meta.config {
            bail!(
                "average: {} is a {} and {} a {}; only nets of one architecture average",
                options.checkpoints[0].display(),
                first.meta.config.short_name(),
                path.display(),
                other.meta.config.short_name()
            );
        }
        step = step.max(other.meta.step);
        others.push(other.net.var_store().variables());
    }
    tch::no_grad(|| -> Result<()> {
        for (name, mut var) in first.net.var_store().variables() {
            if !var.is_floating_point() {
                continue;
            }
            let mut sum = var.to_kind(Kind::Double) * shares[0];
            for (vars, share) in others.iter().zip(&shares[1..]) {
                sum += tensor(vars, &name)?.to_kind(Kind::Double) * *share;
            }
            var.copy_(&sum.to_kind(var.kind()));
        }
        Ok(())
    })?;
    let names: Vec<String> = options
        .checkpoints
        .iter()
        .map(|p| p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()))
        .collect();
    let parent = names.join(" + ");
    model::checkpoint::save(&options.out, &first.net, step, Some(&parent), &Default::default())?;
    let listed: Vec<String> =
        names.iter().zip(&shares).map(|(name, share)| format!("{name} x {share:.3}")).collect();
    println!(
        "wrote {}: a {} averaged from {} (step {step})",
        options.out.display(),
        first.meta.config.short_name(),
        listed.join(", ")
    );
    Ok(())
}

/// Each checkpoint's share of the mean: the weights given, normalised, or equal shares.
fn shares(count: usize, weights: Option<&[f64]>) -> Result<Vec<f64>> {
    if count < 2 {
        bail!("average: give at least two checkpoints (got {count})");
    }
    let Some(weights) = weights else {
        return Ok(vec![1.0 / count as f64; count]);
    };
    if weights.len() != count {
        bail!("average: --weights gives {} weights for {count} checkpoints", weights.len());
    }
    if let Some(bad) = weights.iter().find(|w| !w.is_finite() || **w < 0.0) {
        bail!("average: --weights: {bad} is not a finite number >= 0");
    }
    let total: f64 = weights.iter().sum();
    if total <= 0.0 {
        bail!("average: --weights are all 0");
    }
    Ok(weights.iter().map(|w| w / total).collect())
}

/// The variable `name` of another checkpoint's net (the architectures match, so it is there).
fn tensor<'a>(vars: &'a HashMap<String, Tensor>, name: &str) -> Result<&'a Tensor> {
    vars.get(name).with_context(|| format!("average: a checkpoint has no tensor {name}"))
}

#[cfg(test)]
mod tests {
    use super::shares;

    #[test]
    fn shares_are_equal_or_the_weights_normalised() {
        assert_eq!(shares(4, None).unwrap(), vec![0.25; 4]);
        assert_eq!(shares(2, Some(&[3.0, 1.0])).unwrap(), vec![0.75, 0.25]);
        for (count, weights, says) in [
            (1, None, "at least two"),
            (2, Some(&[1.0][..]), "1 weights for 2"),
            (2, Some(&[1.0, -1.0][..]), "-1 is not"),
            (2, Some(&[1.0, f64::NAN][..]), "NaN is not"),
            (2, Some(&[0.0, 0.0][..]), "all 0"),
        ] {
            let err = shares(count, weights).unwrap_err().to_string();
            assert!(err.contains(says), "{err}");
        }
    }
}
