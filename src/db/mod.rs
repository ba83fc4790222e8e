//! The database file: header, reader and writer.
//!
//! The layout is a public contract, specified byte by byte in `format-spec.md`:
//! a 4096-byte little-endian header, then the records: little-endian `u64`s,
//! sorted strictly ascending, each a canonical state key in the high bits and
//! its value in the low bits (see [`crate::core::RecordLayout`]), or one byte per key in
//! the dense layout. This layer knows games only through the core
//! [`Game`](crate::core::Game) trait: [`check_header`] checks a header
//! against the game a caller sets up (the registry does, on opening), and
//! checking every value against the game's rules is `analysis::verify`'s.

mod check;
#[cfg(feature = "engine")]
mod direct;
pub mod header;
pub(crate) mod mapguard;
#[cfg(feature = "engine")]
pub mod pack;
pub mod packed;
pub(crate) mod ranges;
pub(crate) mod reader;
#[cfg(feature = "engine")]
pub mod writer;

use std::path::PathBuf;

pub(crate) use check::check_header;
pub(crate) use header::Header;
pub use ranges::RangeFile;
pub use reader::Database;
#[cfg(feature = "engine")]
pub use writer::{file_size, write_database};

/// What a path that is not a regular file is, for messages.
pub(crate) fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a file"
    }
}

/// Everything that can be wrong with a database file or its use.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The file could not be opened, read, mapped or written.
    #[error("{error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error (shown without the path: callers name the
        /// file in their own context).
        error: std::io::Error,
    },
    /// The path is a directory, a device, a named pipe or some other
    /// non-file.
    #[error("{kind}, not a regular file")]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is (`a directory`, `a named pipe`, ...).
        kind: &'static str,
    },
    /// The directory a file is to be written in is missing or is not a
    /// directory.
    #[error("{}: {problem}", dir.display())]
    NoDirectory {
        /// The file to write.
        path: PathBuf,
        /// Its directory.
        dir: PathBuf,
        /// `no such directory`, or what the path is instead.
        problem: String,
    },
    /// A file read by ranges lacks bytes the open needs: its host is to
    /// supply them (see [`RangeFile::take_wanted`]).
    #[error("bytes {start} to {end} of the file are not loaded yet")]
    NotLoaded {
        /// The first byte wanted.
        start: u64,
        /// The end of the bytes wanted.
        end: u64,
    },
    /// The file is shorter than a header.
    #[error(
        "file is {len} bytes, shorter than the {} byte header: truncated or not a database",
        header::HEADER_SIZE
    )]
    TooSmall {
        /// The file's length.
        len: u64,
    },
    /// The file does not start with the magic bytes.
    #[error("not a boardsolve database (bad magic bytes)")]
    BadMagic,
    /// The format version is not one this build reads.
    #[error(
        "unsupported format version {found} (this build reads versions {} and {})",
        header::FORMAT_VERSION,
        header::PACKED_FORMAT_VERSION
    )]
    UnsupportedVersion {
        /// The version in the file.
        found: u32,
    },
    /// The byte-order mark is wrong.
    #[error("bad byte-order mark {found:#010x}: not a little-endian boardsolve database")]
    ByteOrder {
        /// The mark found.
        found: u32,
    },
    /// The header checksum does not match.
    #[error("header checksum mismatch (stored {stored:#018x}, computed {computed:#018x}): the header is corrupted")]
    HeaderChecksum {
        /// Checksum stored in the file.
        stored: u64,
        /// Checksum of the header bytes.
        computed: u64,
    },
    /// A header field holds an impossible value.
    #[error("invalid header field `{field}`: {reason}")]
    HeaderField {
        /// The field's name.
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The file size disagrees with the record count.
    #[error("file is {actual} bytes but its header promises {expected}: truncated or padded")]
    Size {
        /// Size implied by the header.
        expected: u64,
        /// Actual size.
        actual: u64,
    },
    /// The records checksum does not match.
    #[error("records checksum mismatch: the records are corrupted")]
    RecordsChecksum,
    /// The database is not of the game the caller asked for.
    #[error("database holds {found}, not {expected}")]
    WrongGame {
        /// What the caller asked for.
        expected: String,
        /// What the file holds.
        found: String,
    },
    /// A block of a packed file is damaged (a checksum mismatch, or content
    /// that breaks the format).
    #[error("{0}")]
    Corrupted(#[from] crate::core::Corrupted),
    /// The work was cancelled (see [`crate::core::Progress::cancelled`]).
    #[error("interrupted")]
    Interrupted,
    /// The file could not be guarded against shrinking while mapped.
    #[error("{0}")]
    Guard(#[from] mapguard::GuardError),
    /// A record breaks an invariant (found by verification).
    #[error("record {index} (key {key:#x}): {reason}")]
    BadRecord {
        /// Index of the record.
        index: u64,
        /// Its key.
        key: u64,
        /// What is wrong.
        reason: String,
    },
}

impl From<packed::Unpacking> for DbError {
    fn from(e: packed::Unpacking) -> DbError {
        match e {
            packed::Unpacking::Corrupted(c) => DbError::Corrupted(c),
            packed::Unpacking::Stopped => DbError::Interrupted,
        }
    }
}
