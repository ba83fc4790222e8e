//! The transposition table: bounds on the score of positions met before.
//!
//! One `u64` per entry, direct-mapped. The position key is multiplied by an
//! odd constant, a bijection of 64-bit words; the high `bits` bits of the
//! product pick the slot and the low `64 - bits` bits are stored as the
//! check. Slot and check together give back the whole product, hence the
//! key: two positions can share a slot but never pass for each other, so
//! the table is exact whatever its size.
//!
//! Entry layout: `check << 16 | (lower + 64) << 8 | (upper + 64)`. Scores
//! lie within ±32, so both bytes are non-zero and a zero word is an empty
//! slot.
//!
//! Clearing: the slots filled since the last clear are logged while they
//! are few, so clearing after a small search costs what the search touched
//! and not a sweep of the whole table (the benchmark clears before every
//! position).
//!
//! Sharing: the entries are atomic words read and written with relaxed
//! ordering (plain loads and stores on x86-64), so several searches may use
//! one table at once ([`Table::share`]): an entry is one word, so no read
//! is torn, and the check makes every entry self-validating. A race can at
//! worst lose an entry or a merge of bounds; every stored bound is true.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Smallest table: the check must fit in 48 bits beside the two bounds.
pub(crate) const MIN_BITS: u32 = 16;
/// Largest table (32 GiB); slots are logged as `u32`.
pub(crate) const MAX_BITS: u32 = 32;

const MUL: u64 = 0x9E37_79B9_7F4A_7C15;
const OFFSET: i32 = 64;

pub(crate) struct Table {
    /// Boxed inside the `Arc`: `Arc<[_]>` would copy the zeroed buffer
    /// into its own allocation and so map every page at once.
    entries: Arc<Box<[AtomicU64]>>,
    shift: u32,
    check_mask: u64,
    touched: Vec<u32>,
    touched_limit: usize,
    overflow: bool,
}

impl Table {
    /// A table of `2^bits` entries, `MIN_BITS <= bits <= MAX_BITS` (the
    /// caller checks).
    pub(crate) fn new(bits: u32) -> Table {
        debug_assert!((MIN_BITS..=MAX_BITS).contains(&bits));
        let len = 1usize << bits;
        // Zeroed allocation: the pages are mapped lazily, so an unused
        // table costs no memory.
        let entries = zeroed_atomics(len);
        advise_huge_pages(&entries);
        Table {
            entries,
            shift: 64 - bits,
            check_mask: (1u64 << (64 - bits)) - 1,
            touched: Vec::new(),
            touched_limit: len / 16,
            overflow: false,
        }
    }

    /// Another handle on the same entries, for a search running at the same
    /// time. Its clears sweep the whole table (they would erase the other
    /// searches' entries too).
    pub(crate) fn share(&self) -> Table {
        Table {
            entries: Arc::clone(&self.entries),
            shift: self.shift,
            check_mask: self.check_mask,
            touched: Vec::new(),
            touched_limit: 0,
            overflow: true,
        }
    }

    /// `log2` of the number of entries.
    pub(crate) fn bits(&self) -> u32 {
        64 - self.shift
    }

    /// The bounds `(lower, upper)` stored for `key`, if any.
    #[inline(always)]
    pub(crate) fn get(&self, key: u64) -> Option<(i32, i32)> {
        let h = key.wrapping_mul(MUL);
        let e = self.entries[(h >> self.shift) as usize].load(Relaxed);
        if e >> 16 == h & self.check_mask && e != 0 {
            Some((
                ((e >> 8) & 0xff) as i32 - OFFSET,
                (e & 0xff) as i32 - OFFSET,
            ))
        } else {
            None
        }
    }

    /// Starts loading the slot of `key` into the cache, so that a probe
    /// soon after does not wait for memory. Only a hint.
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: u64) {
        let slot = (key.wrapping_mul(MUL) >> self.shift) as usize;
        if let Some(entry) = self.entries.get(slot) {
            crate::solver::prefetch(entry);
        }
    }

    /// Records `lower <= score <= upper` for `key`, tightening what the
    /// slot already says about the same key and replacing any other key.
    #[inline(always)]
    pub(crate) fn put(&mut self, key: u64, mut lower: i32, mut upper: i32) {
        let h = key.wrapping_mul(MUL);
        let slot = (h >> self.shift) as usize;
        let check = h & self.check_mask;
        let e = self.entries[slot].load(Relaxed);
        if e == 0 {
            if !self.overflow {
                if self.touched.len() < self.touched_limit {
                    self.touched.push(slot as u32);
                } else {
                    self.overflow = true;
                }
            }
        } else if e >> 16 == check {
            lower = lower.max(((e >> 8) & 0xff) as i32 - OFFSET);
            upper = upper.min((e & 0xff) as i32 - OFFSET);
        }
        self.entries[slot].store(
            check << 16 | ((lower + OFFSET) as u64) << 8 | (upper + OFFSET) as u64,
            Relaxed,
        );
    }

    /// Writes every entry once, so that the memory is mapped now and not
    /// page by page during the first searches.
    pub(crate) fn prefault(&mut self) {
        self.sweep();
        self.touched.clear();
        self.overflow = false;
    }

    /// Forgets everything.
    pub(crate) fn clear(&mut self) {
        if self.overflow {
            self.sweep();
        } else {
            for &slot in &self.touched {
                self.entries[slot as usize].store(0, Relaxed);
            }
        }
        self.touched.clear();
        self.overflow = false;
    }
}

impl Table {
    fn sweep(&self) {
        for e in self.entries.iter() {
            e.store(0, Relaxed);
        }
    }
}

// `AtomicU64` is documented to have the size and bit validity of `u64`; the
// alignment is checked here, so a zeroed `u64` buffer is a valid one.
const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());
const _: () = assert!(std::mem::size_of::<AtomicU64>() == std::mem::size_of::<u64>());

/// `len` zeroed atomic words, from a zeroed allocation (which the kernel
/// maps lazily, so an unused table costs no memory, where building the
/// atomics one by one would touch every page).
fn zeroed_atomics(len: usize) -> Arc<Box<[AtomicU64]>> {
    let words: Box<[u64]> = vec![0u64; len].into_boxed_slice();
    let raw = Box::into_raw(words) as *mut [AtomicU64];
    // SAFETY: same size, alignment (asserted above) and bit validity; the
    // box is reconstituted from the pointer it was turned into.
    let atomics: Box<[AtomicU64]> = unsafe { Box::from_raw(raw) };
    Arc::new(atomics)
}

/// Asks the kernel to back the table with huge pages: every probe lands on
/// a random slot, and with 4 KiB pages nearly every one would also miss the
/// TLB. Only a hint.
fn advise_huge_pages(entries: &[AtomicU64]) {
    crate::solver::advise_huge_pages_raw(entries.as_ptr().cast(), std::mem::size_of_val(entries));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_merges_and_clears() {
        let mut t = Table::new(MIN_BITS);
        assert_eq!(t.get(12345), None);
        t.put(12345, -3, 5);
        assert_eq!(t.get(12345), Some((-3, 5)));
        t.put(12345, -10, 2);
        assert_eq!(t.get(12345), Some((-3, 2)));
        // Keys that share a slot never answer for each other.
        let slot = |k: u64| k.wrapping_mul(MUL) >> t.shift;
        let other = (1..u64::MAX)
            .map(|i| 12345 + i)
            .find(|&k| slot(k) == slot(12345))
            .expect("a colliding key");
        assert_eq!(t.get(other), None);
        t.put(other, 1, 1);
        assert_eq!(t.get(12345), None);
        assert_eq!(t.get(other), Some((1, 1)));
        t.clear();
        assert_eq!(t.get(other), None);
        // Past the log limit a clear sweeps the table.
        for k in 0..(1u64 << 14) {
            t.put(k, 0, 0);
        }
        t.clear();
        assert!(t.entries.iter().all(|e| e.load(Relaxed) == 0));
    }
}
