//! Writing a database atomically.
//!
//! [`write_database`] never exposes a partial file under the final name: it
//! writes a temporary file beside the target, named
//! `.NAME.tmp-PID-XXXXXX` (`NAME` the target's file name, `PID` the writer's
//! process id, `XXXXXX` six random letters and digits), fsyncs it, reads it
//! back, and only then renames it over the target (an atomic replacement: a
//! reader that opens the path sees the old file or the new one, whole) and
//! fsyncs the directory. A reader that already has the old file open keeps
//! reading the old file.
//!
//! If the writer is killed (SIGKILL, power loss) before the rename, the target
//! is untouched and the temporary file stays behind. The next
//! [`write_database`] to the same target removes such leftovers
//! ([`remove_stale_temporaries`]): on Linux, a `.NAME.tmp-PID-XXXXXX` file
//! whose `PID` is not a running process and that no process holds locked.
//! The writer also holds an exclusive lock on its temporary file while it
//! works (from just after creating it), so a live writer's file is not taken
//! for a stale one even if its process id is not visible here (another PID
//! namespace on the same machine). Were a live writer's file removed all the
//! same, that writer would fail with an error before its rename, leaving the
//! target untouched. Elsewhere than on Linux, leftovers are left alone; their
//! names mark them as temporary.

use std::borrow::Cow;
use std::fs::File;
use std::path::{Path, PathBuf};

use super::header::{Header, FLAG_COMPLETE};
use super::{Database, DbError};
use crate::core::{GameDescriptor, LayoutKind, RecordLayout, Solved};

/// The record bytes of a solved game as the file stores them,
/// little-endian.
pub(crate) fn record_bytes(solved: &Solved) -> Cow<'_, [u8]> {
    match solved {
        Solved::Sorted(s) => sorted_bytes(&s.records),
        Solved::Dense(d) => Cow::Borrowed(d.bytes()),
    }
}

/// The size of the file that holds `solved`.
pub fn file_size(solved: &Solved) -> u64 {
    super::header::HEADER_SIZE as u64 + solved.record_count() * solved.kind().record_size()
}

/// The little-endian bytes of sorted records.
fn sorted_bytes(records: &[u64]) -> Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        Cow::Borrowed(bytemuck::cast_slice(records))
    } else {
        Cow::Owned(records.iter().flat_map(|r| r.to_le_bytes()).collect())
    }
}

/// The header describing a solution of a game.
pub fn header_for(desc: &GameDescriptor, solution: &Solved) -> Header {
    Header {
        record_count: solution.record_count(),
        records_checksum: xxhash_rust::xxh3::xxh3_128(&record_bytes(solution)),
        ..header_without_records(
            desc,
            solution.kind(),
            solution.layout(),
            solution.start(),
            solution.is_complete(),
        )
    }
}

/// A header whose record count and checksum are still to be filled in.
fn header_without_records(
    desc: &GameDescriptor,
    kind: LayoutKind,
    layout: RecordLayout,
    start: u64,
    complete: bool,
) -> Header {
    Header {
        game_id: desc.id,
        flags: if complete { FLAG_COMPLETE } else { 0 },
        game_name: desc.name.to_owned(),
        variant: desc.variant.clone(),
        kind,
        layout,
        record_count: 0,
        records_checksum: 0,
        start_key: start,
        generator: format!("boardsolve {}", crate::VERSION),
        packed: None,
    }
}

/// The start of the names of the temporary files of the writers of a target
/// named `name`: `.NAME.tmp-`.
fn temp_prefix(name: &str) -> String {
    format!(".{name}.tmp-")
}

/// The random part of a temporary file's name: this many letters and digits.
const TEMP_RANDOM_CHARS: usize = 6;

/// The process id in `file_name` if it is the name of a temporary file of a
/// writer of the target `name`, exactly `.NAME.tmp-PID-XXXXXX`.
fn temp_owner(file_name: &str, name: &str) -> Option<u32> {
    let rest = file_name.strip_prefix(&temp_prefix(name))?;
    let (pid, random) = rest.split_once('-')?;
    let pid_ok = !pid.is_empty()
        && pid.len() <= 10
        && pid.bytes().all(|b| b.is_ascii_digit())
        && !pid.starts_with('0');
    let random_ok =
        random.len() == TEMP_RANDOM_CHARS && random.bytes().all(|b| b.is_ascii_alphanumeric());
    if !(pid_ok && random_ok) {
        return None;
    }
    pid.parse().ok()
}

/// Checks that `path` may be written: its directory exists, and nothing is
/// there, or a regular file, or a symbolic link. A regular file is replaced; a link is replaced by the
/// new file itself (the rename does not follow it), and the file it points
/// to is left alone. A directory, a device, a named pipe or a socket is
/// refused: writing would replace it with a regular file.
pub fn check_target(path: &Path) -> Result<(), DbError> {
    // The directory first: a write into a missing one fails only after the
    // work that made the file.
    let (dir, _) = dir_and_name(path);
    let problem = match std::fs::metadata(&dir) {
        Ok(m) if m.is_dir() => None,
        Ok(m) => Some(format!("{}, not a directory", super::file_kind(&m))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("no such directory".into()),
        Err(error) => return Err(DbError::Io { path: dir, error }),
    };
    if let Some(problem) = problem {
        return Err(DbError::NoDirectory {
            path: path.to_path_buf(),
            dir,
            problem,
        });
    }
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(DbError::Io {
            path: path.to_path_buf(),
            error,
        }),
        Ok(m) if m.is_file() || m.file_type().is_symlink() => Ok(()),
        Ok(m) => Err(DbError::NotAFile {
            path: path.to_path_buf(),
            kind: super::file_kind(&m),
        }),
    }
}

/// The target's directory and file name.
fn dir_and_name(path: &Path) -> (PathBuf, String) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "database".into());
    (dir, name)
}

/// Removes the temporary files that killed writers of `path` left behind;
/// returns how many it removed. [`write_database`] calls it before it writes.
///
/// Only regular files in `path`'s directory named exactly
/// `.NAME.tmp-PID-XXXXXX` for `path`'s own file name `NAME` are candidates,
/// and one is removed only if its `PID` is not a running process (there is no
/// `/proc/PID`), is not this process, and nobody holds the file locked (a live
/// writer does, whatever its PID namespace). Anything else in the directory,
/// and anything that cannot be checked, is left alone; errors are ignored
/// (cleaning up is a courtesy, not a condition of writing).
///
/// Only on Linux, where `/proc` tells which processes run; elsewhere it
/// removes nothing.
pub fn remove_stale_temporaries(path: &Path) -> usize {
    let (dir, name) = dir_and_name(path);
    remove_stale_in(&dir, &name)
}

#[cfg(target_os = "linux")]
fn remove_stale_in(dir: &Path, name: &str) -> usize {
    // Without /proc we cannot tell a live writer from a dead one.
    if !Path::new("/proc/self").exists() {
        return 0;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let me = std::process::id();
    let mut removed = 0;
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name.to_str().and_then(|n| temp_owner(n, name)) else {
            continue;
        };
        // A zombie (killed but not yet reaped) still has /proc/PID: it is
        // taken for alive, and its file removed by a later run.
        if pid == me || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        // Not a symbolic link, directory or anything else.
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let Ok(file) = File::open(&path) else {
            continue;
        };
        match file.try_lock() {
            Ok(()) => {}
            // A live writer holds it (from a PID namespace we do not see).
            Err(std::fs::TryLockError::WouldBlock) => continue,
            // No locks on this file system: the PID is all we have.
            Err(std::fs::TryLockError::Error(_)) => {}
        }
        if std::fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(not(target_os = "linux"))]
fn remove_stale_in(_dir: &Path, _name: &str) -> usize {
    0
}

/// Creates this process's temporary file for the target `name` in `dir`,
/// `.NAME.tmp-PID-XXXXXX`, and locks it (on Linux).
fn create_temporary(dir: &Path, name: &str) -> std::io::Result<tempfile::NamedTempFile> {
    let tmp = tempfile::Builder::new()
        .prefix(&format!("{}{}-", temp_prefix(name), std::process::id()))
        .rand_bytes(TEMP_RANDOM_CHARS)
        .tempfile_in(dir)?;
    // Mark the file as in use for the clean-up of other writers. Best effort:
    // without locks, the process id in the name still protects it. (Linux
    // only, like the clean-up: elsewhere a lock may keep our own reads out.)
    #[cfg(target_os = "linux")]
    let _ = tmp.as_file().lock();
    Ok(tmp)
}

/// Writes `solution` of the game `desc` to `path` atomically.
///
/// First removes the temporary files killed writers of `path` left behind
/// ([`remove_stale_temporaries`]). The data goes to a temporary file named
/// `.NAME.tmp-PID-XXXXXX` in the same directory (`PID` this process's id),
/// held locked while it is written (on Linux), which is flushed, fsynced,
/// reopened and checksummed, then renamed over `path`, and the directory is
/// fsynced. On any error the temporary file is removed and an existing file at
/// `path` is left untouched; if the process dies, the temporary file stays
/// until the next write to `path` removes it.
pub fn write_database(
    path: &Path,
    desc: &GameDescriptor,
    solution: &Solved,
) -> Result<(), DbError> {
    write_file(
        path,
        &header_for(desc, solution),
        &[&record_bytes(solution)],
    )
}

/// Writes a file whose header is `header` and whose bytes after the header
/// are `parts`, one after the other, atomically as [`write_database`] does;
/// the parts must be what the header describes (they are read back and
/// checked before the file is renamed into place).
pub(crate) fn write_file(path: &Path, header: &Header, parts: &[&[u8]]) -> Result<(), DbError> {
    check_target(path)?;
    let header_bytes = header.encode()?;
    let (dir, name) = dir_and_name(path);
    let io_at = |p: &Path| {
        let p = p.to_path_buf();
        move |error| DbError::Io { path: p, error }
    };
    remove_stale_in(&dir, &name);
    let tmp = create_temporary(&dir, &name).map_err(io_at(&dir))?;
    let tmp_path = tmp.path().to_path_buf();
    let mut all: Vec<&[u8]> = Vec::with_capacity(parts.len() + 1);
    all.push(&header_bytes);
    all.extend_from_slice(parts);
    super::direct::write_parts(tmp.as_file(), &all).map_err(io_at(&tmp_path))?;
    publish(tmp, path, &dir, header)
}

/// Makes a written temporary file the database at `path`: its mode, fsync,
/// the header and the records read back and checked, the rename, and the
/// directory's fsync.
fn publish(
    tmp: tempfile::NamedTempFile,
    path: &Path,
    dir: &Path,
    header: &Header,
) -> Result<(), DbError> {
    let tmp_path = tmp.path().to_path_buf();
    let io_at = |p: &Path| {
        let p = p.to_path_buf();
        move |error| DbError::Io { path: p, error }
    };
    // Temporary files are private (0600); a published database is for every
    // reader: keep the mode of the file it replaces, else rw-r--r--.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::symlink_metadata(path)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map_or(0o644, |m| m.permissions().mode() & 0o7777);
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(io_at(&tmp_path))?;
    }
    tmp.as_file().sync_all().map_err(io_at(&tmp_path))?;
    // Read back what reached the disk before publishing it: the header
    // through the reader's validation, the records by reads that bypass the
    // page cache where possible (mapping them would add the whole file to our
    // resident memory, next to the solution that is still there).
    let check = Database::open(&tmp_path)?;
    if check.header() != header {
        return Err(DbError::HeaderField {
            field: "header",
            reason: "the written header does not read back identically".into(),
        });
    }
    if let Some(packed) = check.packed() {
        // The index was checked on opening; every block's checksum now.
        packed.check_block_sums(check.file_bytes())?;
        drop(check);
    } else {
        drop(check);
        let written = super::direct::checksum_from(&tmp_path, super::header::HEADER_SIZE as u64)
            .map_err(io_at(&tmp_path))?;
        if written != header.records_checksum {
            return Err(DbError::RecordsChecksum);
        }
    }
    tmp.persist(path).map_err(|e| DbError::Io {
        path: path.to_path_buf(),
        error: e.error,
    })?;
    // Make the rename itself durable.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// A sorted database written a stretch of records at a time, for a file
/// assembled from parts no one process holds together (the stretches of
/// ranks); then checked and renamed into place as [`write_database`] does.
pub struct SortedStream {
    path: PathBuf,
    dir: PathBuf,
    header: Header,
    tmp: tempfile::NamedTempFile,
    out: std::io::BufWriter<File>,
    hasher: xxhash_rust::xxh3::Xxh3,
    last: Option<u64>,
}

impl SortedStream {
    /// Starts the file of a game `desc` whose records have `layout`, with
    /// `start` the canonical start and `complete` the header's flag.
    pub fn create(
        path: &Path,
        desc: &GameDescriptor,
        layout: RecordLayout,
        start: u64,
        complete: bool,
    ) -> Result<SortedStream, DbError> {
        check_target(path)?;
        let (dir, name) = dir_and_name(path);
        remove_stale_in(&dir, &name);
        let io_at = |p: &Path| {
            let p = p.to_path_buf();
            move |error| DbError::Io { path: p, error }
        };
        let tmp = create_temporary(&dir, &name).map_err(io_at(&dir))?;
        let mut file = tmp.reopen().map_err(io_at(tmp.path()))?;
        use std::io::Seek;
        file.seek(std::io::SeekFrom::Start(super::header::HEADER_SIZE as u64))
            .map_err(io_at(tmp.path()))?;
        Ok(SortedStream {
            path: path.to_path_buf(),
            dir,
            header: header_without_records(desc, LayoutKind::Sorted, layout, start, complete),
            out: std::io::BufWriter::with_capacity(1 << 20, file),
            tmp,
            hasher: xxhash_rust::xxh3::Xxh3::new(),
            last: None,
        })
    }

    /// Appends records, which continue the strictly ascending order.
    pub fn append(&mut self, records: &[u64]) -> Result<(), DbError> {
        use std::io::Write;
        for &r in records {
            if self.last.is_some_and(|l| l >= r) {
                return Err(DbError::HeaderField {
                    field: "records",
                    reason: "the parts of the file are not in ascending order".into(),
                });
            }
            self.last = Some(r);
        }
        let bytes = sorted_bytes(records);
        self.hasher.update(&bytes);
        self.out.write_all(&bytes).map_err(|error| DbError::Io {
            path: self.tmp.path().to_path_buf(),
            error,
        })?;
        self.header.record_count += records.len() as u64;
        Ok(())
    }

    /// Writes the header and publishes the file at its path.
    pub fn finish(mut self) -> Result<(), DbError> {
        use std::io::{Seek, Write};
        let io = |path: &Path| {
            let p = path.to_path_buf();
            move |error| DbError::Io { path: p, error }
        };
        self.header.records_checksum = self.hasher.digest128();
        let header_bytes = self.header.encode()?;
        let mut file = self.out.into_inner().map_err(|e| DbError::Io {
            path: self.tmp.path().to_path_buf(),
            error: e.into_error(),
        })?;
        file.seek(std::io::SeekFrom::Start(0))
            .map_err(io(self.tmp.path()))?;
        file.write_all(&header_bytes).map_err(io(self.tmp.path()))?;
        file.sync_all().map_err(io(self.tmp.path()))?;
        publish(self.tmp, &self.path, &self.dir, &self.header)
    }
}

/// A dense database written a block of entries at a time, in any order,
/// for a table no one process holds whole (the blocks of ranks), that
/// survives the writer's death: it is written in place in `PATH.partial`
/// beside the target, and `PATH.partial.progress` records how far the
/// writer had got when it last made the file durable ([`DenseStream::mark`]).
/// Opened again for the same game, it takes up from there. Once complete,
/// it is checksummed from the disk, checked and renamed into place as
/// [`write_database`] does.
pub struct DenseStream {
    path: PathBuf,
    dir: PathBuf,
    header: Header,
    partial: tempfile::NamedTempFile,
    progress: PathBuf,
    /// What the progress record must name: the game, the layout, the start
    /// and this build.
    identity: u64,
    /// The first keys of the blocks written by this writer.
    blocks: std::collections::HashSet<u64>,
    /// The step last marked, by this writer or an earlier one.
    marked: u32,
}

/// Bytes of a progress record: identity, step, 4 zero bytes, checksum.
const PROGRESS_LEN: usize = 24;

impl DenseStream {
    /// The partial file of the dense table written to `path`.
    pub fn partial_path(path: &Path) -> PathBuf {
        let mut name = path.as_os_str().to_owned();
        name.push(".partial");
        PathBuf::from(name)
    }

    /// Opens the partial file of the table of a game `desc` whose dense
    /// layout is `layout`, with `start` the canonical start, to be written to
    /// `path`: the one an earlier writer of the same table left, with the
    /// step it last marked, or a new one (step 0). A partial file that is not
    /// this table's, or whose record is damaged, is started again; one that
    /// is not a regular file is refused.
    pub fn resumable(
        path: &Path,
        desc: &GameDescriptor,
        layout: RecordLayout,
        start: u64,
    ) -> Result<(DenseStream, u32), DbError> {
        check_target(path)?;
        let partial_path = Self::partial_path(path);
        let mut progress = partial_path.as_os_str().to_owned();
        progress.push(".progress");
        let progress = PathBuf::from(progress);
        // Written in place: only ever a regular file of ours, never through
        // a link.
        for p in [&partial_path, &progress] {
            match std::fs::symlink_metadata(p) {
                Ok(m) if !m.is_file() => {
                    return Err(DbError::NotAFile {
                        path: p.clone(),
                        kind: if m.file_type().is_symlink() {
                            "a symbolic link"
                        } else {
                            super::file_kind(&m)
                        },
                    })
                }
                _ => {}
            }
        }
        let (dir, name) = dir_and_name(path);
        remove_stale_in(&dir, &name);
        let io_at = |p: &Path| {
            let p = p.to_path_buf();
            move |error| DbError::Io { path: p, error }
        };
        let mut header = header_without_records(desc, LayoutKind::Dense, layout, start, true);
        header.record_count = 1u64 << layout.key_bits;
        let size = super::header::HEADER_SIZE as u64 + header.record_count;
        let identity = xxhash_rust::xxh3::xxh3_64(
            format!(
                "{}\0{}\0{}\0{start}\0{}",
                desc.name, desc.variant, layout.key_bits, header.generator
            )
            .as_bytes(),
        );
        // The step an earlier writer marked, if its files are this table's.
        let marked = std::fs::read(&progress)
            .ok()
            .and_then(|bytes| {
                let bytes: [u8; PROGRESS_LEN] = bytes.try_into().ok()?;
                let word =
                    |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or([0; 8]));
                let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..16]);
                (word(0) == identity && word(16) == sum && word(8) >> 32 == 0)
                    .then_some(word(8) as u32)
            })
            .filter(|_| std::fs::metadata(&partial_path).is_ok_and(|m| m.len() == size));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(marked.is_none())
            .open(&partial_path)
            .map_err(io_at(&partial_path))?;
        if marked.is_none() {
            let _ = std::fs::remove_file(&progress);
        }
        file.set_len(size).map_err(io_at(&partial_path))?;
        let temp_path =
            tempfile::TempPath::try_from_path(&partial_path).map_err(io_at(&partial_path))?;
        let mut partial = tempfile::NamedTempFile::from_parts(file, temp_path);
        // The partial file outlives a failed writer: it is what resumes.
        partial.disable_cleanup(true);
        Ok((
            DenseStream {
                path: path.to_path_buf(),
                dir,
                header,
                partial,
                progress,
                identity,
                blocks: std::collections::HashSet::new(),
                marked: marked.unwrap_or(0),
            },
            marked.unwrap_or(0),
        ))
    }

    /// The step last marked, by this writer or an earlier one (0 for none).
    pub fn marked(&self) -> u32 {
        self.marked
    }

    fn io(&self) -> impl Fn(std::io::Error) -> DbError + '_ {
        |error| DbError::Io {
            path: self.partial.path().to_path_buf(),
            error,
        }
    }

    /// Writes the entries of keys `first ..= first + values.len() - 1`.
    pub fn write_block(&mut self, first: u64, values: &[i8]) -> Result<(), DbError> {
        let end = first.checked_add(values.len() as u64);
        if end.is_none_or(|e| e > self.header.record_count) || !self.blocks.insert(first) {
            return Err(DbError::HeaderField {
                field: "records",
                reason: format!("a block at key {first:#x} is out of the table or written twice"),
            });
        }
        let at = super::header::HEADER_SIZE as u64 + first;
        write_at(self.partial.as_file(), bytemuck::cast_slice(values), at).map_err(self.io())
    }

    /// Reads back the entries of keys `first ..= first + values.len() - 1`,
    /// as written by this writer or an earlier one.
    pub fn read_block(&mut self, first: u64, values: &mut [i8]) -> Result<(), DbError> {
        if first
            .checked_add(values.len() as u64)
            .is_none_or(|e| e > self.header.record_count)
        {
            return Err(DbError::HeaderField {
                field: "records",
                reason: format!("a block at key {first:#x} is out of the table"),
            });
        }
        let at = super::header::HEADER_SIZE as u64 + first;
        read_at(self.partial.as_file(), bytemuck::cast_slice_mut(values), at).map_err(self.io())
    }

    /// Makes what is written durable, then records `step` as the point a
    /// later writer takes up from.
    pub fn mark(&mut self, step: u32) -> Result<(), DbError> {
        self.partial.as_file().sync_data().map_err(self.io())?;
        let mut bytes = Vec::with_capacity(PROGRESS_LEN);
        bytes.extend_from_slice(&self.identity.to_le_bytes());
        bytes.extend_from_slice(&u64::from(step).to_le_bytes());
        let sum = xxhash_rust::xxh3::xxh3_64(&bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        let mut next = self.progress.as_os_str().to_owned();
        next.push(".next");
        let next = PathBuf::from(next);
        let io = |p: &Path| {
            let p = p.to_path_buf();
            move |error| DbError::Io { path: p, error }
        };
        {
            use std::io::Write;
            let mut f = File::create(&next).map_err(io(&next))?;
            f.write_all(&bytes).map_err(io(&next))?;
            f.sync_all().map_err(io(&next))?;
        }
        std::fs::rename(&next, &self.progress).map_err(io(&self.progress))?;
        self.marked = step;
        Ok(())
    }

    /// Checksums the table from the disk, writes the header and publishes
    /// the file at its path (the caller has written every entry); the
    /// progress record goes.
    pub fn finish(mut self) -> Result<(), DbError> {
        self.partial.as_file().sync_all().map_err(self.io())?;
        self.header.records_checksum =
            super::direct::checksum_from(self.partial.path(), super::header::HEADER_SIZE as u64)
                .map_err(self.io())?;
        let header_bytes = self.header.encode()?;
        write_at(self.partial.as_file(), &header_bytes, 0).map_err(self.io())?;
        let progress = self.progress.clone();
        publish(self.partial, &self.path, &self.dir, &self.header)?;
        let _ = std::fs::remove_file(progress);
        Ok(())
    }
}

/// Writes all of `bytes` at byte `at` of `file`.
fn write_at(file: &File, bytes: &[u8], at: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.write_all_at(bytes, at)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, Write};
        let mut file = file;
        file.seek(std::io::SeekFrom::Start(at))?;
        file.write_all(bytes)
    }
}

/// Fills `bytes` from byte `at` of `file`.
fn read_at(file: &File, bytes: &mut [u8], at: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(bytes, at)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek};
        let mut file = file;
        file.seek(std::io::SeekFrom::Start(at))?;
        file.read_exact(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Game;
    use crate::core::NoProgress;
    use crate::games::british_square::BritishSquare;
    use crate::solve::solve;

    /// The process id of a process that has exited and been reaped.
    #[cfg(unix)]
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn temporary_names_are_recognised_exactly() {
        assert_eq!(temp_owner(".x.db.tmp-123-aZ09bq", "x.db"), Some(123));
        for other in [
            ".x.db.tmp-123-aZ09b",          // too short
            ".x.db.tmp-123-aZ09bqq",        // too long
            ".x.db.tmp-123-aZ09b.",         // not alphanumeric
            ".x.db.tmp-aZ09bq",             // no process id (older writers)
            ".x.db.tmp--aZ09bq",            // empty process id
            ".x.db.tmp-0123-aZ09bq",        // not a number as written
            ".x.db.tmp-99999999999-aZ09bq", // not a u32
            ".x.db.tmp-12x-aZ09bq",
            "x.db.tmp-123-aZ09bq",  // no leading dot
            ".y.db.tmp-123-aZ09bq", // another target
            ".x.db.tmp-123-aZ09bq.bak",
            "x.db",
        ] {
            assert_eq!(temp_owner(other, "x.db"), None, "{other}");
        }
        // The name of another target whose name extends this one's.
        assert_eq!(temp_owner(".x.db.tmp-5.tmp-123-aZ09bq", "x.db"), None);
        assert_eq!(
            temp_owner(".x.db.tmp-5.tmp-123-aZ09bq", "x.db.tmp-5"),
            Some(123)
        );
    }

    #[test]
    #[cfg(unix)]
    fn stale_temporaries_of_dead_writers_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.db");
        let dead = dead_pid();
        let me = std::process::id();
        let stale = format!(".x.db.tmp-{dead}-aZ09bq");
        let stale2 = format!(".x.db.tmp-{dead}-QQQQQQ");
        let kept_files = [
            format!(".x.db.tmp-{me}-aZ09bq"),   // this process: a live writer
            format!(".y.db.tmp-{dead}-aZ09bq"), // another target
            format!(".x.db.tmp-{dead}-aZ09b"),  // not the pattern
            format!(".x.db.tmp-{dead}-aZ09bq.old"), // not the pattern
            format!("x.db.tmp-{dead}-aZ09bq"),  // not the pattern
            ".x.db.tmp-aZ09bq".to_owned(),      // no process id: unknown owner
            "x.db".to_owned(),
            "other".to_owned(),
        ];
        // A file with a dead process id that a live writer holds locked (one
        // in another PID namespace).
        let locked = format!(".x.db.tmp-{dead}-LOCKED");
        for n in [&stale, &stale2, &locked].into_iter().chain(&kept_files) {
            std::fs::write(dir.path().join(n), b"partial").unwrap();
        }
        let lock_holder = File::open(dir.path().join(&locked)).unwrap();
        lock_holder.lock().unwrap();
        // A directory with a stale name.
        let stale_dir = format!(".x.db.tmp-{dead}-dir000");
        std::fs::create_dir(dir.path().join(&stale_dir)).unwrap();

        let removed = remove_stale_temporaries(&path);
        let exists = |n: &str| dir.path().join(n).exists();
        if cfg!(target_os = "linux") {
            assert_eq!(removed, 2);
            assert!(!exists(&stale) && !exists(&stale2));
        } else {
            assert_eq!(removed, 0);
        }
        for n in kept_files.iter().chain([&locked, &stale_dir]) {
            assert!(exists(n), "{n} must be kept");
        }
        assert_eq!(std::fs::read(&path).unwrap(), b"partial");

        // Writing runs the same clean-up first, and leaves no file of its own.
        drop(lock_holder);
        std::fs::write(dir.path().join(&stale), b"partial").unwrap();
        let game = BritishSquare::from_variant("3x3").unwrap();
        let sol = solve(&game, &NoProgress).unwrap();
        write_database(&path, game.descriptor(), &sol.into()).unwrap();
        Database::open(&path).unwrap().verify_checksum().unwrap();
        if cfg!(target_os = "linux") {
            assert!(!exists(&stale) && !exists(&locked));
        }
        for n in kept_files
            .iter()
            .filter(|n| *n != "x.db")
            .chain([&stale_dir])
        {
            assert!(exists(n), "{n} must be kept");
        }
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| temp_owner(n, "x.db").is_some())
            .collect();
        names.sort();
        let mut expected = vec![format!(".x.db.tmp-{me}-aZ09bq"), stale_dir.clone()];
        if !cfg!(target_os = "linux") {
            expected.extend([stale.clone(), stale2.clone(), locked.clone()]);
        }
        expected.sort();
        assert_eq!(names, expected);
    }

    #[test]
    fn the_temporary_file_carries_the_writers_process_id_and_is_locked() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = create_temporary(dir.path(), "x.db").unwrap();
        let name = tmp.path().file_name().unwrap().to_str().unwrap();
        assert_eq!(temp_owner(name, "x.db"), Some(std::process::id()), "{name}");
        #[cfg(target_os = "linux")]
        assert!(matches!(
            File::open(tmp.path()).unwrap().try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        // A directory in the way of the rename.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("busy.db");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("inside"), b"x").unwrap();
        let game = BritishSquare::from_variant("3x3").unwrap();
        let sol = solve(&game, &NoProgress).unwrap();
        assert!(write_database(&path, game.descriptor(), &sol.into()).is_err());
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("busy.db")]);
    }
}
