//! Writing a database atomically.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::header::{Header, FLAG_COMPLETE};
use super::layout::{LayoutKind, RecordLayout};
use super::{Database, DbError};
use crate::game::GameDescriptor;
use crate::solver::dense::DenseSolution;
use crate::solver::Solution;

/// What a database file holds: a solution in one of the two layouts.
#[derive(Clone, Copy, Debug)]
pub enum Payload<'a> {
    /// Sorted `u64` records.
    Sorted(&'a Solution),
    /// One byte per key.
    Dense(&'a DenseSolution),
}

impl<'a> From<&'a Solution> for Payload<'a> {
    fn from(s: &'a Solution) -> Self {
        Payload::Sorted(s)
    }
}

impl<'a> From<&'a DenseSolution> for Payload<'a> {
    fn from(s: &'a DenseSolution) -> Self {
        Payload::Dense(s)
    }
}

impl Payload<'_> {
    /// The record bytes, little-endian.
    pub fn bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        match self {
            Payload::Sorted(s) => record_bytes(&s.records),
            Payload::Dense(d) => std::borrow::Cow::Borrowed(d.bytes()),
        }
    }

    /// The number of records (entries of a dense table).
    pub fn record_count(&self) -> u64 {
        match self {
            Payload::Sorted(s) => s.records.len() as u64,
            Payload::Dense(d) => d.bytes().len() as u64,
        }
    }

    /// The layout kind.
    pub fn kind(&self) -> LayoutKind {
        match self {
            Payload::Sorted(_) => LayoutKind::Sorted,
            Payload::Dense(_) => LayoutKind::Dense,
        }
    }

    /// The record layout.
    pub fn layout(&self) -> RecordLayout {
        match self {
            Payload::Sorted(s) => s.layout,
            Payload::Dense(d) => d.layout,
        }
    }

    /// The canonical start state.
    pub fn start(&self) -> u64 {
        match self {
            Payload::Sorted(s) => s.start,
            Payload::Dense(d) => d.start,
        }
    }

    /// The size of the file it makes.
    pub fn file_size(&self) -> u64 {
        super::header::HEADER_SIZE as u64 + self.record_count() * self.kind().record_size()
    }
}

/// The little-endian bytes of the records.
fn record_bytes(records: &[u64]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        std::borrow::Cow::Borrowed(bytemuck::cast_slice(records))
    } else {
        std::borrow::Cow::Owned(records.iter().flat_map(|r| r.to_le_bytes()).collect())
    }
}

/// XXH3-128 of a database file's records, read in blocks.
fn records_checksum(path: &Path) -> Result<u128, DbError> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |error| DbError::Io {
        path: path.to_path_buf(),
        error,
    };
    let mut f = File::open(path).map_err(io)?;
    f.seek(SeekFrom::Start(super::header::HEADER_SIZE as u64))
        .map_err(io)?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        hasher.update(&buf[..n]);
    }
    Ok(hasher.digest128())
}

/// The header describing a solution of a game.
pub fn header_for(desc: &GameDescriptor, solution: Payload<'_>) -> Header {
    Header {
        game_id: desc.id,
        flags: FLAG_COMPLETE,
        game_name: desc.name.to_owned(),
        variant: desc.variant.clone(),
        kind: solution.kind(),
        layout: solution.layout(),
        record_count: solution.record_count(),
        records_checksum: xxhash_rust::xxh3::xxh3_128(&solution.bytes()),
        start_key: solution.start(),
        generator: format!("boardsolve {}", crate::VERSION),
    }
}

/// Writes `solution` of the game `desc` to `path` atomically.
///
/// The data goes to a temporary file named `.NAME.tmp-XXXXXX` in the same
/// directory, which is flushed, fsynced, reopened and checksummed, then renamed
/// over `path`, and the directory is fsynced. On any error the temporary file
/// is removed and an existing file at `path` is left untouched.
pub fn write_database<'a>(
    path: &Path,
    desc: &GameDescriptor,
    solution: impl Into<Payload<'a>>,
) -> Result<(), DbError> {
    let solution = solution.into();
    let header = header_for(desc, solution);
    let header_bytes = header.encode()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "database".into());
    let io_at = |p: &Path| {
        let p = p.to_path_buf();
        move |error| DbError::Io { path: p, error }
    };
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}.tmp-"))
        .tempfile_in(&dir)
        .map_err(io_at(&dir))?;
    let tmp_path = tmp.path().to_path_buf();
    {
        let mut w = BufWriter::with_capacity(1 << 20, tmp.as_file());
        w.write_all(&header_bytes).map_err(io_at(&tmp_path))?;
        w.write_all(&solution.bytes()).map_err(io_at(&tmp_path))?;
        w.flush().map_err(io_at(&tmp_path))?;
    }
    // Temporary files are private (0600); a published database is for every
    // reader: keep the mode of the file it replaces, else rw-r--r--.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(io_at(&tmp_path))?;
    }
    tmp.as_file().sync_all().map_err(io_at(&tmp_path))?;
    // Read back what reached the disk before publishing it: the header
    // through the reader's validation, the records by plain reads (mapping
    // them would add the whole file to our resident memory, next to the
    // solution that is still there).
    let check = Database::open(&tmp_path)?;
    if check.header() != &header {
        return Err(DbError::HeaderField {
            field: "header",
            reason: "the written header does not read back identically".into(),
        });
    }
    drop(check);
    if records_checksum(&tmp_path)? != header.records_checksum {
        return Err(DbError::RecordsChecksum);
    }
    tmp.persist(path).map_err(|e| DbError::Io {
        path: path.to_path_buf(),
        error: e.error,
    })?;
    // Make the rename itself durable.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
