//! `checkers-zero export`: a checkpoint as TorchScript, ONNX or safetensors for other engines, with
//! a JSON description beside it.

use anyhow::Result;
use clap::Args;
use model::ExportFormat;
use std::path::PathBuf;

#[derive(Args)]
pub struct ExportArgs {
    /// The checkpoint (.safetensors) to export.
    checkpoint: PathBuf,
    /// torchscript, onnx or safetensors.
    #[arg(long)]
    format: ExportFormat,
    /// The file to write; its description goes to FILE.json.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

pub fn run(args: ExportArgs) -> Result<()> {
    let description = model::export::export(&args.checkpoint, args.format, &args.out)?;
    println!("wrote {} and {}", args.out.display(), description.display());
    Ok(())
}
