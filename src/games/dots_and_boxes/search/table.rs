//! The search's table: bounds and the best move of positions met before.
//!
//! A key is a canonical edge set of `E` edges (`E <= 63`). It is multiplied
//! by an odd constant modulo `2^E`, a bijection of `E`-bit numbers: the high
//! bits of the product pick a bucket and the low `E - bucket bits` (the
//! check) are stored in the entry, so bucket and check give back the key.
//! Two positions may share a bucket but never pass for each other: the
//! table is exact whatever its size.
//!
//! An entry is one word, `check << 24 | free << 18 | best << 12 |
//! upper << 6 | lower` (bounds as 6-bit two's complement: a board of at
//! most 63 edges has at most 31 boxes). `free` is the position's number of
//! free edges, over [`super::SMALL`] for every stored position, so a zero
//! word is an empty entry. The check takes at most 40 bits, so boards of
//! many edges get a table of at least `2^(E - 38)` entries.
//!
//! Buckets are four entries, 32 bytes inside one cache line (the table
//! starts on a 64-byte boundary), so a probe is one memory access.
//!
//! Several solvers may share one table ([`Table::share`]), each on its own
//! thread, without a lock: every entry is one atomic word, so a probe reads
//! a whole entry or none. Two stores into a bucket at once may lose one of
//! them or keep a key twice; every entry kept is still a proved bound of
//! its own key, which is all a search needs.
//! Replacement has two tiers: entries 0 and 1 keep the positions with the
//! most free edges (the largest subtrees), entries 2 and 3 take the rest,
//! first in, first out. A new position worth at least the lesser entry of
//! the first tier takes its place and moves it down to the second.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use crate::core::platform::advise_huge_pages_table;
use crate::solve::memory::{zeroed_atomic_words, TableError};

const MUL: u64 = 0x9E37_79B9_7F4A_7C15;
/// Entries per bucket.
const WAYS: usize = 4;
/// The most bits of check beside the 24 of an entry's fields.
const CHECK_BITS: u32 = 40;
/// No best move.
pub(super) const NO_MOVE: u8 = 63;

/// What the table knows of a position: bounds of its value for the side
/// to move, the best move found (in the key's frame, or [`NO_MOVE`]) and
/// its free edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub lower: i32,
    pub upper: i32,
    pub best: u8,
    pub free: u32,
}

impl Entry {
    fn pack(self, check: u64) -> u64 {
        let six = |v: i32| (v.clamp(-32, 31) as u64) & 63;
        check << 24
            | u64::from(self.free.min(63)) << 18
            | u64::from(self.best.min(NO_MOVE)) << 12
            | six(self.upper) << 6
            | six(self.lower)
    }

    fn unpack(word: u64) -> Entry {
        let six = |v: u64| i32::from((((v & 63) as u8) << 2) as i8 >> 2);
        Entry {
            lower: six(word),
            upper: six(word >> 6),
            best: (word >> 12 & 63) as u8,
            free: (word >> 18 & 63) as u32,
        }
    }
}

/// Where a key lives: its bucket's first word and its check.
#[derive(Clone, Copy)]
pub(super) struct Place {
    at: usize,
    check: u64,
}

/// A table of `2^bits` one-word entries, or a handle on one shared.
pub(super) struct Table {
    /// Eight words more than the table, so that it can start on a cache
    /// line (zeroed memory, handed over as it is touched).
    words: Arc<Box<[AtomicU64]>>,
    /// The index of the first word of the table in `words`.
    base: usize,
    /// The key's bits: `2^E - 1`.
    key_mask: u64,
    /// The bits of check: the product shifted right by this is the bucket.
    check_bits: u32,
    /// Buckets - 1.
    bucket_mask: usize,
}

impl Table {
    /// The `log2` of the buckets of a table for keys of `edges` bits with
    /// `2^bits` entries asked for: more when the check would not fit
    /// otherwise, never more buckets than keys.
    fn bucket_bits(edges: u32, bits: u32) -> u32 {
        let edges = edges.clamp(1, 63);
        let bits = bits.max(edges.saturating_sub(CHECK_BITS - 2)).max(2);
        (bits - 2).min(edges)
    }

    /// The bytes of a table [`Table::new`] makes.
    pub(super) fn bytes(edges: u32, bits: u32) -> u64 {
        ((WAYS as u64) << Table::bucket_bits(edges, bits)) * 8 + 64
    }

    /// A table for keys of `edges` bits with `2^bits` entries, or more when
    /// the check would not fit otherwise; an error when the allocator
    /// refuses it.
    pub(super) fn new(edges: u32, bits: u32) -> Result<Table, TableError> {
        let bucket_bits = Table::bucket_bits(edges, bits);
        let edges = edges.clamp(1, 63);
        let words = zeroed_atomic_words((WAYS << bucket_bits) + 8, bits)?;
        advise_huge_pages_table(words.as_ptr().cast(), words.len() * 8);
        let misalign = words.as_ptr() as usize / 8 % 8;
        Ok(Table {
            base: (8 - misalign) % 8,
            words: Arc::new(words),
            key_mask: (1u64 << edges) - 1,
            check_bits: edges - bucket_bits,
            bucket_mask: (1usize << bucket_bits) - 1,
        })
    }

    /// Another handle on the same table, for a solver on another thread:
    /// what one stores, the other finds.
    pub(super) fn share(&self) -> Table {
        Table {
            words: Arc::clone(&self.words),
            base: self.base,
            key_mask: self.key_mask,
            check_bits: self.check_bits,
            bucket_mask: self.bucket_mask,
        }
    }

    /// Empties the table (for every handle on it).
    pub(super) fn clear(&mut self) {
        for w in self.words.iter() {
            w.store(0, Relaxed);
        }
    }

    /// The bucket and check of `key`.
    pub(super) fn place(&self, key: u64) -> Place {
        let product = key.wrapping_mul(MUL) & self.key_mask;
        let bucket = (product >> self.check_bits) as usize & self.bucket_mask;
        Place {
            at: self.base + WAYS * bucket,
            check: product & ((1u64 << self.check_bits) - 1),
        }
    }

    /// The entry of the key at `place`, if the table holds it.
    pub(super) fn probe(&self, place: Place) -> Option<Entry> {
        self.words[place.at..place.at + WAYS]
            .iter()
            .map(|w| w.load(Relaxed))
            .find(|&w| w != 0 && w >> 24 == place.check)
            .map(Entry::unpack)
    }

    /// Keeps `entry` for the key at `place` (over its old entry, if any).
    pub(super) fn store(&mut self, place: Place, entry: Entry) {
        debug_assert!(entry.free > 0, "a stored entry is never all zero");
        let word = entry.pack(place.check);
        let cells = &self.words[place.at..place.at + WAYS];
        let bucket: [u64; WAYS] = std::array::from_fn(|i| cells[i].load(Relaxed));
        if let Some(i) = bucket
            .iter()
            .position(|&w| w != 0 && w >> 24 == place.check)
        {
            cells[i].store(word, Relaxed);
            return;
        }
        let free = |w: u64| (w >> 18 & 63) as u32;
        let lesser = |a: usize, b: usize| {
            if free(bucket[a]) <= free(bucket[b]) {
                a
            } else {
                b
            }
        };
        let first = lesser(0, 1);
        // The second tier is first in, first out.
        cells[3].store(bucket[2], Relaxed);
        if entry.free >= free(bucket[first]) {
            cells[2].store(bucket[first], Relaxed);
            cells[first].store(word, Relaxed);
        } else {
            cells[2].store(word, Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        for (lower, upper) in [(-31, 31), (-5, 3), (0, 0), (7, 7), (-32, -32)] {
            for best in [0u8, 17, 62, NO_MOVE] {
                let e = Entry {
                    lower,
                    upper,
                    best,
                    free: 40,
                };
                let check = (1u64 << CHECK_BITS) - 1;
                assert_eq!(Entry::unpack(e.pack(check)), e);
                assert_eq!(e.pack(check) >> 24, check);
            }
        }
    }

    #[test]
    fn keys_never_pass_for_each_other() {
        // A table of 16 entries for 20-bit keys: every key shares a bucket
        // with many, and each reads back only its own entry.
        let mut table = Table::new(20, 4).expect("small table");
        let keys: Vec<u64> = (0..5000u64).map(|k| k * 197 % (1 << 20)).collect();
        let entry = |i: usize| Entry {
            lower: (i % 20) as i32 - 10,
            upper: 10,
            best: (i % 60) as u8,
            free: 7 + (i % 50) as u32,
        };
        for (i, &k) in keys.iter().enumerate() {
            table.store(table.place(k), entry(i));
            assert_eq!(table.probe(table.place(k)), Some(entry(i)));
            // The keys stored just before: found with their own entry, or
            // gone.
            for (j, &other) in keys.iter().enumerate().take(i).skip(i.saturating_sub(64)) {
                if let Some(e) = table.probe(table.place(other)) {
                    assert_eq!(e, entry(j), "key {other}");
                }
            }
        }
        let found = keys
            .iter()
            .filter(|&&k| table.probe(table.place(k)).is_some())
            .count();
        assert_eq!(found, 16);
        table.clear();
        assert!(keys.iter().all(|&k| table.probe(table.place(k)).is_none()));
    }

    #[test]
    fn the_deepest_entries_stay() {
        let mut table = Table::new(30, 2).expect("small table");
        let entry = |free| Entry {
            lower: 0,
            upper: 1,
            best: NO_MOVE,
            free,
        };
        table.store(table.place(1), entry(60));
        for k in 2..100 {
            table.store(table.place(k), entry(8));
        }
        assert_eq!(table.probe(table.place(1)), Some(entry(60)));
    }
}
