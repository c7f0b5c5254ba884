//! The errors of building and loading tables. Each names the file once; an I/O failure keeps the
//! operating system's error as its source instead of repeating it.

use std::path::PathBuf;

/// Why a table could not be built, written or loaded.
#[derive(Debug, thiserror::Error)]
pub enum EgdbError {
    /// Reading, writing, renaming or mapping a file (or making the folder) failed.
    #[error("{}: cannot {action}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What was being done, e.g. "read" or "create the folder".
        action: &'static str,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file does not start with the table magic: not an endgame table of this project.
    #[error("{}: not a checkers-zero endgame table (unknown file header)", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
    },
    /// A table of another format version.
    #[error("{}: table format version {found}, but this program reads version {expected}", path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
        /// The version this program writes and reads.
        expected: u32,
    },
    /// The file is shorter or longer than its header says.
    #[error("{}: {found} bytes, but its header says {expected}: truncated or damaged", path.display())]
    Length {
        /// The file.
        path: PathBuf,
        /// The length the header implies.
        expected: u64,
        /// The file's length.
        found: u64,
    },
    /// The header or the data does not match its checksum.
    #[error("{}: the {part} does not match its checksum: the file is damaged", path.display())]
    Checksum {
        /// The file.
        path: PathBuf,
        /// "header" or "data".
        part: &'static str,
    },
    /// The header is intact but describes another table than the file name says.
    #[error("{}: the header describes {found}, but the file name asks for {expected}", path.display())]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// What the file name implies.
        expected: String,
        /// What the header says.
        found: String,
    },
    /// Tables cover 1 to 6 pieces.
    #[error("endgame tables cover 1 to {max} pieces, not {requested}")]
    Pieces {
        /// The number asked for.
        requested: u32,
        /// The most this program builds.
        max: u32,
    },
}

/// A table file that could not be put in place (its writing, flush or rename).
impl From<support::WriteError> for EgdbError {
    fn from(error: support::WriteError) -> Self {
        EgdbError::io(error.path, "write into place", error.source)
    }
}

impl EgdbError {
    /// An I/O error on `path` while doing `action`.
    pub(crate) fn io(
        path: impl Into<PathBuf>,
        action: &'static str,
        source: std::io::Error,
    ) -> Self {
        EgdbError::Io { path: path.into(), action, source }
    }
}
