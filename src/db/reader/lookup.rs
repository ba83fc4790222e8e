//! The values of keys: a dense file indexed by key, a sorted file by
//! binary searches (in lockstep for many keys, in the blocks of a small
//! index once it is built), each checked for records out of order; a
//! packed file through its store.

use super::{Backing, Database};
use crate::core::layout::LayoutKind;
use crate::core::platform::{self, CacheSizes};
use crate::core::{Corrupted, Value};

/// The lookup index of a sorted file ([`Database::build_index`]): every
/// `stride`-th record's key. A lookup first searches these keys, which
/// stay in the caches, then the block of `stride + 1` records after the
/// one found, in the file.
#[derive(Debug)]
pub(super) struct Fences {
    /// Records from one fence to the next: a power of two.
    pub(super) stride: usize,
    /// The key bits of records `0`, `stride`, `2 * stride`, ...
    pub(super) keys: Vec<u64>,
}

impl Fences {
    /// The finest stride, 32 records (four cache lines): a block's search
    /// then reads two or three lines of the file.
    pub(super) const MIN_STRIDE: usize = 32;
    /// The coarsest, 256 records (2 KiB).
    pub(super) const MAX_STRIDE: usize = 256;

    /// The stride for a file of `records` records on a machine with
    /// `caches`: the finest whose index fits an eighth of the last-level
    /// cache. A finer index leaves fewer of a lookup's reads to the file
    /// (each one a miss to memory); the index's own last levels are read
    /// from the last-level cache, which it must not crowd out.
    pub(super) fn stride_for(records: usize, caches: CacheSizes) -> usize {
        let budget = (caches.l3.max(caches.l2) / 8).max(1);
        let mut stride = Self::MIN_STRIDE;
        while stride < Self::MAX_STRIDE && records / stride * 8 > budget {
            stride *= 2;
        }
        stride
    }

    /// The record range of the block that holds the first record `>=
    /// first` of a file of `n` records (or ends where it would be).
    #[inline]
    fn block_of(&self, first: u64, n: usize) -> (usize, usize) {
        // Block f holds every record from the last fence below `first` on;
        // the answer is in it or starts the next block.
        let f = self.keys.partition_point(|&k| k < first).saturating_sub(1);
        let lo = (f * self.stride).min(n);
        (lo, n.min(lo + self.stride + 1))
    }
}

impl Database {
    /// The value of key `key` in a dense file.
    #[inline]
    pub(super) fn dense_get(&self, key: u64) -> Option<Value> {
        let i = usize::try_from(key).ok()?;
        let byte = *self.dense_entries().get(i)?;
        Some(self.header.layout.dense_value(key, byte))
    }

    /// The range of record indices that holds the first record `>= first`
    /// (or ends where it would be).
    #[inline]
    fn block_of(&self, first: u64, n: usize) -> (usize, usize) {
        match self.fences.get() {
            Some(fences) => fences.block_of(first, n),
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
    /// [`crate::db::mapguard`]); lookups that read none of that are answered.
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
        match self.lost_after(found.is_err() || self.header.kind == LayoutKind::Dense) {
            Some(lost) => {
                out.clear();
                self.get_many_within(lost, keys, out)
            }
            None => found,
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
        let fences = self.fences.get().filter(|f| !f.keys.is_empty());
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
                Some(Fences {
                    stride,
                    keys: fences,
                }) => {
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
                            let lo = (f * stride).min(records.len());
                            base[i] = lo;
                            size[i] = records.len().min(lo + stride + 1) - lo;
                            widest = widest.max(size[i]);
                        }
                    }
                    // Every lane's whole block (five cache lines) is asked
                    // for at once: the search below then reads it from the
                    // cache rather than missing once a step on lines it
                    // could not know in advance.
                    for i in 0..chunk.len() {
                        for r in records[base[i]..base[i] + size[i]].iter().step_by(8) {
                            platform::prefetch(r);
                        }
                        if size[i] > 0 {
                            platform::prefetch(&records[base[i] + size[i] - 1]);
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

    /// Builds a small in-memory index that makes later lookups several
    /// times faster: every 32nd to 256th record, the finest whose index
    /// fits an eighth of the processor's last-level cache
    /// ([`crate::core::platform::caches`]); at most 3% of the file. Worth
    /// it for many lookups; it reads every page of the file, so a single
    /// lookup is faster without it. Idempotent and thread-safe.
    pub fn build_index(&self) {
        if self.header.kind == LayoutKind::Dense || self.packed.is_some() {
            return; // a dense file is its own index, a packed one has one
        }
        let stride = Fences::stride_for(self.raw_records().len(), platform::caches());
        self.build_index_strided(stride);
    }

    /// [`Database::build_index`] with the given stride (a power of two),
    /// for a sorted file.
    pub(super) fn build_index_strided(&self, stride: usize) {
        self.fences.get_or_init(|| Fences {
            stride,
            keys: self
                .raw_records()
                .iter()
                .step_by(stride)
                .map(|&r| u64::from_le(r))
                .collect(),
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
        match self.lost_after(found.is_err() || self.header.kind == LayoutKind::Dense) {
            Some(lost) => {
                let mut out = Vec::with_capacity(1);
                self.get_many_within(lost, &[key], &mut out)?;
                Ok(out.pop().flatten())
            }
            None => found,
        }
    }

    /// [`Database::get`] for work that reads the whole file and ends with
    /// [`Database::check_intact`] (`verify`): a dense table's lookups skip
    /// the file-size check each of [`Database::get`]'s makes, since the
    /// final check stands for them all. The dense read is written out here
    /// rather than shared with [`Database::get`]'s body: through that body,
    /// `query verify` of a 3x3 Dots and Boxes table took 1.9 s against 1.0 s.
    #[inline]
    pub(crate) fn get_in_scan(&self, key: u64) -> Result<Option<Value>, Corrupted> {
        if self.header.kind == LayoutKind::Dense
            && self.packed.is_none()
            && self.ranges().is_none()
            && self.lost_from().is_none()
        {
            return Ok(self.dense_get(key));
        }
        self.get(key)
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
            Some(Fences { stride, keys }) if !keys.is_empty() => {
                // The block from the fence (its first record) to the next
                // fence, both included: the records read lie between them.
                let f = keys.partition_point(|&k| k < first).saturating_sub(1);
                bounds.low = keys[f];
                if let Some(&next) = keys.get(f + 1) {
                    bounds.high = next;
                    bounds.high_at = (f + 1) * stride;
                }
                let lo = (f * stride).min(records.len());
                (lo, records.len().min(lo + stride + 1))
            }
            _ => (0, records.len()),
        };
        let i = checked_lower_bound(records, lo, hi, first, bounds)?;
        Ok(records.get(i).and_then(|&r| {
            let r = u64::from_le(r);
            (r >> layout.key_shift == first >> layout.key_shift).then(|| layout.value(r))
        }))
    }
}

/// What the records a binary search has read allow the next one to be:
/// at least `low`, and below `high` (equal to it only at index `high_at`,
/// the record `high` was read from; `usize::MAX` when `high` is no record).
#[derive(Clone, Copy)]
pub(super) struct Bounds {
    low: u64,
    high: u64,
    high_at: usize,
}

impl Bounds {
    /// Nothing read yet.
    pub(super) const OPEN: Bounds = Bounds {
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
pub(super) fn checked_lower_bound(
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
