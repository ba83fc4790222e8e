//! A database file read in pieces that its host supplies: the bytes of a
//! file behind HTTP range requests, say, which a WebAssembly reader cannot
//! map and fetches only as lookups need them.
//!
//! The reader never waits for bytes. A lookup that needs bytes no piece
//! holds fails, and the [`RangeFile`] notes the range it wanted; the host
//! takes the wanted ranges ([`RangeFile::take_wanted`]), fetches them as it
//! likes (asynchronously, several at once), hands them over
//! ([`RangeFile::supply`]) and runs the lookup again. Every lookup of a
//! batch runs until it misses, so one round of fetches serves them all.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use super::DbError;

/// Bytes of the pieces a sorted or dense file's records are read in: a
/// binary search fetches one page a step, a dense lookup one page.
pub(crate) const PAGE_BYTES: u64 = 16 << 10;

/// The most bytes of pieces held by default: 256 MiB. Past it the oldest
/// pieces are dropped (and fetched again when a lookup wants them).
pub(crate) const DEFAULT_PIECE_BYTES: usize = 256 << 20;

/// A file of known length, read from pieces its host supplies.
#[derive(Debug)]
pub struct RangeFile {
    len: u64,
    state: Mutex<Pieces>,
}

#[derive(Debug, Default)]
struct Pieces {
    /// Piece start offset to its bytes.
    map: BTreeMap<u64, Arc<[u8]>>,
    /// Starts in the order the pieces came, for dropping the oldest.
    order: VecDeque<u64>,
    /// Bytes held.
    held: usize,
    /// The most bytes to hold.
    limit: usize,
    /// Ranges (start, end) lookups wanted and did not find.
    wanted: Vec<(u64, u64)>,
}

impl RangeFile {
    /// A file of `len` bytes, no piece of it supplied yet.
    pub fn new(len: u64) -> RangeFile {
        RangeFile {
            len,
            state: Mutex::new(Pieces {
                limit: DEFAULT_PIECE_BYTES,
                ..Pieces::default()
            }),
        }
    }

    /// The file's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for a file of no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bounds the bytes of pieces held (by default
    /// [`DEFAULT_PIECE_BYTES`]).
    pub fn set_limit(&self, bytes: usize) {
        self.lock().limit = bytes;
    }

    fn lock(&self) -> MutexGuard<'_, Pieces> {
        // A panic elsewhere cannot leave the pieces half-changed: every
        // change below completes before the guard drops.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands over the bytes at `offset`: an error if they run past the end
    /// of the file.
    pub fn supply(&self, offset: u64, bytes: &[u8]) -> Result<(), DbError> {
        let end = offset.checked_add(bytes.len() as u64);
        if end.is_none_or(|e| e > self.len) {
            return Err(DbError::Size {
                expected: self.len,
                actual: end.unwrap_or(u64::MAX),
            });
        }
        if bytes.is_empty() {
            return Ok(());
        }
        let mut s = self.lock();
        if let Some(old) = s.map.insert(offset, Arc::from(bytes)) {
            s.held -= old.len();
            s.order.retain(|&o| o != offset);
        }
        s.held += bytes.len();
        s.order.push_back(offset);
        // The newest piece always stays: a lookup is about to read it.
        while s.held > s.limit && s.order.len() > 1 {
            let Some(oldest) = s.order.pop_front() else {
                break;
            };
            if let Some(gone) = s.map.remove(&oldest) {
                s.held -= gone.len();
            }
        }
        Ok(())
    }

    /// The ranges lookups wanted since the last call, as (start, end) byte
    /// offsets, sorted and merged; empty when nothing was missing.
    pub fn take_wanted(&self) -> Vec<(u64, u64)> {
        let mut wanted = std::mem::take(&mut self.lock().wanted);
        wanted.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(wanted.len());
        for (s, e) in wanted {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        merged
    }

    /// The piece holding all of `start..end`, if supplied; otherwise the
    /// range is noted as wanted.
    fn piece(&self, start: u64, end: u64) -> Option<(u64, Arc<[u8]>)> {
        let mut s = self.lock();
        let found = s
            .map
            .range(..=start)
            .next_back()
            .filter(|(&at, bytes)| at + bytes.len() as u64 >= end)
            .map(|(&at, bytes)| (at, Arc::clone(bytes)));
        if found.is_none() {
            s.wanted.push((start, end));
        }
        found
    }

    /// The bytes `start..end` (within the file), or `None` with the range
    /// noted as wanted.
    pub(crate) fn read(&self, start: u64, end: u64) -> Option<Vec<u8>> {
        let end = end.min(self.len);
        if start >= end {
            return Some(Vec::new());
        }
        let (at, bytes) = self.piece(start, end)?;
        let from = usize::try_from(start - at).ok()?;
        let to = usize::try_from(end - at).ok()?;
        bytes.get(from..to).map(<[u8]>::to_vec)
    }

    /// `N` bytes at `offset`, read from the [`PAGE_BYTES`] page around
    /// them (wanted whole when missing); `None` when missing or past the
    /// end of the file. The `N` bytes must not cross a page boundary.
    pub(crate) fn read_paged<const N: usize>(&self, offset: u64) -> Option<[u8; N]> {
        let end = offset.checked_add(N as u64)?;
        if end > self.len {
            return None;
        }
        let page = offset / PAGE_BYTES * PAGE_BYTES;
        let page_end = (page + PAGE_BYTES).min(self.len);
        let bytes = match self.lock_lookup(offset, end) {
            Some(b) => b,
            None => {
                self.piece(page, page_end)?;
                return None;
            }
        };
        Some(bytes)
    }

    /// `N` bytes at `offset..end` from whatever piece holds them, without
    /// noting a miss.
    fn lock_lookup<const N: usize>(&self, offset: u64, end: u64) -> Option<[u8; N]> {
        let s = self.lock();
        let (&at, bytes) = s.map.range(..=offset).next_back()?;
        if at + (bytes.len() as u64) < end {
            return None;
        }
        let from = usize::try_from(offset - at).ok()?;
        bytes.get(from..from + N)?.try_into().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_range_is_wanted_and_read_once_supplied() {
        let file: Vec<u8> = (0..100_000u32).map(|i| (i * 7) as u8).collect();
        let f = RangeFile::new(file.len() as u64);
        assert_eq!(f.read(10, 20), None);
        assert_eq!(f.read_paged::<8>(40_000), None);
        assert_eq!(f.read(15, 30), None);
        // Merged and sorted; the paged read wants its whole page.
        assert_eq!(f.take_wanted(), vec![(10, 30), (32768, 49152)]);
        assert!(f.take_wanted().is_empty());
        f.supply(10, &file[10..30]).unwrap();
        f.supply(32768, &file[32768..49152]).unwrap();
        assert_eq!(f.read(12, 25).as_deref(), Some(&file[12..25]));
        let want: [u8; 8] = file[40_000..40_008].try_into().unwrap();
        assert_eq!(f.read_paged::<8>(40_000), Some(want));
        assert!(f.take_wanted().is_empty());
        // Not within one piece: wanted again.
        assert_eq!(f.read(25, 40), None);
        assert_eq!(f.take_wanted(), vec![(25, 40)]);
    }

    #[test]
    fn pieces_past_the_end_are_refused_and_the_oldest_dropped_past_the_limit() {
        let f = RangeFile::new(1000);
        assert!(f.supply(990, &[0; 20]).is_err());
        assert!(f.supply(u64::MAX, &[0; 2]).is_err());
        f.set_limit(300);
        f.supply(0, &[1; 200]).unwrap();
        f.supply(200, &[2; 200]).unwrap();
        assert_eq!(f.read(0, 10), None, "the oldest piece is dropped");
        assert_eq!(f.read(200, 210), Some(vec![2; 10]));
        // The last page ends at the end of the file.
        assert_eq!(f.read_paged::<4>(996), None);
        assert_eq!(f.read_paged::<4>(998), None);
        let wanted = f.take_wanted();
        assert!(wanted.contains(&(0, 1000)), "{wanted:?}");
    }
}
