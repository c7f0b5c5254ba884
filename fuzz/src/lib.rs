//! What the fuzz targets share: a scratch folder for inputs that must be files to reach the code
//! users run, and positions reached by a walk of legal moves that the input's bytes choose.

use draughts::Position;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// This process's scratch folder, under the temporary folder (`scripts/fuzz` points `TMPDIR` at
/// one it removes afterwards).
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("checkers-zero-fuzz-")
            .tempdir()
            .expect("a scratch folder");
        dir.keep()
    })
}

/// Writes `bytes` as the file `name` of the scratch folder (replacing it) and returns its path.
pub fn scratch_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = scratch().join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("a scratch sub-folder");
    }
    std::fs::write(&path, bytes).expect("a scratch file");
    path
}

/// The positions of a game from the initial position in which byte `i` picks move `i` (modulo the
/// legal moves); it ends when the bytes do or no move is left. The first is the initial position.
pub fn walk(bytes: &[u8]) -> Vec<Position> {
    let mut positions = vec![Position::start()];
    for &byte in bytes {
        let position = *positions.last().expect("at least the start");
        let moves = position.legal_moves();
        if moves.is_empty() {
            break;
        }
        positions.push(position.play(moves[byte as usize % moves.len()]));
    }
    positions
}

/// Splits `data` into a walk's bytes (as many as its first byte says) and the rest.
pub fn walk_then_rest(data: &[u8]) -> (Position, &[u8]) {
    let Some((&plies, rest)) = data.split_first() else { return (Position::start(), data) };
    let (path, rest) = rest.split_at((plies as usize).min(rest.len()));
    (*walk(path).last().expect("at least the start"), rest)
}
