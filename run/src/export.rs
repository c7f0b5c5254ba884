//! `checkers-zero export`: a checkpoint as TorchScript, ONNX or safetensors for other engines, with
//! a JSON description beside it.

use anyhow::Result;
use cli::net_commands::ExportArgs;
use model::ExportFormat;

/// `checkers-zero export`: a checkpoint as TorchScript, ONNX or safetensors, with its description.
pub fn run(args: ExportArgs) -> Result<()> {
    let format: ExportFormat = args.format.parse().map_err(anyhow::Error::msg)?;
    let description = model::export::export(&args.checkpoint, format, &args.out)?;
    println!("wrote {} and {}", args.out.display(), description.display());
    Ok(())
}
