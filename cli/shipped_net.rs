//! The shipped net: the strongest net this project has trained (`nets/default.safetensors`, its
//! provenance in `nets/README.md`), built into the binary so that a fresh clone or a copied binary
//! plays it without training. `play`, `serve`, `hub`, `bestmove` and `analyse` play it with MCTS
//! when no player is named. A sparse net, it runs natively (no libtorch).
//!
//! The search loads nets from files, so the first use writes the built-in bytes to the cache
//! folder (`$CHECKERS_ZERO_CACHE`, else `$XDG_CACHE_HOME/checkers-zero`, else
//! `~/.cache/checkers-zero`; the system's temporary folder when none is set), under
//! `nets/SHA/default.safetensors`. Every use checks the SHA-256 of the built-in bytes and of that
//! file against `nets/default.safetensors.sha256`: a damaged cached copy is written again, a
//! damaged build is an error.

use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The net's bytes, as committed.
const BYTES: &[u8] = include_bytes!("../nets/default.safetensors");
/// `sha256sum`'s line for the file: its SHA-256 in hex, then its name.
const SHA256_LINE: &str = include_str!("../nets/default.safetensors.sha256");
/// The name the net plays under (the checkpoint's file stem names an MCTS player).
const FILE_NAME: &str = "default.safetensors";

/// The SHA-256 the net must have, in lower-case hex.
fn expected_sha256() -> &'static str {
    SHA256_LINE.split_whitespace().next().unwrap_or_default()
}

/// The SHA-256 of `bytes`, in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The shipped net as a checkpoint file, written to the cache folder on first use, its SHA-256
/// checked.
pub fn checkpoint() -> Result<PathBuf> {
    let expected = expected_sha256();
    if sha256_hex(BYTES) != expected {
        bail!(
            "the shipped net built into this binary does not match its SHA-256 {expected} \
             (nets/default.safetensors.sha256): the build is damaged; rebuild from a clean checkout"
        );
    }
    let dir = cache_root().join("nets").join(&expected[..16]);
    let path = dir.join(FILE_NAME);
    // Read only when a regular file no bigger than the net: anything else is written anew.
    let copy = support::read_capped(&path, BYTES.len() as u64, "the shipped net's copy");
    if copy.is_ok_and(|bytes| sha256_hex(&bytes) == expected) {
        return Ok(path);
    }
    write_checked(&dir, &path, expected)
        .with_context(|| format!("writing the shipped net to {}", path.display()))?;
    Ok(path)
}

/// Writes the net to `path` in `dir` (a temporary file renamed into place, so that another
/// process never reads half a net) and checks what was written.
fn write_checked(dir: &Path, path: &Path, expected: &str) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let partial = dir.join(format!("{FILE_NAME}.partial-{}", std::process::id()));
    std::fs::write(&partial, BYTES)?;
    std::fs::rename(&partial, path)?;
    let written = sha256_hex(&std::fs::read(path)?);
    if written != expected {
        bail!("the copy has SHA-256 {written}, not {expected}");
    }
    Ok(())
}

/// The per-machine cache folder (where the endgame tables live by default), or the system's
/// temporary folder.
fn cache_root() -> PathBuf {
    egdb::default_dir()
        .as_deref()
        .and_then(Path::parent)
        .map_or_else(|| std::env::temp_dir().join("checkers-zero"), Path::to_path_buf)
}

/// The player `spec` names, or the shipped net with MCTS when it names none.
pub fn or_shipped(spec: Option<String>) -> Result<String> {
    match spec {
        Some(spec) => Ok(spec),
        None => Ok(format!("mcts:{}", checkpoint()?.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_net_matches_its_checksum_and_is_sparse() {
        assert_eq!(expected_sha256().len(), 64);
        assert_eq!(sha256_hex(BYTES), expected_sha256());
        let path = checkpoint().unwrap();
        assert!(sparsenet::is_sparse(&path), "{}", path.display());
        assert_eq!(std::fs::read(&path).unwrap(), BYTES);
    }

    #[test]
    fn a_damaged_cached_copy_is_written_again() {
        let path = checkpoint().unwrap();
        // Another process may be reading it: damage a copy in a folder of this test's own.
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join(FILE_NAME);
        std::fs::write(&copy, b"not the net").unwrap();
        write_checked(dir.path(), &copy, expected_sha256()).unwrap();
        assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(&path).unwrap());
    }

    #[test]
    fn sha256_of_a_known_text() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
