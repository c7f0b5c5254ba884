//! `checkers-zero widen`: a trained sparse net grown so that it computes the same outputs: a
//! wider accumulator ([`model::widen_accumulator`]) and/or a value stack per bucket of material
//! ([`model::split_value_stacks`]), so that a run can start small and grow its net.

use anyhow::{Context, Result};
use std::path::PathBuf;
use tch::Device;

/// What `checkers-zero widen` grows.
pub struct WidenOptions {
    /// The sparse checkpoint (.safetensors) to grow.
    pub checkpoint: PathBuf,
    /// The new accumulator width (above the checkpoint's), if it widens.
    pub accumulator: Option<usize>,
    /// The value stacks to split the checkpoint's one into, if it splits.
    pub buckets: Option<usize>,
    /// The file to write.
    pub out: PathBuf,
    /// Seed of the new units' random incoming weights.
    pub seed: u64,
}

/// `checkers-zero widen`: reads the checkpoint, widens its accumulator and/or splits its value
/// stack, writes the grown net.
pub fn widen(options: WidenOptions) -> Result<()> {
    let small = model::checkpoint::load(&options.checkpoint, None, Device::Cpu)?;
    tch::manual_seed(options.seed as i64);
    let grow = || -> Result<Option<model::PolicyValueNet>, model::ModelError> {
        let mut grown = None;
        if let Some(accumulator) = options.accumulator {
            grown = Some(model::widen_accumulator(&small.net, accumulator)?);
        }
        if let Some(buckets) = options.buckets {
            let net = grown.as_ref().unwrap_or(&small.net);
            grown = Some(model::split_value_stacks(net, buckets)?);
        }
        Ok(grown)
    };
    let grown = grow().with_context(|| format!("growing {}", options.checkpoint.display()))?;
    let Some(grown) = grown else {
        anyhow::bail!("widen: nothing to grow; give --accumulator and/or --buckets");
    };
    let parent = options.checkpoint.file_name().map(|name| name.to_string_lossy().into_owned());
    let step = small.meta.step;
    model::checkpoint::save(&options.out, &grown, step, parent.as_deref(), &Default::default())?;
    println!(
        "wrote {}: {} ({}) grown to a {} (step {step}; the same outputs)",
        options.out.display(),
        options.checkpoint.display(),
        small.meta.config.short_name(),
        grown.config().short_name()
    );
    Ok(())
}
