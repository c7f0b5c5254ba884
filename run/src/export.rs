//! `checkers-zero export`: a checkpoint as TorchScript, ONNX or safetensors for other engines, with
//! a JSON description beside it.

use anyhow::Result;
use model::ExportFormat;
use std::path::PathBuf;

/// What `checkers-zero export` writes.
pub struct ExportOptions {
    /// The checkpoint (.safetensors) to export.
    pub checkpoint: PathBuf,
    /// The format to write.
    pub format: ExportFormat,
    /// The file to write; its description goes to FILE.json.
    pub out: PathBuf,
}

/// `checkers-zero export`: a checkpoint as TorchScript, ONNX or safetensors, with its description.
pub fn export(options: ExportOptions) -> Result<()> {
    let description = model::export::export(&options.checkpoint, options.format, &options.out)?;
    println!("wrote {} and {}", options.out.display(), description.display());
    Ok(())
}
