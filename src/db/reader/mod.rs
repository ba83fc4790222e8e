//! Opening a database: map it, validate it, look states up.
//!
//! [`Database`] is split by what it does: `open` (opening and validating a
//! file, bytes or ranges, and unpacking a packed file), `lookup` (the
//! values of keys), `truncated` (a mapped file that shrinks under its
//! reader), `ranged` (lookups in a file read by ranges) and `scan` (reading
//! every record: the checksum and the entries of a book).

mod lookup;
mod open;
mod ranged;
mod scan;
#[cfg(test)]
mod tests;
mod truncated;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use memmap2::Mmap;

use super::header::{Header, HEADER_SIZE};
use super::mapguard::MapGuard;
use super::packed::{FileBytes, PackedStore, Symmetries};
use super::ranges::RangeFile;
use crate::core::layout::LayoutKind;
use crate::core::{Oracle, OracleError, Value};

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
    /// The lookup index, for many lookups (see
    /// [`Database::build_index`]).
    fences: OnceLock<lookup::Fences>,
    /// A packed file's index and decoded blocks.
    packed: Option<PackedStore>,
}

impl Database {
    /// The pieces a database read by ranges is read from; `None` for a
    /// file mapped or in memory.
    pub fn ranges(&self) -> Option<&Arc<RangeFile>> {
        match &self.map {
            Backing::Ranges(r) => Some(r),
            _ => None,
        }
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
    pub(crate) fn set_canonical(&self, canonical: Symmetries) {
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
}

impl Oracle for Database {
    fn values(&self, keys: &[u64], out: &mut Vec<Option<Value>>) -> Result<(), OracleError> {
        Ok(self.get_many(keys, out)?)
    }

    fn is_complete(&self) -> bool {
        self.header().is_complete()
    }
}
