//! Opening a database: map it, validate it, look states up.

use std::io::Read;
use std::path::{Path, PathBuf};

use std::sync::{Arc, OnceLock};

#[cfg(unix)]
use memmap2::Advice;
use memmap2::Mmap;

use super::header::{Header, HEADER_SIZE};
use super::mapguard::MapGuard;
use super::packed::{FileBytes, PackedStore, Symmetries};
use super::ranges::RangeFile;
use super::DbError;
use crate::core::layout::LayoutKind;
use crate::core::{BookSource, Corrupted, Oracle, Value};

/// The bytes of a database: the file mapped, a copy in memory (a packed
/// file unpacked, or a file handed over as bytes), kept in `u64`s so that
/// records are aligned, or the pieces of it a host supplies.
#[derive(Debug)]
enum Backing {
    Map(Mapped),
    Owned { words: Vec<u64>, len: usize },
    Ranges(Arc<RangeFile>),
}

/// A mapped file, registered with the SIGBUS guard (see
/// [`super::mapguard`]), and the open file, whose size tells what a
/// truncation took. The guard goes first when dropped: the range is no
/// longer claimed by the time it is unmapped.
#[derive(Debug)]
struct Mapped {
    guard: MapGuard,
    map: Mmap,
    file: std::fs::File,
}

impl Mapped {
    /// The offset from which the mapped bytes are lost, if a read has
    /// found the file shorter than it was mapped: the lowest page found
    /// lost, or the file's size now if it is less (the tail of the last
    /// page that remains reads as zeros without a fault).
    #[cold]
    fn lost_from(&self, lost_page: usize) -> u64 {
        let size = self.file.metadata().map_or(0, |m| m.len());
        size.min(lost_page as u64)
    }
}

impl Backing {
    /// The whole file; empty for a file read by ranges.
    #[inline]
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Map(m) => &m.map,
            Backing::Owned { words, len } => &bytemuck::cast_slice(words)[..*len],
            Backing::Ranges(_) => &[],
        }
    }

    /// Where a packed file's blocks are read from.
    fn file_bytes(&self) -> FileBytes<'_> {
        match self {
            Backing::Ranges(r) => FileBytes::Ranges(r),
            _ => FileBytes::Whole(self.bytes()),
        }
    }

    /// Bytes in `u64`s, aligned for records: `bytes` copied.
    fn owned(bytes: &[u8]) -> Backing {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        Backing::Owned {
            words,
            len: bytes.len(),
        }
    }
}

/// An open, validated database, of any layout: sorted `u64` records
/// (binary-searched), dense bytes (indexed by key), both memory-mapped, or
/// packed blocks (the index in memory, each block checked and decoded when
/// a lookup needs it, and kept in a bounded cache).
///
/// [`Database::open`] checks the header (magic, version, byte order,
/// checksum, fields) and that the file size matches the record count (and a
/// packed file's index); it does not read the records.
/// [`Database::verify_checksum`] reads them all.
#[derive(Debug)]
pub struct Database {
    path: PathBuf,
    map: Backing,
    header: Header,
    /// Every [`FENCE`]-th record, for many lookups (see [`Database::build_index`]).
    fences: OnceLock<Vec<u64>>,
    /// A packed file's index and decoded blocks.
    packed: Option<PackedStore>,
}

/// Records per fence of the lookup index: a fence block is 2 KiB, so a
/// lookup reads one small block after searching the cache-resident fences.
const FENCE: usize = 256;

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
    pub fn open_checked<T, E: From<DbError>>(
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
    pub fn from_bytes_checked<T, E: From<DbError>>(
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
    pub fn from_ranges_checked<T, E: From<DbError>>(
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

    /// The pieces a database read by ranges is read from; `None` for a
    /// file mapped or in memory.
    pub fn ranges(&self) -> Option<&Arc<RangeFile>> {
        match &self.map {
            Backing::Ranges(r) => Some(r),
            _ => None,
        }
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
            kind: super::file_kind(meta),
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

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The decoded header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The records of a sorted file, as stored (little-endian `u64`s); empty
    /// for a dense or a packed file (see [`Database::unpack`]).
    pub fn raw_records(&self) -> &[u64] {
        if self.header.kind != LayoutKind::Sorted || self.packed.is_some() {
            return &[];
        }
        bytemuck::try_cast_slice(&self.map.bytes()[HEADER_SIZE..]).unwrap_or(&[])
    }

    /// The entries of a dense file, one byte per key; empty for a sorted or
    /// a packed file (see [`Database::unpack`]).
    pub fn dense_entries(&self) -> &[u8] {
        match self.header.kind {
            LayoutKind::Dense if self.packed.is_none() => &self.map.bytes()[HEADER_SIZE..],
            _ => &[],
        }
    }

    /// The whole file as it is (mapped), or for a copy made by
    /// [`Database::unpack`], the file it stands for.
    pub fn file_bytes(&self) -> &[u8] {
        self.map.bytes()
    }

    /// The file's length in bytes (for a copy made by
    /// [`Database::unpack`], of the file it stands for).
    pub fn file_len(&self) -> u64 {
        match &self.map {
            Backing::Ranges(r) => r.len(),
            _ => self.map.bytes().len() as u64,
        }
    }

    /// True for a packed file.
    pub fn is_packed(&self) -> bool {
        self.packed.is_some()
    }

    /// A packed file's index and block cache.
    pub fn packed(&self) -> Option<&PackedStore> {
        self.packed.as_ref()
    }

    /// Gives a packed dense file its game's canonical keys, which it needs
    /// to find its entries (the registry does this on opening); nothing
    /// for other files.
    pub fn set_canonical(&self, canonical: Symmetries) {
        if let Some(p) = &self.packed {
            p.set_canonical(canonical);
        }
    }

    /// Bounds the memory a packed file's decoded blocks take (by default
    /// [`super::packed::DEFAULT_CACHE_BYTES`]); nothing for other files,
    /// which are mapped.
    pub fn set_cache_limit(&mut self, bytes: usize) {
        if let Some(p) = &mut self.packed {
            p.set_cache_limit(bytes);
        }
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
    pub fn unpack_with(&self, progress: &dyn crate::core::Progress) -> Result<Database, DbError> {
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

    /// The value of key `key` in a dense file.
    #[inline]
    fn dense_get(&self, key: u64) -> Option<Value> {
        let i = usize::try_from(key).ok()?;
        let byte = *self.dense_entries().get(i)?;
        Some(self.header.layout.dense_value(key, byte))
    }

    /// The number of records.
    pub fn len(&self) -> u64 {
        self.header.record_count
    }

    /// True when the database has no records.
    pub fn is_empty(&self) -> bool {
        self.header.record_count == 0
    }

    /// Record `i`, in host byte order.
    #[inline]
    pub fn record(&self, i: usize) -> Option<u64> {
        self.raw_records().get(i).map(|&r| u64::from_le(r))
    }

    /// The range of record indices that holds the first record `>= first`
    /// (or ends where it would be).
    #[inline]
    fn block_of(&self, first: u64, n: usize) -> (usize, usize) {
        match self.fences.get() {
            Some(fences) => {
                // Block f holds every record from the last fence below
                // `first` on; the answer is in it or starts the next block.
                let f = fences.partition_point(|&k| k < first).saturating_sub(1);
                let lo = f * FENCE;
                (lo.min(n), n.min(lo + FENCE + 1))
            }
            None => (0, n),
        }
    }

    /// The index of the record holding `key`, if any (in a dense file, the
    /// key itself when it is in range; in a packed file, always `None`:
    /// its records have no index in the file).
    #[inline]
    pub fn find(&self, key: u64) -> Option<usize> {
        if self.packed.is_some() || self.ranges().is_some() {
            return None;
        }
        if self.header.kind == LayoutKind::Dense {
            return usize::try_from(key)
                .ok()
                .filter(|&i| i < self.dense_entries().len());
        }
        let layout = &self.header.layout;
        if layout.key_bits < 64 && key >> layout.key_bits != 0 {
            return None;
        }
        let first = layout.first_record(key);
        let records = self.raw_records();
        let (lo, hi) = self.block_of(first, records.len());
        let i = lo
            + records
                .get(lo..hi)?
                .partition_point(|&r| u64::from_le(r) < first);
        let r = u64::from_le(*records.get(i)?);
        (layout.key(r) == key).then_some(i)
    }

    /// Looks up many keys at once: `out[i]` becomes the value of `keys[i]`.
    ///
    /// The binary searches advance in lockstep, so the memory loads of
    /// different keys overlap instead of waiting for each other; for the ~10
    /// children of a position this is markedly faster than [`Database::get`]
    /// one by one.
    ///
    /// Fails, saying the database is corrupted, when what a lookup reads
    /// breaks the layout: a damaged block of a packed file, records of a
    /// sorted file out of order where a binary search meets them, or bytes
    /// lost since the file was mapped (it was truncated: see
    /// [`super::mapguard`]); lookups that read none of that are answered.
    pub fn get_many(&self, keys: &[u64], out: &mut Vec<Option<Value>>) -> Result<(), Corrupted> {
        out.clear();
        if let Some(p) = &self.packed {
            // Lost bytes read as zeros, which fail the block's checksum.
            let found = p.get_many(self.map.file_bytes(), keys, out);
            return match self.lost_from() {
                Some(lost) if found.is_err() => Err(self.lost(lost)),
                _ => found,
            };
        }
        if let Backing::Ranges(file) = &self.map {
            return self.get_many_by_ranges(file, keys, out);
        }
        if let Some(lost) = self.lost_from() {
            return self.get_many_within(lost, keys, out);
        }
        let found = match self.header.kind {
            LayoutKind::Dense => {
                out.extend(keys.iter().map(|&k| self.dense_get(k)));
                Ok(())
            }
            LayoutKind::Sorted => self.get_many_sorted(keys, out),
        };
        // A read may have found bytes lost (the guard put zeros there), or
        // records out of order, which the zeros after a file's new end in
        // its last page (no fault there) also are: the lookups are made
        // again, knowing what is lost.
        match self.lost_after(found.is_err()) {
            Some(lost) => {
                out.clear();
                self.get_many_within(lost, keys, out)
            }
            None => found,
        }
    }

    /// The mapped file's size now, if it is shorter than it was mapped.
    #[cold]
    fn shrunk_to(&self) -> Option<u64> {
        match &self.map {
            Backing::Map(m) => {
                let size = m.file.metadata().ok()?.len();
                (size < m.map.len() as u64).then_some(size)
            }
            _ => None,
        }
    }

    /// [`Database::get_many`] on the records of a sorted file in memory.
    /// A key that is not found, or is found in a record not strictly
    /// between its neighbours, is looked for again, by a binary search that
    /// checks the order of the records it reads: in a damaged file, a key
    /// missing where the records are out of order is corruption, not a
    /// position the file lacks.
    fn get_many_sorted(&self, keys: &[u64], out: &mut Vec<Option<Value>>) -> Result<(), Corrupted> {
        const LANES: usize = 32;
        let layout = self.header.layout;
        let records = self.raw_records();
        let fences = self.fences.get().filter(|f| !f.is_empty());
        for chunk in keys.chunks(LANES) {
            // Per lane: the search target and the [base, base + size) window.
            let mut target = [0u64; LANES];
            let mut base = [0usize; LANES];
            let mut size = [0usize; LANES];
            let mut widest = 0;
            let mut valid = [false; LANES];
            for (i, &k) in chunk.iter().enumerate() {
                if layout.key_bits < 64 && k >> layout.key_bits != 0 {
                    continue; // size 0: not found
                }
                target[i] = layout.first_record(k);
                valid[i] = true;
            }
            match fences {
                // First the block of each key in the index, in lockstep too.
                Some(fences) => {
                    let mut fbase = [0usize; LANES];
                    let mut fsize = fences.len();
                    while fsize > 1 {
                        let half = fsize / 2;
                        for i in 0..chunk.len() {
                            let mid = fbase[i] + half;
                            fbase[i] = if fences[mid] < target[i] {
                                mid
                            } else {
                                fbase[i]
                            };
                        }
                        fsize -= half;
                    }
                    for i in 0..chunk.len() {
                        if valid[i] {
                            // As in `block_of`: the block of the last fence
                            // below the target, and one record more.
                            let f = if fences[fbase[i]] < target[i] {
                                fbase[i]
                            } else {
                                0
                            };
                            let lo = (f * FENCE).min(records.len());
                            base[i] = lo;
                            size[i] = records.len().min(lo + FENCE + 1) - lo;
                            widest = widest.max(size[i]);
                        }
                    }
                }
                None => {
                    for i in 0..chunk.len() {
                        if valid[i] {
                            base[i] = 0;
                            size[i] = records.len();
                            widest = widest.max(size[i]);
                        }
                    }
                }
            }
            // Branchless lower bound, all lanes together.
            while widest > 1 {
                widest = 0;
                for i in 0..chunk.len() {
                    if size[i] > 1 {
                        let half = size[i] / 2;
                        let mid = base[i] + half;
                        let below = u64::from_le(records[mid]) < target[i];
                        base[i] = if below { mid } else { base[i] };
                        size[i] -= half;
                        widest = widest.max(size[i]);
                    }
                }
            }
            for i in 0..chunk.len() {
                let found = (size[i] > 0)
                    .then(|| {
                        let mut j = base[i];
                        if u64::from_le(records[j]) < target[i] {
                            j += 1;
                        }
                        let r = u64::from_le(*records.get(j)?);
                        (r >> layout.key_shift == target[i] >> layout.key_shift)
                            .then(|| (layout.value(r), in_order_around(records, j)))
                    })
                    .flatten();
                // A key not found, or found among records out of order, is
                // looked for again, checking the order on the way.
                let found = match found {
                    Some((v, true)) => Some(v),
                    _ if valid[i] => self.get_sorted_checked(chunk[i])?,
                    _ => None,
                };
                out.push(found);
            }
        }
        Ok(())
    }

    /// The offset from which the mapped file's bytes are lost, if a read
    /// has found it truncated since it was mapped (one atomic load).
    #[inline]
    fn lost_from(&self) -> Option<u64> {
        match &self.map {
            Backing::Map(m) => m.guard.lost_from().map(|page| m.lost_from(page)),
            _ => None,
        }
    }

    /// The error of a lookup that needs lost bytes.
    #[cold]
    fn lost(&self, lost: u64) -> Corrupted {
        Corrupted::new(format!(
            "the file was truncated while open: its bytes from {lost} on are lost"
        ))
    }

    /// Fails when the file was truncated since it was mapped and a read has
    /// found it: for work that reads the whole file (a checksum, `verify`,
    /// the statistics), whose result then stands on zeros.
    pub fn check_intact(&self) -> Result<(), Corrupted> {
        match self.lost_from() {
            Some(lost) => Err(self.lost(lost)),
            None => Ok(()),
        }
    }

    /// [`Database::get_many`] on a mapped sorted or dense file that has lost
    /// its bytes from `lost` on: each key is looked up in the bytes before
    /// `lost` alone, a plain binary search with the same checks of order,
    /// and a lookup that needs what lies past them fails.
    #[cold]
    fn get_many_within(
        &self,
        lost: u64,
        keys: &[u64],
        out: &mut Vec<Option<Value>>,
    ) -> Result<(), Corrupted> {
        let layout = self.header.layout;
        let kept = usize::try_from(lost.saturating_sub(HEADER_SIZE as u64)).unwrap_or(usize::MAX);
        for &key in keys {
            if layout.key_bits < 64 && key >> layout.key_bits != 0 {
                out.push(None);
                continue;
            }
            match self.header.kind {
                LayoutKind::Dense => match usize::try_from(key) {
                    Ok(i) if i < self.dense_entries().len() => {
                        if i >= kept {
                            return Err(self.lost(lost));
                        }
                        out.push(self.dense_get(key));
                    }
                    _ => out.push(None),
                },
                LayoutKind::Sorted => {
                    let records = self.raw_records();
                    let usable = &records[..(kept / 8).min(records.len())];
                    let first = layout.first_record(key);
                    let lo = checked_lower_bound(usable, 0, usable.len(), first, Bounds::OPEN)?;
                    if lo == usable.len() && usable.len() < records.len() {
                        return Err(self.lost(lost));
                    }
                    out.push(usable.get(lo).and_then(|&r| {
                        let r = u64::from_le(r);
                        (r >> layout.key_shift == first >> layout.key_shift)
                            .then(|| layout.value(r))
                    }));
                }
            }
        }
        Ok(())
    }

    /// [`Database::get_many`] on a sorted or dense file read by ranges: a
    /// binary search reads a page a step, a dense entry one page. Every key
    /// goes as far as the pieces supplied take it, so that one round of
    /// fetches serves them all; then the first miss is the error.
    fn get_many_by_ranges(
        &self,
        file: &RangeFile,
        keys: &[u64],
        out: &mut Vec<Option<Value>>,
    ) -> Result<(), Corrupted> {
        let layout = self.header.layout;
        let records = HEADER_SIZE as u64;
        let missing = |at: u64| Corrupted::new(format!("byte {at} of the file is not loaded yet"));
        let mut first_miss = None;
        for &key in keys {
            if layout.key_bits < 64 && key >> layout.key_bits != 0 {
                out.push(None);
                continue;
            }
            let found = match self.header.kind {
                LayoutKind::Dense => match key.checked_add(records) {
                    Some(at) if at < file.len() => match file.read_paged::<1>(at) {
                        Some([byte]) => Ok(Some(layout.dense_value(key, byte))),
                        None => Err(at),
                    },
                    _ => Ok(None),
                },
                LayoutKind::Sorted => {
                    let first = layout.first_record(key);
                    let record = |i: u64| {
                        let at = records + 8 * i;
                        file.read_paged::<8>(at).map(u64::from_le_bytes).ok_or(at)
                    };
                    // Lower bound of `first` among the records.
                    let (mut lo, mut hi) = (0u64, self.header.record_count);
                    let mut result = Ok(None);
                    while lo < hi {
                        let mid = lo + (hi - lo) / 2;
                        match record(mid) {
                            Ok(r) if r < first => lo = mid + 1,
                            Ok(_) => hi = mid,
                            Err(at) => {
                                result = Err(at);
                                break;
                            }
                        }
                    }
                    if result.is_ok() && lo < self.header.record_count {
                        result = record(lo).map(|r| {
                            (r >> layout.key_shift == first >> layout.key_shift)
                                .then(|| layout.value(r))
                        });
                    }
                    result
                }
            };
            match found {
                Ok(v) => out.push(v),
                Err(at) => {
                    first_miss.get_or_insert(at);
                    out.push(None);
                }
            }
        }
        first_miss.map_or(Ok(()), |at| Err(missing(at)))
    }

    /// Builds a small in-memory index (every 256th record, about 0.4% of the
    /// file) that makes later lookups several times faster. Worth it for
    /// many lookups; it reads one record per 2 KiB of the file, so a single
    /// lookup is faster without it. Idempotent and thread-safe.
    pub fn build_index(&self) {
        if self.header.kind == LayoutKind::Dense || self.packed.is_some() {
            return; // a dense file is its own index, a packed one has one
        }
        self.fences.get_or_init(|| {
            self.raw_records()
                .iter()
                .step_by(FENCE)
                .map(|&r| u64::from_le(r))
                .collect()
        });
    }

    /// The value stored for canonical key `key`, if the file holds it (a
    /// packed file fails when the block it reads is damaged).
    ///
    /// Checked as [`Database::get_many`] checks its lookups.
    #[inline]
    pub fn get(&self, key: u64) -> Result<Option<Value>, Corrupted> {
        if self.packed.is_some() || self.ranges().is_some() || self.lost_from().is_some() {
            let mut out = Vec::with_capacity(1);
            self.get_many(&[key], &mut out)?;
            return Ok(out.pop().flatten());
        }
        let found = match self.header.kind {
            LayoutKind::Dense => Ok(self.dense_get(key)),
            LayoutKind::Sorted => self.get_sorted(key),
        };
        match self.lost_after(found.is_err()) {
            Some(lost) => {
                let mut out = Vec::with_capacity(1);
                self.get_many_within(lost, &[key], &mut out)?;
                Ok(out.pop().flatten())
            }
            None => found,
        }
    }

    /// One key of a sorted file in memory: a binary search in its block of
    /// the index (or the whole file); for a key not found, a second search
    /// that checks the order of the records it reads (see
    /// [`Database::get_many_sorted`]).
    fn get_sorted(&self, key: u64) -> Result<Option<Value>, Corrupted> {
        let layout = &self.header.layout;
        if layout.key_bits < 64 && key >> layout.key_bits != 0 {
            return Ok(None);
        }
        match self.find(key) {
            Some(i) if in_order_around(self.raw_records(), i) => {
                Ok(self.record(i).map(|r| layout.value(r)))
            }
            _ => self.get_sorted_checked(key),
        }
    }

    /// [`Database::get_sorted`] by the search that checks the order of the
    /// records it reads: a key out of range is not there, a key found is
    /// the record's, and records out of order on the way are corruption.
    #[cold]
    fn get_sorted_checked(&self, key: u64) -> Result<Option<Value>, Corrupted> {
        let layout = &self.header.layout;
        if layout.key_bits < 64 && key >> layout.key_bits != 0 {
            return Ok(None);
        }
        let first = layout.first_record(key);
        let records = self.raw_records();
        let mut bounds = Bounds::OPEN;
        let (lo, hi) = match self.fences.get() {
            Some(fences) if !fences.is_empty() => {
                // The block from the fence (its first record) to the next
                // fence, both included: the records read lie between them.
                let f = fences.partition_point(|&k| k < first).saturating_sub(1);
                bounds.low = fences[f];
                if let Some(&next) = fences.get(f + 1) {
                    bounds.high = next;
                    bounds.high_at = (f + 1) * FENCE;
                }
                let lo = (f * FENCE).min(records.len());
                (lo, records.len().min(lo + FENCE + 1))
            }
            _ => (0, records.len()),
        };
        let i = checked_lower_bound(records, lo, hi, first, bounds)?;
        Ok(records.get(i).and_then(|&r| {
            let r = u64::from_le(r);
            (r >> layout.key_shift == first >> layout.key_shift).then(|| layout.value(r))
        }))
    }

    /// The offset from which the file's bytes are lost, if it lost any:
    /// known from the guard, or, after a lookup that `failed` (the zeros
    /// after a new end in its last page read as records out of order, with
    /// no fault), from the file's size now.
    #[inline]
    fn lost_after(&self, failed: bool) -> Option<u64> {
        match self.lost_from() {
            None if failed => self.shrunk_to(),
            lost => lost,
        }
    }

    /// Reads every record and checks the records checksum (a packed file:
    /// every block's checksum and content, then the checksum of the records
    /// unpacked).
    pub fn verify_checksum(&self) -> Result<(), DbError> {
        self.verify_checksum_with(&crate::core::NoProgress)
    }

    /// [`Database::verify_checksum`], stopping with
    /// [`DbError::Interrupted`] soon after `progress` says the work is
    /// [cancelled](crate::core::Progress::cancelled).
    pub fn verify_checksum_with(
        &self,
        progress: &dyn crate::core::Progress,
    ) -> Result<(), DbError> {
        if self.packed.is_some() {
            return self.unpack_with(progress)?.verify_checksum_with(progress);
        }
        if let Backing::Ranges(_) = self.map {
            return Err(DbError::HeaderField {
                field: "records_checksum",
                reason: "a file read by ranges is verified where it is stored".into(),
            });
        }
        #[cfg(unix)]
        let advise = |advice| {
            if let Backing::Map(m) = &self.map {
                let _ = m.map.advise(advice);
            }
        };
        #[cfg(unix)]
        advise(Advice::Sequential);
        // In pieces, to hear a cancellation between them.
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut cancelled = false;
        for piece in self.map.bytes()[HEADER_SIZE..].chunks(CHECKSUM_PIECE) {
            if progress.cancelled() {
                cancelled = true;
                break;
            }
            hasher.update(piece);
        }
        #[cfg(unix)]
        advise(Advice::Random);
        if cancelled {
            return Err(DbError::Interrupted);
        }
        self.check_intact()?;
        if hasher.digest128() == self.header.records_checksum {
            Ok(())
        } else {
            Err(DbError::RecordsChecksum)
        }
    }
}

/// What the records a binary search has read allow the next one to be:
/// at least `low`, and below `high` (equal to it only at index `high_at`,
/// the record `high` was read from; `usize::MAX` when `high` is no record).
#[derive(Clone, Copy)]
struct Bounds {
    low: u64,
    high: u64,
    high_at: usize,
}

impl Bounds {
    /// Nothing read yet.
    const OPEN: Bounds = Bounds {
        low: 0,
        high: u64::MAX,
        high_at: usize::MAX,
    };

    /// True when `r`, read at index `at`, keeps the records strictly
    /// ascending.
    #[inline]
    fn allow(&self, r: u64, at: usize) -> bool {
        r >= self.low
            && (r < self.high
                || (r == self.high && (at == self.high_at || self.high_at == usize::MAX)))
    }
}

/// The first index of `records[lo..hi]` whose record is `>= first` (`hi`
/// when none is), checking on the way that the records read are strictly
/// ascending and within `bounds`.
fn checked_lower_bound(
    records: &[u64],
    mut lo: usize,
    mut hi: usize,
    first: u64,
    mut bounds: Bounds,
) -> Result<usize, Corrupted> {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let r = u64::from_le(records[mid]);
        if !bounds.allow(r, mid) {
            return Err(out_of_order());
        }
        if r < first {
            lo = mid + 1;
            bounds.low = r.saturating_add(1);
        } else {
            hi = mid;
            bounds.high = r;
            bounds.high_at = mid;
        }
    }
    Ok(lo)
}

/// True when record `j` lies strictly between its neighbours (the next
/// records are in the cache already: a lookup that finds its key checks
/// them for the price of two comparisons).
#[inline]
fn in_order_around(records: &[u64], j: usize) -> bool {
    let r = records.get(j).map_or(0, |&r| u64::from_le(r));
    let below = j == 0 || records.get(j - 1).is_some_and(|&p| u64::from_le(p) < r);
    let above = records.get(j + 1).is_none_or(|&n| u64::from_le(n) > r);
    below && above
}

/// The error of a lookup that reads records out of order.
#[cold]
fn out_of_order() -> Corrupted {
    Corrupted::new(
        "the records are out of order where a lookup reads them: \
         the file is damaged, or was changed in place while open",
    )
}

/// Bytes hashed between two looks at a cancellation.
const CHECKSUM_PIECE: usize = 8 << 20;

impl Oracle for Database {
    fn values(&self, keys: &[u64], out: &mut Vec<Option<Value>>) -> Result<(), Corrupted> {
        self.get_many(keys, out)
    }

    fn is_complete(&self) -> bool {
        self.header().is_complete()
    }
}

impl BookSource for Database {
    fn entries(&self) -> Box<dyn Iterator<Item = Result<(u64, Value), Corrupted>> + '_> {
        let layout = self.header().layout;
        if let Some(p) = &self.packed {
            // Block by block: each checked and decoded as it is reached.
            let bytes = self.map.file_bytes();
            let codec = *p.codec();
            let per_block = move |b: usize| -> Box<dyn Iterator<Item = _>> {
                match p.decode_block(bytes, b) {
                    Ok(block) => Box::new(
                        block
                            .records
                            .into_iter()
                            .map(move |r| Ok((codec.key_of(r), codec.value(r)))),
                    ),
                    Err(e) => Box::new(std::iter::once(Err(e))),
                }
            };
            return Box::new((0..p.block_count() as usize).flat_map(per_block));
        }
        if let Backing::Ranges(file) = &self.map {
            // Every record at once: one range for the host to fetch.
            let end = file.len();
            let Some(bytes) = file.read(HEADER_SIZE as u64, end) else {
                return Box::new(std::iter::once(Err(Corrupted::new(format!(
                    "the records (bytes {HEADER_SIZE} to {end}) are not loaded yet"
                )))));
            };
            return match self.header().kind {
                LayoutKind::Sorted => Box::new(
                    bytes
                        .chunks_exact(8)
                        .map(|c| {
                            let mut w = [0u8; 8];
                            w.copy_from_slice(c);
                            u64::from_le_bytes(w)
                        })
                        .map(move |r| Ok((layout.key(r), layout.value(r))))
                        .collect::<Vec<_>>()
                        .into_iter(),
                ),
                LayoutKind::Dense => Box::new(
                    bytes
                        .into_iter()
                        .enumerate()
                        .map(move |(k, byte)| Ok((k as u64, layout.dense_value(k as u64, byte)))),
                ),
            };
        }
        // Last, whether the file lost bytes while they were read.
        let intact =
            std::iter::once_with(move || self.check_intact()).filter_map(|r| r.err().map(Err));
        match self.header().kind {
            LayoutKind::Sorted => Box::new(
                self.raw_records()
                    .iter()
                    .map(move |&r| {
                        let r = u64::from_le(r);
                        Ok((layout.key(r), layout.value(r)))
                    })
                    .chain(intact),
            ),
            LayoutKind::Dense => Box::new(
                self.dense_entries()
                    .iter()
                    .enumerate()
                    .map(move |(k, &byte)| Ok((k as u64, layout.dense_value(k as u64, byte))))
                    .chain(intact),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Game;
    use crate::core::NoProgress;
    use crate::games::british_square::BritishSquare;
    use crate::solve::solve;

    #[test]
    fn indexed_and_plain_lookups_agree_on_every_key() {
        let game = BritishSquare::from_variant("4x4").unwrap();
        let sol = solve(&game, &NoProgress).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        crate::db::write_database(&path, game.descriptor(), &sol.clone().into()).unwrap();
        let db = Database::open(&path).unwrap();
        let layout = db.header().layout;
        let keys: Vec<u64> = sol.records.iter().map(|&r| layout.key(r)).collect();
        let plain: Vec<_> = keys.iter().map(|&k| db.find(k)).collect();
        // Neighbours of real keys that are not keys themselves.
        let absent: Vec<u64> = keys
            .iter()
            .flat_map(|&k| [k.wrapping_sub(1), k + 1])
            .chain([u64::MAX, 1 << 40, (1 << 33) - 1])
            .filter(|k| keys.binary_search(k).is_err())
            .collect();
        let mut many = Vec::new();
        for indexed in [false, true] {
            if indexed {
                db.build_index();
            }
            let all: Vec<u64> = keys.iter().chain(&absent).copied().collect();
            db.get_many(&all, &mut many).unwrap();
            let one: Vec<_> = all.iter().map(|&k| db.get(k).unwrap()).collect();
            assert_eq!(many, one, "indexed: {indexed}");
            assert_eq!(many.iter().filter(|v| v.is_some()).count(), keys.len());
        }
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(plain[i], Some(i));
            assert_eq!(db.find(k), Some(i));
            assert_eq!(db.get(k), Ok(sol.get(k)));
        }
        for k in absent {
            assert_eq!(db.find(k), None, "{k:#x}");
        }
    }

    /// A database of `game` written to `dir`, with the canonical keys it
    /// holds (every key, for a dense file).
    fn written(dir: &Path, name: &str, variant: &str, packed: bool) -> (PathBuf, Vec<u64>) {
        let game = crate::registry::AnyGame::new(name, variant).unwrap();
        let solved = game.solve(&NoProgress).unwrap();
        let path = dir.join(format!("{name}-{variant}.db"));
        crate::db::write_database(&path, game.game().descriptor(), &solved).unwrap();
        let db = Database::open(&path).unwrap();
        let keys: Vec<u64> = match db.header().kind {
            LayoutKind::Sorted => db
                .raw_records()
                .iter()
                .map(|&r| db.header().layout.key(u64::from_le(r)))
                .collect(),
            LayoutKind::Dense => (0..db.len()).collect(),
        };
        if packed {
            let (body, header) =
                crate::db::pack::pack_database(&db, game.game(), Default::default(), &NoProgress)
                    .unwrap();
            crate::db::pack::write_packed(&path, &header, &body).unwrap();
        }
        (path, keys)
    }

    /// Every key's lookup, one at a time.
    fn each(db: &Database, keys: &[u64]) -> Vec<Result<Option<Value>, Corrupted>> {
        keys.iter().map(|&k| db.get(k)).collect()
    }

    fn truncate(path: &Path, len: u64) {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .unwrap()
            .set_len(len)
            .unwrap();
    }

    #[test]
    fn a_file_truncated_under_its_reader_answers_what_it_still_holds() {
        let dir = tempfile::tempdir().unwrap();
        for (name, variant) in [("british-square", "4x4"), ("dots-and-boxes", "2x3")] {
            for (indexed, cut) in [(false, 2), (true, 2), (false, 3), (true, 0)] {
                let (path, keys) = written(dir.path(), name, variant, false);
                let db = Database::open(&path).unwrap();
                if indexed {
                    db.build_index();
                }
                let before = each(&db, &keys);
                assert!(before.iter().all(|v| matches!(v, Ok(Some(_)))));
                // From the end: the first read past the new end faults, and
                // the reader knows what is lost before it reads the zeros
                // after the new end in its last page, which fault nowhere.
                let keys: Vec<u64> = keys.iter().rev().copied().collect();
                let before: Vec<_> = before.into_iter().rev().collect();
                let len = db.file_len();
                // Half the file, a third of it and a byte (mid-page), or
                // the header alone.
                let kept = match cut {
                    0 => HEADER_SIZE as u64,
                    n => len / n + 1,
                };
                truncate(&path, kept);
                let after = each(&db, &keys);
                let mut answered = 0;
                for (i, (b, a)) in before.iter().zip(&after).enumerate() {
                    let at = HEADER_SIZE as u64
                        + match db.header().kind {
                            LayoutKind::Sorted => 8 * (keys.len() - 1 - i) as u64,
                            LayoutKind::Dense => keys[i],
                        };
                    match a {
                        Ok(v) => {
                            assert_eq!(Ok(*v), *b);
                            assert!(
                                at < kept,
                                "{name} {variant}: key {i} answered from lost bytes"
                            );
                            answered += 1;
                        }
                        Err(e) => assert!(e.reason.contains("truncated"), "{e}"),
                    }
                }
                // Below the cut, lookups go on (in a sorted file, those
                // whose search stays below it).
                if cut != 0 {
                    assert!(answered > keys.len() / 8, "{name} {variant}: {answered}");
                } else {
                    assert_eq!(answered, 0);
                }
                assert!(db.check_intact().is_err());
                assert!(matches!(db.verify_checksum(), Err(DbError::Corrupted(_))));
            }
        }
    }

    #[test]
    fn a_packed_file_truncated_under_its_reader_fails_only_the_lost_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let (path, keys) = written(dir.path(), "british-square", "4x4", true);
        let game = crate::registry::AnyGame::new("british-square", "4x4").unwrap();
        let plain = {
            let solved = game.solve(&NoProgress).unwrap();
            let p = dir.path().join("plain.db");
            crate::db::write_database(&p, game.game().descriptor(), &solved).unwrap();
            Database::open(&p).unwrap()
        };
        let db = Database::open(&path).unwrap();
        assert!(db.is_packed());
        truncate(&path, db.file_len() / 2);
        let after = each(&db, &keys);
        let want = each(&plain, &keys);
        let answered = after.iter().filter(|a| a.is_ok()).count();
        assert!(answered > 0 && answered < keys.len());
        for (a, w) in after.iter().zip(&want) {
            if a.is_ok() {
                assert_eq!(a, w);
            }
        }
    }

    /// A generator of the same bytes on every run.
    fn noise(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn records_rewritten_in_place_are_corruption_not_unknown_positions() {
        let dir = tempfile::tempdir().unwrap();
        for (fill, packed) in [
            ("random", false),
            ("zeros", false),
            ("ones", false),
            ("random", true),
        ] {
            let (path, keys) = written(dir.path(), "british-square", "4x4", packed);
            let mut db = Database::open(&path).unwrap();
            // No block kept: each lookup reads the file.
            db.set_cache_limit(0);
            let want = each(&db, &keys);
            // The same size, the header kept: another program writes over
            // the records in place.
            let mut bytes = std::fs::read(&path).unwrap();
            let body_end = match &db.packed {
                Some(p) => p.info().index_offset as usize,
                None => bytes.len(),
            };
            let mut seed = 0x9e37_79b9_7f4a_7c15u64;
            for chunk in bytes[HEADER_SIZE..body_end].chunks_mut(8) {
                let word = match fill {
                    "zeros" => 0,
                    "ones" => u64::MAX,
                    _ => noise(&mut seed),
                };
                chunk.copy_from_slice(&word.to_le_bytes()[..chunk.len()]);
            }
            use std::io::{Seek, Write};
            let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            f.seek(std::io::SeekFrom::Start(0)).unwrap();
            f.write_all(&bytes).unwrap();
            f.sync_all().unwrap();
            let after = each(&db, &keys);
            for (i, (a, w)) in after.iter().zip(&want).enumerate() {
                match a {
                    Err(_) => {}
                    Ok(v) => panic!("{fill} (packed: {packed}): key {i}: {v:?}, was {w:?}"),
                }
            }
            // Batches too, with the index.
            db.build_index();
            let mut out = Vec::new();
            assert!(db.get_many(&keys, &mut out).is_err());
        }
    }
}
