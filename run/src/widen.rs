//! `checkers-zero widen`: a trained sparse net with a wider accumulator that computes the same
//! outputs ([`model::widen_accumulator`]), so that a run can start small and grow its net.

use anyhow::{Context, Result};
use cli::net_commands::WidenArgs;
use tch::Device;

/// `checkers-zero widen`: reads the checkpoint, widens its accumulator, writes the wider net.
pub fn run(args: WidenArgs) -> Result<()> {
    let narrow = model::checkpoint::load(&args.checkpoint, None, Device::Cpu)?;
    tch::manual_seed(args.seed as i64);
    let wide = model::widen_accumulator(&narrow.net, args.accumulator)
        .with_context(|| format!("widening {}", args.checkpoint.display()))?;
    let parent = args.checkpoint.file_name().map(|name| name.to_string_lossy().into_owned());
    let step = narrow.meta.step;
    model::checkpoint::save(&args.out, &wide, step, parent.as_deref(), &Default::default())?;
    println!(
        "wrote {}: {} widened to an accumulator of {} (step {step}; the same outputs)",
        args.out.display(),
        args.checkpoint.display(),
        args.accumulator
    );
    Ok(())
}
