//! Writing a database atomically.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::header::{Header, FLAG_COMPLETE};
use super::{Database, DbError};
use crate::game::GameDescriptor;
use crate::solver::Solution;

/// The little-endian bytes of the records.
fn record_bytes(records: &[u64]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        std::borrow::Cow::Borrowed(bytemuck::cast_slice(records))
    } else {
        std::borrow::Cow::Owned(records.iter().flat_map(|r| r.to_le_bytes()).collect())
    }
}

/// The header describing a solution of a game.
pub fn header_for(desc: &GameDescriptor, solution: &Solution) -> Header {
    Header {
        game_id: desc.id,
        flags: FLAG_COMPLETE,
        game_name: desc.name.to_owned(),
        variant: desc.variant.clone(),
        layout: solution.layout,
        record_count: solution.records.len() as u64,
        records_checksum: xxhash_rust::xxh3::xxh3_128(&record_bytes(&solution.records)),
        start_key: solution.start,
        generator: format!("boardsolve {}", crate::VERSION),
    }
}

/// Writes `solution` of the game `desc` to `path` atomically.
///
/// The data goes to a temporary file named `.NAME.tmp-XXXXXX` in the same
/// directory, which is flushed, fsynced, reopened and checksummed, then renamed
/// over `path`, and the directory is fsynced. On any error the temporary file
/// is removed and an existing file at `path` is left untouched.
pub fn write_database(
    path: &Path,
    desc: &GameDescriptor,
    solution: &Solution,
) -> Result<(), DbError> {
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
        w.write_all(&record_bytes(&solution.records))
            .map_err(io_at(&tmp_path))?;
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
    // Read back what reached the disk before publishing it.
    let check = Database::open(&tmp_path)?;
    check.verify_checksum()?;
    if check.header() != &header {
        return Err(DbError::HeaderField {
            field: "header",
            reason: "the written header does not read back identically".into(),
        });
    }
    drop(check);
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
