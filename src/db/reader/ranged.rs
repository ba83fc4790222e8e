//! Lookups in a sorted or dense file read by ranges ([`RangeFile`]), whose
//! host supplies the pieces that the lookups ask for.

use super::Database;
use crate::core::layout::LayoutKind;
use crate::core::{Corrupted, Value};
use crate::db::header::HEADER_SIZE;
use crate::db::ranges::RangeFile;

impl Database {
    /// [`Database::get_many`] on a sorted or dense file read by ranges: a
    /// binary search reads a page a step, a dense entry one page. Every key
    /// goes as far as the pieces supplied take it, so that one round of
    /// fetches serves them all; then the first miss is the error.
    pub(super) fn get_many_by_ranges(
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
}
