//! The JSON description written beside every export: input planes, policy index and output layout,
//! enough for another engine's author to use the net without reading this code.

use super::ExportFormat;
use crate::checkpoint::CheckpointMeta;
use crate::encoding::{NO_PROGRESS_SCALE_PLIES, PLANES, PLANE_NAMES};
use crate::net::{MOVES_LEFT_OFFSET, OUTPUT_SIZE, WDL_OFFSET};
use crate::policy::{DIRECTIONS, POLICY_SIZE};
use netfile::NetConfig;
use serde_json::{json, Value};
use sparsenet::features::{FEATURES, GROUPS, NO_PROGRESS_BUCKETS, NO_PROGRESS_BUCKET_PLIES};

/// The frame both families' inputs are in.
const FRAME: &str = "the side to move's point of view: for White the board is turned 180 degrees, so row 0 is always the mover's back rank and its men move towards row 7";

/// The ResNet's input planes.
fn planes_input() -> Value {
    let planes: Vec<Value> = PLANE_NAMES
        .iter()
        .enumerate()
        .map(|(i, (name, meaning))| json!({"index": i, "name": name, "meaning": meaning}))
        .collect();
    json!({
        "name": super::onnx::INPUT_NAME,
        "dtype": "float32",
        "shape": ["batch", PLANES, 8, 8],
        "layout": "plane-major: value[b][plane][row][column]",
        "frame": FRAME,
        "board": "square s (0..32) of the mover's frame is at row s / 4, column 2 * (s % 4) + 1 on even rows and 2 * (s % 4) on odd rows; s = PDN - 1 when Black moves, s = 32 - PDN when White moves. Piece planes are 0 on light squares; constant planes fill all 64 cells",
        "no_progress_scale_plies": NO_PROGRESS_SCALE_PLIES,
        "planes": planes,
    })
}

/// The sparse net's input features.
fn features_input() -> Value {
    let groups: Vec<Value> = GROUPS
        .iter()
        .map(|(name, start, count, meaning)| {
            json!({"name": name, "start": start, "end": start + count, "meaning": meaning})
        })
        .collect();
    json!({
        "name": super::onnx::INPUT_NAME,
        "dtype": "float32",
        "shape": ["batch", FEATURES],
        "layout": "one 0/1 value per feature; a piece-square feature is group start + s",
        "frame": FRAME,
        "board": "square s (0..32) of the mover's frame: s = PDN - 1 when Black moves, s = 32 - PDN when White moves",
        "no_progress_bucket_plies": NO_PROGRESS_BUCKET_PLIES,
        "no_progress_buckets": NO_PROGRESS_BUCKETS,
        "groups": groups,
    })
}

/// The value stacks of a sparse net (1 for a ResNet).
fn buckets(meta: &CheckpointMeta) -> usize {
    match &meta.config {
        NetConfig::Sparse(sparse) => sparse.buckets,
        NetConfig::Resnet(_) => 1,
    }
}

/// The description of a net exported as `format` into the file named `file`.
pub(crate) fn description(meta: &CheckpointMeta, format: ExportFormat, file: &str) -> Value {
    let (network, input) = match meta.config {
        NetConfig::Resnet(_) => (super::RESNET_TEXT, planes_input()),
        NetConfig::Sparse(_) => (super::SPARSE_TEXT, features_input()),
    };
    let directions: Vec<Value> = DIRECTIONS
        .iter()
        .enumerate()
        .map(|(i, (name, (dr, dc)))| json!({"index": i, "name": name, "row_delta": dr, "column_delta": dc}))
        .collect();
    json!({
        "file": file,
        "format": format.to_string(),
        "producer": format!("checkers-zero {}", env!("CARGO_PKG_VERSION")),
        "game": "English draughts / American checkers (8x8, men capture forward only, kings move one square)",
        "encoding_version": meta.encoding_version,
        "training_step": meta.step,
        "architecture": meta.config,
        "family": meta.config.family().to_string(),
        "network": network,
        "quantised": (format == ExportFormat::Quantised).then(|| json!({
            "magic": if buckets(meta) == 1 { "CZQNET01" } else { "CZQNET02" },
            "layout": "little-endian: magic, 4 u32 (features, accumulator, acc_shift, layers), in CZQNET02 a u32 buckets K, i16 columns [features][accumulator], i16 bias, then K stacks (bucket 0's first) of the dense layers (hidden ones, then WDL): u32 inputs, outputs, shift, i16 weights [outputs][inputs], i32 bias; u32 CRC32 of all before (docs/export.md)",
            "evaluation": "x = clamp(bias + columns of the active features, 0, 2^acc_shift); stack = floor(min(pieces on the board, 24) * K / 25); its hidden layers: clamp((b + W x) >> shift, 0, 2^acc_shift); its wdl logits = (b + W x) / 2^(acc_shift + shift)",
        })),
        "input": input,
        "policy_index": {
            "size": POLICY_SIZE,
            "formula": "index = 4 * square + direction, both in the mover's frame (see input.board)",
            "unit": "one step: a simple move, or one jump of a capture. A multi-jump is several consecutive decisions by the same side, each with its own net call (the moving_piece and captured_so_far inputs show the capture in progress)",
            "directions": directions,
            "masking": "the net does not mask: take the logits of the legal steps only and softmax over them",
        },
        "output": {
            "name": super::onnx::OUTPUT_NAME,
            "dtype": "float32",
            "shape": ["batch", OUTPUT_SIZE],
            "fields": [
                {"name": "policy_logits", "start": 0, "end": POLICY_SIZE, "meaning": "logits over policy_index"},
                {"name": "wdl_logits", "start": WDL_OFFSET, "end": WDL_OFFSET + 3, "meaning": "win, draw, loss for the side to move; softmax them; value = P(win) - P(loss)"},
                {"name": "moves_left", "start": MOVES_LEFT_OFFSET, "end": OUTPUT_SIZE, "meaning": "predicted plies (decisions) to the end of the game"},
            ],
        },
    })
}
