//! Opening a database: a file (mapped), the bytes of one, or one read by
//! ranges, each validated before it is used; and a packed file unpacked in
//! memory.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

#[cfg(unix)]
use memmap2::Advice;
use memmap2::Mmap;

use super::{Backing, Database, Mapped};
use crate::core::layout::LayoutKind;
use crate::db::header::{Header, HEADER_SIZE};
use crate::db::mapguard::MapGuard;
use crate::db::packed::PackedStore;
use crate::db::ranges::RangeFile;
use crate::db::DbError;

impl Database {
    /// Opens and validates a database file.
    pub fn open(path: impl AsRef<Path>) -> Result<Database, DbError> {
        Database::open_checked(path, |_| Ok::<(), DbError>(())).map(|(db, ())| db)
    }

    /// Opens and validates a database file, and runs `check` on its
    /// decoded header before the file is mapped: a caller that knows the
    /// game refuses a header the game rules out (a record count it cannot
    /// have) before anything is sized by it. Returns the database and what
    /// `check` returned.
    ///
    /// Only a regular file is opened, and without blocking: a named pipe or
    /// a device at `path` is refused before it is read.
    pub(crate) fn open_checked<T, E: From<DbError>>(
        path: impl AsRef<Path>,
        check: impl FnOnce(&Header) -> Result<T, E>,
    ) -> Result<(Database, T), E> {
        let path = path.as_ref().to_path_buf();
        let (file, header) = Database::read_header(&path)?;
        let checked = check(&header)?;
        Ok((Database::map(path, &file, header)?, checked))
    }

    /// A database from the bytes of a file (read by the caller, or fetched
    /// whole), validated as [`Database::open_checked`] validates a file;
    /// `name` stands for its path in messages.
    pub(crate) fn from_bytes_checked<T, E: From<DbError>>(
        name: impl Into<PathBuf>,
        bytes: &[u8],
        check: impl FnOnce(&Header) -> Result<T, E>,
    ) -> Result<(Database, T), E> {
        let header = Header::decode(bytes)?;
        let expected = header.expected_file_size()?;
        if expected != bytes.len() as u64 {
            return Err(DbError::Size {
                expected,
                actual: bytes.len() as u64,
            }
            .into());
        }
        let checked = check(&header)?;
        let packed = match header.packed {
            Some(_) => Some(PackedStore::open(&header, bytes)?),
            None => None,
        };
        let db = Database {
            path: name.into(),
            map: Backing::owned(bytes),
            header,
            fences: OnceLock::new(),
            packed,
        };
        Ok((db, checked))
    }

    /// A database read by ranges from `file`, validated as
    /// [`Database::open_checked`] validates a file; `name` stands for its
    /// path in messages. Until the header (and a packed file's index) are
    /// supplied this fails with [`DbError::NotLoaded`], and `file` wants
    /// them.
    pub(crate) fn from_ranges_checked<T, E: From<DbError>>(
        name: impl Into<PathBuf>,
        file: Arc<RangeFile>,
        check: impl FnOnce(&Header) -> Result<T, E>,
    ) -> Result<(Database, T), E> {
        let len = file.len();
        let head_end = len.min(HEADER_SIZE as u64);
        let head = file.read(0, head_end).ok_or(DbError::NotLoaded {
            start: 0,
            end: head_end,
        })?;
        let header = Header::decode(&head)?;
        let expected = header.expected_file_size()?;
        if expected != len {
            return Err(DbError::Size {
                expected,
                actual: len,
            }
            .into());
        }
        let checked = check(&header)?;
        let packed = match header.packed {
            Some(info) => {
                let (start, end) = (info.index_offset, len);
                let index = file
                    .read(start, end)
                    .ok_or(DbError::NotLoaded { start, end })?;
                Some(PackedStore::from_index(&header, &index)?)
            }
            None => None,
        };
        let db = Database {
            path: name.into(),
            map: Backing::Ranges(file),
            header,
            fences: OnceLock::new(),
            packed,
        };
        Ok((db, checked))
    }

    /// Opens a regular file without blocking and reads and validates its
    /// header, and the file's size against it.
    fn read_header(path: &Path) -> Result<(std::fs::File, Header), DbError> {
        let io = |error| DbError::Io {
            path: path.to_path_buf(),
            error,
        };
        let not_a_file = |meta: &std::fs::Metadata| DbError::NotAFile {
            path: path.to_path_buf(),
            kind: crate::db::file_kind(meta),
        };
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(not_a_file(&meta));
        }
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::fs::OpenOptionsExt;
            // Whatever replaced the file since `metadata`, opening it never
            // waits (a FIFO would, for a writer).
            options.custom_flags(libc::O_NONBLOCK);
        }
        let mut file = options.open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(not_a_file(&meta));
        }
        let mut head = Vec::with_capacity(HEADER_SIZE);
        (&mut file)
            .take(HEADER_SIZE as u64)
            .read_to_end(&mut head)
            .map_err(io)?;
        let header = Header::decode(&head)?;
        let expected = header.expected_file_size()?;
        let actual = meta.len();
        if expected != actual {
            return Err(DbError::Size { expected, actual });
        }
        Ok((file, header))
    }

    /// Maps a file whose header is validated.
    fn map(path: PathBuf, file: &std::fs::File, header: Header) -> Result<Database, DbError> {
        let io = |error| DbError::Io {
            path: path.clone(),
            error,
        };
        let expected = header.expected_file_size()?;
        // SAFETY: the map is read-only. Writers never modify a published file
        // in place (they write a new file and rename it over the old one).
        // Another program may: a truncation is caught by the guard below
        // (lost bytes read as zeros, and are reported), and a rewrite in
        // place gives bytes that the layout's checks may or may not catch,
        // but never undefined behaviour in this program, which reads the
        // records as plain integers.
        let map = unsafe { Mmap::map(file) }.map_err(io)?;
        let guard = MapGuard::register(map.as_ptr(), map.len())?;
        let file = file.try_clone().map_err(io)?;
        if map.len() as u64 != expected {
            return Err(DbError::Size {
                expected,
                actual: map.len() as u64,
            });
        }
        // Lookups touch few pages at random.
        #[cfg(unix)]
        let _ = map.advise(Advice::Random);
        let packed = match header.packed {
            Some(_) => Some(PackedStore::open(&header, &map)?),
            None => None,
        };
        let db = Database {
            path,
            map: Backing::Map(Mapped { guard, map, file }),
            header,
            fences: OnceLock::new(),
            packed,
        };
        // Page alignment of the map and the size check make this infallible,
        // but check anyway rather than trust.
        if db.header.kind == LayoutKind::Sorted
            && db.packed.is_none()
            && bytemuck::try_cast_slice::<u8, u64>(&db.map.bytes()[HEADER_SIZE..]).is_err()
        {
            return Err(DbError::HeaderField {
                field: "records_offset",
                reason: "records are not 8-byte aligned in memory".into(),
            });
        }
        Ok(db)
    }

    /// The file a packed file holds, unpacked in memory, every block
    /// checked on the way: a database of the sorted or dense layout whose
    /// bytes are those `query unpack` writes. For a file that is not
    /// packed, an error.
    pub fn unpack(&self) -> Result<Database, DbError> {
        self.unpack_with(&crate::core::NoProgress)
    }

    /// [`Database::unpack`], stopping with [`DbError::Interrupted`] soon
    /// after `progress` says the work is
    /// [cancelled](crate::core::Progress::cancelled).
    pub(crate) fn unpack_with(
        &self,
        progress: &dyn crate::core::Progress,
    ) -> Result<Database, DbError> {
        let Some(store) = &self.packed else {
            return Err(DbError::HeaderField {
                field: "layout_kind",
                reason: "the file is not packed".into(),
            });
        };
        let header = self.header.unpacked();
        let head = header.encode()?;
        let bytes = self.map.bytes();
        let (words, len) = match header.kind {
            LayoutKind::Sorted => {
                let records = store.unpack_sorted(bytes, &|| progress.cancelled())?;
                let mut words = Vec::with_capacity(HEADER_SIZE / 8 + records.len());
                words.extend(
                    head.chunks_exact(8)
                        .map(|c| u64::from_ne_bytes(c.try_into().unwrap_or([0; 8]))),
                );
                words.extend(records.iter().map(|r| r.to_le()));
                let len = words.len() * 8;
                (words, len)
            }
            LayoutKind::Dense => {
                let table = store.unpack_dense(bytes, &|| progress.cancelled())?;
                let len = HEADER_SIZE + table.len();
                let mut words = vec![0u64; len.div_ceil(8)];
                let all: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
                all[..HEADER_SIZE].copy_from_slice(&head);
                all[HEADER_SIZE..len].copy_from_slice(&table);
                (words, len)
            }
        };
        if header.expected_file_size()? != len as u64 {
            return Err(DbError::Size {
                expected: header.expected_file_size()?,
                actual: len as u64,
            });
        }
        Ok(Database {
            path: self.path.clone(),
            map: Backing::Owned { words, len },
            header,
            fences: OnceLock::new(),
            packed: None,
        })
    }
}
