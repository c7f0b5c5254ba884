//! `checkers-zero widen`: a trained sparse net with a wider accumulator that computes the same
//! outputs ([`model::widen_accumulator`]), so that a run can start small and grow its net.

use anyhow::{Context, Result};
use std::path::PathBuf;
use tch::Device;

/// What `checkers-zero widen` widens.
pub struct WidenOptions {
    /// The sparse checkpoint (.safetensors) to widen.
    pub checkpoint: PathBuf,
    /// The new accumulator width (above the checkpoint's).
    pub accumulator: usize,
    /// The file to write.
    pub out: PathBuf,
    /// Seed of the new units' random incoming weights.
    pub seed: u64,
}

/// `checkers-zero widen`: reads the checkpoint, widens its accumulator, writes the wider net.
pub fn widen(options: WidenOptions) -> Result<()> {
    let narrow = model::checkpoint::load(&options.checkpoint, None, Device::Cpu)?;
    tch::manual_seed(options.seed as i64);
    let wide = model::widen_accumulator(&narrow.net, options.accumulator)
        .with_context(|| format!("widening {}", options.checkpoint.display()))?;
    let parent = options.checkpoint.file_name().map(|name| name.to_string_lossy().into_owned());
    let step = narrow.meta.step;
    model::checkpoint::save(&options.out, &wide, step, parent.as_deref(), &Default::default())?;
    println!(
        "wrote {}: {} widened to an accumulator of {} (step {step}; the same outputs)",
        options.out.display(),
        options.checkpoint.display(),
        options.accumulator
    );
    Ok(())
}
