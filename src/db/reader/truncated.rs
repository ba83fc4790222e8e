//! A mapped file that shrinks under its reader: the SIGBUS guard
//! ([`crate::db::mapguard`]) turns a read of lost bytes into zeros and a
//! note of what was lost; lookups then answer from what the file still
//! holds, and fail for what it lost.

use super::lookup::{checked_lower_bound, Bounds};
use super::{Backing, Database};
use crate::core::layout::LayoutKind;
use crate::core::{Corrupted, Value};
use crate::db::header::HEADER_SIZE;

impl Database {
    /// The mapped file's size now, if it is shorter than it was mapped.
    #[cold]
    pub(super) fn shrunk_to(&self) -> Option<u64> {
        match &self.map {
            Backing::Map(m) => {
                let size = m.file.metadata().ok()?.len();
                (size < m.map.len() as u64).then_some(size)
            }
            _ => None,
        }
    }

    /// The offset from which the mapped file's bytes are lost, if a read
    /// has found it truncated since it was mapped (one atomic load).
    #[inline]
    pub(super) fn lost_from(&self) -> Option<u64> {
        match &self.map {
            Backing::Map(m) => m.guard.lost_from().map(|page| m.lost_from(page)),
            _ => None,
        }
    }

    /// The error of a lookup that needs lost bytes.
    #[cold]
    pub(super) fn lost(&self, lost: u64) -> Corrupted {
        Corrupted::new(format!(
            "the file was truncated while open: its bytes from {lost} on are lost"
        ))
    }

    /// Fails when the file was truncated since it was mapped (a read found
    /// it, or the file is shorter now): for work that reads the whole file
    /// (a checksum, `verify`, the statistics), whose result then stands on
    /// zeros.
    pub(crate) fn check_intact(&self) -> Result<(), Corrupted> {
        match self.lost_after(true) {
            Some(lost) => Err(self.lost(lost)),
            None => Ok(()),
        }
    }

    /// [`Database::get_many`] on a mapped sorted or dense file that has lost
    /// its bytes from `lost` on: each key is looked up in the bytes before
    /// `lost` alone, a plain binary search with the same checks of order,
    /// and a lookup that needs what lies past them fails.
    #[cold]
    pub(super) fn get_many_within(
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

    /// The offset from which the file's bytes are lost, if it lost any:
    /// known from the guard, or, when `unsure`, from the file's size now.
    /// Bytes past a new end can read as zeros with no fault: in the rest of
    /// its last page, and, where the page cache holds the file in large
    /// folios (Linux 6.x on ext4, XFS and others), in the rest of the
    /// folio. A sorted file's lookups find such zeros out of order (they
    /// fail); a dense table's read them as entries, so its lookups always
    /// ask for the size (one `fstat`).
    #[inline]
    pub(super) fn lost_after(&self, unsure: bool) -> Option<u64> {
        match self.lost_from() {
            None if unsure => self.shrunk_to(),
            lost => lost,
        }
    }
}
