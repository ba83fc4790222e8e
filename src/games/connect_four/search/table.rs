//! The transposition table: bounds on the score of positions met before.
//!
//! Buckets of four `u64` entries, 32 bytes, each inside one cache line (the
//! table is aligned to 64 bytes), so a probe costs one memory access
//! whichever entry holds the position. The position key is multiplied by
//! an odd constant, a bijection of 64-bit words; the high bits of the
//! product pick the bucket and the low `check` bits are stored in the entry.
//! Bucket and check together give back the whole product, hence the key:
//! two positions can share a bucket but never pass for each other, so the
//! table is exact whatever its size.
//!
//! Entry layout: `check << (16 + p) | work << 16 | (lower + 64) << 8 |
//! (upper + 64)`, where `work` (`p` bits, 2 to 6 depending on the table
//! size) grows with the number of empty cells of the position: a rough
//! measure of what its subtree cost. Scores lie within ±32, so both bound
//! bytes are non-zero and a zero word is an empty entry.
//!
//! Replacement (two tiers): entries 0 and 1 of a bucket keep the positions
//! with the most work; entries 2 and 3 take whatever comes. A new position
//! goes into the first tier if it is worth at least as much as the lesser
//! entry there, which then moves down to the second tier; otherwise it
//! replaces the lesser entry of the second tier. The book builder searches
//! thousands of neighbouring positions one after the other with one table:
//! the positions near their roots, whose subtrees are large and shared, are
//! the ones worth keeping, and an always-replace table lost them to the
//! millions of small positions searched in between.
//!
//! Clearing: the entries filled since the last clear are logged while they
//! are few, so clearing after a small search costs what the search touched
//! and not a sweep of the whole table (the benchmark clears before every
//! position).
//!
//! Sharing: the entries are atomic words read and written with relaxed
//! ordering (plain loads and stores on x86-64), so several searches may use
//! one table at once ([`Table::share`]): an entry is one word, so no read
//! is torn, and the check makes every entry self-validating. A race can at
//! worst lose an entry, keep a position twice in a bucket, or lose a merge
//! of bounds; every stored bound is true.

use std::sync::atomic::{
    AtomicBool, AtomicU32, AtomicU64,
    Ordering::{AcqRel, Acquire, Relaxed},
};
use std::sync::{Arc, Mutex};

use crate::solve::memory::{zeroed_atomic_words, TableError};

/// Smallest table: the check (64 bits minus those of the bucket) must fit
/// in 46 bits beside the two bounds and at least 2 bits of work.
pub(crate) const MIN_BITS: u32 = 20;
/// Largest table (32 GiB); entries are logged as `u32`.
pub(crate) const MAX_BITS: u32 = 32;

const MUL: u64 = 0x9E37_79B9_7F4A_7C15;
const OFFSET: i32 = 64;
/// Entries per bucket (and `log2` of it).
const WAYS: usize = 4;
const WAY_BITS: u32 = 2;

pub(crate) struct Table {
    /// Boxed inside the `Arc`: `Arc<[_]>` would copy the zeroed buffer
    /// into its own allocation and so map every page at once. Holds 8
    /// words more than the table, so that it can start on a cache line.
    entries: Arc<Box<[AtomicU64]>>,
    /// What every handle on the table shares: the entries in use now.
    shared: Arc<Shared>,
    /// The generation of `entries` (see [`Shared::generation`]).
    generation: u32,
    /// The index of the table's first entry in `entries` (64-byte aligned).
    base: usize,
    /// `log2` of the number of entries now.
    bits: u32,
    /// `log2` of the number of entries the table grows to.
    max_bits: u32,
    /// `64 - log2(buckets)`: the product shifted right by this is the bucket.
    shift: u32,
    check_mask: u64,
    /// Where the check starts in an entry: 16 + the bits of work.
    check_shift: u32,
    /// Empty cells are shifted right by this to make the work...
    work_shift: u32,
    /// ... which is capped at this (all ones in its bits).
    work_max: u64,
    touched: Vec<u32>,
    touched_limit: usize,
    overflow: bool,
}

/// The part of a table its handles share.
struct Shared {
    /// The entries in use now: a handle whose generation is older takes
    /// them at its next [`Table::refresh`].
    current: Mutex<Arc<Box<[AtomicU64]>>>,
    /// Counts the times the table has grown.
    generation: AtomicU32,
    /// Set once the entries in use are mapped for writing.
    populated: AtomicBool,
    /// What the entries are of (a board size, as [`Table::hold`] names
    /// it; 0 for nothing yet): keys of different boards mean different
    /// positions.
    holds: AtomicU64,
}

/// `log2` of the entries a table starts with, when it is to be larger: 32
/// MiB, which holds what a search of a few hundred thousand nodes finds.
/// A process that answers a position or two then maps 32 MiB, not the
/// whole table: mapping 512 MiB took 0.2 s, more than most searches.
pub(crate) const START_BITS: u32 = 22;

impl Table {
    /// A table of up to `2^bits` entries, `MIN_BITS <= bits <= MAX_BITS`
    /// (the caller checks), or the allocator's refusal. It starts with
    /// `2^START_BITS` entries (or `2^bits`, if fewer) and takes its full
    /// size when [`Table::grow`] is called.
    pub(crate) fn new(bits: u32) -> Result<Table, TableError> {
        debug_assert!((MIN_BITS..=MAX_BITS).contains(&bits));
        let start = bits.min(START_BITS);
        let entries = zeroed_atomics(start)?;
        let shared = Arc::new(Shared {
            current: Mutex::new(Arc::clone(&entries)),
            generation: AtomicU32::new(0),
            populated: AtomicBool::new(false),
            holds: AtomicU64::new(0),
        });
        let mut t = Table {
            entries,
            shared,
            generation: 0,
            base: 0,
            bits: start,
            max_bits: bits,
            shift: 0,
            check_mask: 0,
            check_shift: 0,
            work_shift: 0,
            work_max: 0,
            touched: Vec::new(),
            touched_limit: 0,
            overflow: false,
        };
        t.lay_out(start);
        Ok(t)
    }

    /// Sets the fields that follow from the entries and their number.
    fn lay_out(&mut self, bits: u32) {
        let misalign = (self.entries.as_ptr() as usize % 64) / 8;
        self.base = (8 - misalign) % 8;
        self.bits = bits;
        self.shift = 64 - (bits - WAY_BITS);
        // The check takes `shift` bits; the work what is left, at most 6
        // bits (enough for 64 empty cells).
        let work_bits = (48 - self.shift).min(6);
        self.check_mask = (1u64 << self.shift) - 1;
        self.check_shift = 16 + work_bits;
        self.work_shift = 6 - work_bits;
        self.work_max = (1 << work_bits) - 1;
        self.touched_limit = (1usize << bits) / 16;
    }

    /// Another handle on the same entries, for a search running at the same
    /// time. Its clears sweep the whole table (they would erase the other
    /// searches' entries too).
    pub(crate) fn share(&self) -> Table {
        Table {
            entries: Arc::clone(&self.entries),
            shared: Arc::clone(&self.shared),
            touched: Vec::new(),
            touched_limit: 0,
            overflow: true,
            ..*self
        }
    }

    /// Takes the entries in use now, if the table grew through another
    /// handle: one atomic load when it did not.
    #[inline]
    pub(crate) fn refresh(&mut self) {
        if self.shared.generation.load(Acquire) == self.generation {
            return;
        }
        let current = self
            .shared
            .current
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        self.entries = Arc::clone(&current);
        self.generation = self.shared.generation.load(Acquire);
        drop(current);
        let bits = (self.entries.len() - 8).trailing_zeros();
        self.lay_out(bits);
        // What this handle logged was in the entries it left.
        self.forget_log();
    }

    /// True when the table has its full size.
    pub(crate) fn is_full_size(&self) -> bool {
        self.bits == self.max_bits
    }

    /// `log2` of the number of entries now.
    pub(crate) fn bits_now(&self) -> u32 {
        self.bits
    }

    /// Makes the table four times as large (at most its full size),
    /// mapped for writing (see [`Table::populate`]), with what it holds
    /// moved in; every other handle takes the new entries at its next
    /// [`Table::refresh`] (what they write to the old ones until then is
    /// lost, which costs time, never exactness). In steps, so that the
    /// memory mapped stays in proportion to the search that needs it.
    /// Where the allocator refuses, the table keeps its size.
    pub(crate) fn grow(&mut self) {
        self.refresh();
        if self.is_full_size() {
            return;
        }
        let shared = Arc::clone(&self.shared);
        let mut current = shared.current.lock().unwrap_or_else(|p| p.into_inner());
        if self.shared.generation.load(Acquire) != self.generation {
            // Another handle grew it meanwhile.
            drop(current);
            self.refresh();
            return;
        }
        let bits = (self.bits + 2).min(self.max_bits);
        let Ok(entries) = zeroed_atomics(bits) else {
            self.max_bits = self.bits;
            return;
        };
        let from = Layout::of(self);
        let old = std::mem::replace(&mut self.entries, entries);
        let words: &[AtomicU64] = &self.entries;
        crate::core::platform::populate_for_writing(
            words.as_ptr().cast(),
            std::mem::size_of_val(words),
        );
        self.lay_out(bits);
        self.move_in(&old[from.base..from.base + (1usize << from.bits)], &from);
        *current = Arc::clone(&self.entries);
        self.shared.populated.store(true, Relaxed);
        self.generation = self.shared.generation.fetch_add(1, AcqRel) + 1;
        drop(current);
        self.forget_log();
    }

    /// Puts the entries of an older, smaller table (laid out as `from`)
    /// into this one, each at its place here: the bucket and check give
    /// back the whole product, so the key's place in any size. An entry
    /// whose bucket here is full is dropped.
    fn move_in(&mut self, old: &[AtomicU64], from: &Layout) {
        for (i, e) in old.iter().enumerate() {
            let e = e.load(Relaxed);
            if e == 0 {
                continue;
            }
            let bucket = (i >> WAY_BITS) as u64;
            let product = bucket << from.shift | e >> from.check_shift;
            let empty = ((e >> 16) & from.work_max) << from.work_shift;
            let work = (empty >> self.work_shift).min(self.work_max);
            let b = self.base + ((product >> self.shift) as usize) * WAYS;
            let new = (product & self.check_mask) << self.check_shift | work << 16 | (e & 0xffff);
            if let Some(slot) = self.entries[b..b + WAYS]
                .iter()
                .find(|s| s.load(Relaxed) == 0)
            {
                slot.store(new, Relaxed);
            }
        }
    }

    /// Maps every page of the table for writing now, once per table: a
    /// probe of a page never written maps the shared zero page, and the
    /// first write to it then replaces that mapping, which costs every
    /// other core running the process a TLB flush. With several search
    /// threads those flushes took more time than the search (3.4 s of
    /// system time on a 512 MiB table, against 0.4 s to map it first).
    pub(crate) fn populate(&mut self) {
        // Looked at before it is set: searches call this every few
        // thousand nodes.
        if self.shared.populated.load(Relaxed) || self.shared.populated.swap(true, Relaxed) {
            return;
        }
        let words = &self.entries[..];
        // Where the kernel cannot do it, the pages are mapped as they are
        // written, as before.
        crate::core::platform::populate_for_writing(
            words.as_ptr().cast(),
            std::mem::size_of_val(words),
        );
    }

    /// Makes the table hold the positions of `board` (any nonzero tag of
    /// a board size), for every handle: true when it held another board's,
    /// which the caller then clears (a new table holds none: nothing to
    /// clear). Of handles that start on the same new board at once, one
    /// clears it.
    pub(crate) fn hold(&self, board: u64) -> bool {
        let before = self.shared.holds.swap(board, Relaxed);
        before != 0 && before != board
    }

    /// True once the entries in use are mapped for writing (through any
    /// handle).
    pub(crate) fn is_populated(&self) -> bool {
        self.shared.populated.load(Relaxed)
    }

    /// Stops logging the entries filled: others were filled through
    /// other handles, so the next clear sweeps the whole table.
    pub(crate) fn forget_log(&mut self) {
        self.overflow = true;
        self.touched = Vec::new();
    }

    /// `log2` of the number of entries the table holds at its full size.
    pub(crate) fn max_bits(&self) -> u32 {
        self.max_bits
    }

    /// The first entry of the bucket of `key`, and the check to look for.
    #[inline(always)]
    fn locate(&self, key: u64) -> (usize, u64) {
        let h = key.wrapping_mul(MUL);
        (
            self.base + ((h >> self.shift) as usize) * WAYS,
            h & self.check_mask,
        )
    }

    /// The bounds `(lower, upper)` stored for `key`, if any.
    #[inline(always)]
    pub(crate) fn get(&self, key: u64) -> Option<(i32, i32)> {
        let (b, check) = self.locate(key);
        for e in &self.entries[b..b + WAYS] {
            let e = e.load(Relaxed);
            if e >> self.check_shift == check && e != 0 {
                return Some(bounds(e));
            }
        }
        None
    }

    /// Starts loading the bucket of `key` into the cache, so that a probe
    /// soon after does not wait for memory. Only a hint.
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: u64) {
        let (b, _) = self.locate(key);
        if let Some(entry) = self.entries.get(b) {
            crate::core::platform::prefetch(entry);
        }
    }

    /// Records `lower <= score <= upper` for `key`, a position with
    /// `empty` empty cells, tightening what the bucket already says about
    /// the same key, else replacing another position (see the module
    /// documentation).
    #[inline(always)]
    pub(crate) fn put(&mut self, key: u64, mut lower: i32, mut upper: i32, empty: i32) {
        let (b, check) = self.locate(key);
        let mut old = [0u64; WAYS];
        for (o, e) in old.iter_mut().zip(&self.entries[b..b + WAYS]) {
            *o = e.load(Relaxed);
        }
        let cs = self.check_shift;
        if let Some(w) = (0..WAYS).find(|&w| old[w] != 0 && old[w] >> cs == check) {
            let (lo, hi) = bounds(old[w]);
            lower = lower.max(lo);
            upper = upper.min(hi);
            let work = old[w] & (self.work_max << 16);
            let new = check << cs | work | packed(lower, upper);
            self.entries[b + w].store(new, Relaxed);
            return;
        }
        let work = ((empty.max(0) as u64) >> self.work_shift).min(self.work_max);
        let new = check << cs | work << 16 | packed(lower, upper);
        // Worth of an entry: its work, below any work when it is empty.
        let worth = |e: u64| {
            if e == 0 {
                -1
            } else {
                ((e >> 16) & self.work_max) as i64
            }
        };
        let deep = if worth(old[0]) <= worth(old[1]) { 0 } else { 1 };
        // Of two equals in the second tier, a bit of the check picks one,
        // so that neither stays forever.
        let recent = match worth(old[2]).cmp(&worth(old[3])) {
            std::cmp::Ordering::Less => 2,
            std::cmp::Ordering::Greater => 3,
            std::cmp::Ordering::Equal => 2 + (check & 1) as usize,
        };
        if work as i64 >= worth(old[deep]) {
            if old[deep] != 0 {
                // Moves down rather than out.
                self.store(b + recent, old[recent], old[deep]);
            }
            self.store(b + deep, old[deep], new);
        } else {
            self.store(b + recent, old[recent], new);
        }
    }

    /// Writes `new` at `i`, which held `old`, logging newly filled entries.
    #[inline(always)]
    fn store(&mut self, i: usize, old: u64, new: u64) {
        if old == 0 && !self.overflow {
            if self.touched.len() < self.touched_limit {
                self.touched.push(i as u32);
            } else {
                self.overflow = true;
            }
        }
        self.entries[i].store(new, Relaxed);
    }

    /// Writes every entry once, so that the memory is mapped now and not
    /// page by page during the first searches.
    pub(crate) fn prefault(&mut self) {
        while !self.is_full_size() {
            self.grow();
        }
        self.sweep();
        self.touched.clear();
        self.overflow = false;
    }

    /// Forgets everything.
    pub(crate) fn clear(&mut self) {
        if self.overflow {
            self.sweep();
        } else {
            for &i in &self.touched {
                self.entries[i as usize].store(0, Relaxed);
            }
        }
        self.touched.clear();
        self.overflow = false;
    }
}

/// The bounds `(lower, upper)` of an entry.
#[inline(always)]
fn bounds(e: u64) -> (i32, i32) {
    (
        ((e >> 8) & 0xff) as i32 - OFFSET,
        (e & 0xff) as i32 - OFFSET,
    )
}

/// The low 16 bits of an entry: both bounds, offset so neither byte is 0.
#[inline(always)]
fn packed(lower: i32, upper: i32) -> u64 {
    ((lower + OFFSET) as u64) << 8 | (upper + OFFSET) as u64
}

impl Table {
    fn sweep(&self) {
        for e in self.entries.iter() {
            e.store(0, Relaxed);
        }
    }
}

/// The zeroed atomic words of a table of `2^bits` entries and 8 more
/// ([`zeroed_atomic_words`]: the kernel maps them lazily, so an unused
/// table costs no memory), advised to huge pages; an error, not an abort,
/// when the allocator refuses.
fn zeroed_atomics(bits: u32) -> Result<Arc<Box<[AtomicU64]>>, TableError> {
    let atomics = zeroed_atomic_words((1usize << bits) + 8, bits)?;
    advise_huge_pages(&atomics);
    Ok(Arc::new(atomics))
}

/// Where a table's entries sit and how they are packed: what
/// [`Table::move_in`] needs of the table it empties.
struct Layout {
    base: usize,
    bits: u32,
    shift: u32,
    check_shift: u32,
    work_shift: u32,
    work_max: u64,
}

impl Layout {
    fn of(t: &Table) -> Layout {
        Layout {
            base: t.base,
            bits: t.bits,
            shift: t.shift,
            check_shift: t.check_shift,
            work_shift: t.work_shift,
            work_max: t.work_max,
        }
    }
}

/// Asks the kernel to back the table with huge pages: every probe lands on
/// a random slot, and with 4 KiB pages nearly every one would also miss the
/// TLB. Only a hint.
fn advise_huge_pages(entries: &[AtomicU64]) {
    crate::core::platform::advise_huge_pages_raw(
        entries.as_ptr().cast(),
        std::mem::size_of_val(entries),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_merges_and_clears() {
        let mut t = Table::new(MIN_BITS).expect("small table");
        assert_eq!(t.get(12345), None);
        t.put(12345, -3, 5, 30);
        assert_eq!(t.get(12345), Some((-3, 5)));
        t.put(12345, -10, 2, 30);
        assert_eq!(t.get(12345), Some((-3, 2)));
        // Keys that share a bucket never answer for each other.
        let bucket = |k: u64| k.wrapping_mul(MUL) >> t.shift;
        let others: Vec<u64> = (1..u64::MAX)
            .map(|i| 12345 + i)
            .filter(|&k| bucket(k) == bucket(12345))
            .take(5)
            .collect();
        assert_eq!(t.get(others[0]), None);
        // The bucket fills up; the most work stays longest.
        for (i, &k) in others.iter().enumerate() {
            t.put(k, 1, 1, 10 + i as i32);
        }
        assert_eq!(t.get(12345), Some((-3, 2)), "the most work is kept");
        assert_eq!(t.get(others[4]), Some((1, 1)), "the newest is kept");
        assert_eq!(
            others.iter().filter(|&&k| t.get(k).is_some()).count(),
            3,
            "four entries a bucket"
        );
        t.clear();
        assert_eq!(t.get(12345), None);
        assert_eq!(t.get(others[4]), None);
        // Past the log limit a clear sweeps the table.
        for k in 0..(1u64 << 17) {
            t.put(k, 0, 0, 0);
        }
        t.clear();
        assert!(t.entries.iter().all(|e| e.load(Relaxed) == 0));
    }

    #[test]
    fn growing_keeps_the_entries_and_every_handle_follows() {
        let mut t = Table::new(START_BITS + 2).expect("table");
        assert!(!t.is_full_size());
        assert_eq!(t.max_bits(), START_BITS + 2);
        let mut other = t.share();
        let keys: Vec<u64> = (0..50_000u64)
            .map(|i| i.wrapping_mul(0x2545_F491_4F6C_DD1D))
            .collect();
        for (i, &k) in keys.iter().enumerate() {
            t.put(k, -((i % 20) as i32), (i % 20) as i32, (i % 40) as i32);
        }
        t.grow();
        assert!(t.is_full_size() && t.is_populated());
        assert_eq!(t.bits_now(), START_BITS + 2);
        // Buckets four times as many: nothing was full, nothing is lost.
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(
                t.get(k),
                Some((-((i % 20) as i32), (i % 20) as i32)),
                "key {k}"
            );
        }
        assert_eq!(t.get(12345), None);
        // The other handle still reads the old entries until it refreshes.
        other.refresh();
        assert!(other.is_full_size());
        assert_eq!(other.get(keys[7]), t.get(keys[7]));
        other.put(99, 1, 2, 30);
        assert_eq!(t.get(99), Some((1, 2)));
        // Growing again does nothing; a clear empties the grown table.
        t.grow();
        t.clear();
        assert_eq!(t.get(keys[7]), None);
        assert_eq!(other.get(99), None);
    }

    #[test]
    fn buckets_sit_in_one_cache_line() {
        for bits in [MIN_BITS, 22] {
            let t = Table::new(bits).expect("small table");
            let first = t.entries[t.base..].as_ptr() as usize;
            assert_eq!(first % 64, 0);
            assert!(t.entries.len() >= t.base + (1 << bits));
        }
    }
}
