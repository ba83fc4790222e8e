//! A layer's states: a hash set split into cache-sized partitions.
//!
//! A key's hash picks its partition (top bits) and its home slot within the
//! partition's index (the next bits). Each state gets an id, its rank of
//! insertion in its partition, so it is named by `(partition, id)` for good:
//! the forward pass records these names for every edge, and the backward
//! pass reads values by name without hashing anything. Once the layer is
//! expanded, each partition keeps its key hashes by id and drops its index.
//!
//! Random probes into a whole layer (tens of MB) cost a memory round trip
//! each on a machine whose cache is small; so the forward pass first routes
//! the keys it inserts by partition, then one thread inserts into one
//! partition at a time while its index and keys sit in the core's cache.

use rayon::prelude::*;

use super::{prefetch, Cell};

/// Odd multiplier of the multiply-shift hash (2^64 divided by the golden ratio).
const MUL: u64 = 0x9E37_79B9_7F4A_7C15;
/// States per partition the passes aim for: a partition's keys and index
/// then take a few hundred KiB.
const TARGET_PART: usize = 24 << 10;
/// The most partitions a layer has: partition numbers and their count fit a
/// `u16`.
const MAX_PARTS: usize = 1 << 15;
/// The fewest: partition bits also bound how far a key may sit from its
/// home slot (see [`Part`]).
const MIN_PARTS: usize = 1 << 5;

/// The inverse of [`MUL`] modulo 2^64 (Newton's iteration doubles the
/// correct low bits each step).
const MUL_INV: u64 = {
    let mut x = MUL;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u64.wrapping_sub(MUL.wrapping_mul(x)));
        i += 1;
    }
    x
};

const _: () = assert!(MUL.wrapping_mul(MUL_INV) == 1);

/// The hash of a key; partitions and home slots come from its top bits. It
/// is a bijection, so partitions store hashes and each key is hashed once.
#[inline(always)]
pub(super) fn hash(key: u64) -> u64 {
    key.wrapping_mul(MUL)
}

/// The key whose hash is `h`.
#[inline(always)]
pub(super) fn unhash(h: u64) -> u64 {
    h.wrapping_mul(MUL_INV)
}

/// The top `bits` bits of `h`.
#[inline(always)]
fn top(h: u64, bits: u32) -> usize {
    h.checked_shr(64 - bits).unwrap_or(0) as usize
}

/// One partition: an open-addressing index of its states while they are
/// being added, and their key hashes in insertion order (by id) once the
/// layer is expanded.
///
/// With `p` partition bits and `2^b` slots, a hash is `part` (top `p` bits),
/// then `home` (the next `b` bits, the home slot), then the `rest`. A slot
/// holds `rest << (p + b) | disp << b | (id + 1)`, where `disp` is how far
/// the slot is past the home slot (linear probing, at most `2^p - 1`), or 0
/// when empty: exactly `64` bits, the whole hash and the id. So a lookup
/// reads one slot (mostly the home slot) and nothing else, and the keys are
/// only written out, from the slots, when the layer is expanded.
#[derive(Default)]
pub(super) struct Part {
    /// This partition's number.
    part: u64,
    /// The hashes by id, once [`Part::materialize`] made them (then kept up
    /// to date).
    keys: Vec<u64>,
    dense: bool,
    len: usize,
    index: Vec<u64>,
    index_bits: u32,
}

impl Part {
    /// The hashes of the keys ([`unhash`] gives the keys); a state's id is
    /// its position. Empty until [`Part::materialize`].
    #[inline]
    pub(super) fn hashes(&self) -> &[u64] {
        &self.keys
    }

    /// The number of states.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The home slot of hash `h` and what a slot holding it at displacement
    /// 0 holds above the id.
    #[inline(always)]
    fn home_rest(&self, h: u64, part_bits: u32) -> (usize, u64) {
        let b = self.index_bits;
        let home = top(h << part_bits, b);
        let rest = h & (u64::MAX >> (part_bits + b));
        (home, rest << part_bits)
    }

    /// The hash and id held by slot `slot` (not empty).
    #[inline]
    fn decode(&self, slot: usize, e: u64, part_bits: u32) -> (u64, u32) {
        let b = self.index_bits;
        let id = (e & ((1 << b) - 1)) as u32 - 1;
        let above = e >> b;
        let disp = above & ((1 << part_bits) - 1);
        let home = (slot as u64).wrapping_sub(disp) & ((1 << b) - 1);
        let rest = above >> part_bits;
        let h = (self.part << (64 - part_bits)) | (home << (64 - part_bits - b)) | rest;
        (h, id)
    }

    /// Places hash `h` with id `id`, which is not in the index; false when
    /// it would be too far from its home slot.
    #[inline]
    fn place(&mut self, h: u64, id: u32, part_bits: u32) -> bool {
        let b = self.index_bits;
        let mask = self.index.len() - 1;
        let (home, above) = self.home_rest(h, part_bits);
        for disp in 0..1u64 << part_bits {
            let i = (home + disp as usize) & mask;
            if self.index[i] == 0 {
                self.index[i] = (above | disp) << b | u64::from(id + 1);
                return true;
            }
        }
        false
    }

    /// The id of the key whose hash is `h`, inserting it if new; the flag
    /// tells which.
    #[inline]
    fn insert(&mut self, h: u64, part_bits: u32) -> (u32, bool) {
        // After `Layer::drop_index` only `Layer::resolve` adds states.
        debug_assert!(!self.dense || !self.index.is_empty());
        loop {
            if self.len * 8 >= self.index.len() * 5 {
                self.grow(part_bits, self.len + 1);
            }
            let b = self.index_bits;
            let mask = self.index.len() - 1;
            let (home, above) = self.home_rest(h, part_bits);
            for disp in 0..1u64 << part_bits {
                let i = (home + disp as usize) & mask;
                let e = self.index[i];
                if e == 0 {
                    let id = self.len as u32;
                    self.index[i] = (above | disp) << b | u64::from(id + 1);
                    self.len += 1;
                    if self.dense {
                        self.keys.push(h);
                    }
                    return (id, true);
                }
                if e >> b == above | disp {
                    return ((e & ((1 << b) - 1)) as u32 - 1, false);
                }
            }
            // Too far from home: spread the keys out.
            self.grow(part_bits, self.len * 2);
        }
    }

    /// Rebuilds the index with room for `n` keys, at most half full.
    fn grow(&mut self, part_bits: u32, n: usize) {
        self.rebuild(
            part_bits,
            (n * 2).max(16).next_power_of_two().trailing_zeros(),
        );
    }

    /// Rebuilds the index with `2^bits` slots (or more, if keys would sit too
    /// far from home).
    fn rebuild(&mut self, part_bits: u32, mut bits: u32) {
        let old_bits = self.index_bits;
        let old = std::mem::take(&mut self.index);
        'retry: loop {
            self.index_bits = bits;
            self.index = vec![0; 1 << bits];
            for (slot, &e) in old.iter().enumerate() {
                if e != 0 {
                    let saved = self.index_bits;
                    self.index_bits = old_bits;
                    let (h, id) = self.decode(slot, e, part_bits);
                    self.index_bits = saved;
                    if !self.place(h, id, part_bits) {
                        bits += 1;
                        continue 'retry;
                    }
                }
            }
            return;
        }
    }

    /// Writes out the hashes by id, and keeps them up to date from now on.
    fn materialize(&mut self, part_bits: u32) {
        if self.dense {
            return;
        }
        self.keys = vec![0; self.len];
        for (slot, &e) in self.index.iter().enumerate() {
            if e != 0 {
                let (h, id) = self.decode(slot, e, part_bits);
                self.keys[id as usize] = h;
            }
        }
        self.dense = true;
    }
}

/// The states of one layer, in `2^bits` partitions, and their values once
/// scored.
#[derive(Default)]
pub(super) struct Layer {
    bits: u32,
    parts: Vec<Part>,
    /// Per partition, per id: the value, once the layer is scored (empty
    /// once [`Layer::compress`] codes them).
    pub(super) values: Vec<Vec<Cell>>,
    /// The distinct values of the layer, when there are fewer than 255.
    pub(super) palette: Vec<Cell>,
    /// Per partition, per id: the value's index in `palette`.
    pub(super) codes: Vec<Vec<u8>>,
}

impl Layer {
    /// An empty layer sized for about `expected` states.
    pub(super) fn new(expected: usize) -> Layer {
        let parts = expected
            .div_ceil(TARGET_PART)
            .clamp(MIN_PARTS, MAX_PARTS)
            .next_power_of_two();
        let bits = parts.trailing_zeros();
        Layer {
            bits,
            parts: (0..parts)
                .map(|part| {
                    let mut p = Part {
                        part: part as u64,
                        ..Part::default()
                    };
                    p.grow(bits, expected / parts);
                    p
                })
                .collect(),
            values: Vec::new(),
            palette: Vec::new(),
            codes: Vec::new(),
        }
    }

    /// The partition of a key whose hash is `h`.
    #[inline(always)]
    pub(super) fn part_of(&self, h: u64) -> usize {
        top(h, self.bits)
    }

    /// The number of partitions.
    #[inline]
    pub(super) fn part_count(&self) -> usize {
        self.parts.len()
    }

    /// The partitions.
    #[inline]
    pub(super) fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// The number of states.
    pub(super) fn len(&self) -> usize {
        self.parts.iter().map(Part::len).sum()
    }

    /// Inserters for the partitions, one per partition, for inserting from
    /// several threads at once.
    pub(super) fn inserters(&mut self) -> impl Iterator<Item = Inserter<'_>> {
        let bits = self.bits;
        self.parts
            .iter_mut()
            .map(move |part| Inserter { part, bits })
    }

    /// The partition and id of `key`, inserting it if new; the flag tells
    /// which.
    pub(super) fn insert(&mut self, key: u64) -> (usize, u32, bool) {
        let h = hash(key);
        let p = self.part_of(h);
        let (id, new) = self.parts[p].insert(h, self.bits);
        (p, id, new)
    }

    /// Writes out the key hashes by id and drops the indexes: the layer is
    /// about to be expanded, and only [`Layer::resolve`] adds states from now
    /// on.
    pub(super) fn drop_index(&mut self) {
        let bits = self.bits;
        self.parts.par_iter_mut().for_each(|p| {
            p.materialize(bits);
            p.index = Vec::new();
            p.keys.shrink_to_fit();
        });
    }

    /// The partition and id of each key whose hash is in `hashes`, adding
    /// the new ones, once the indexes are dropped (a layer's same-layer
    /// children, found while it is expanded, are few): each partition with
    /// some is scanned once for them.
    pub(super) fn resolve(&mut self, hashes: &[u64]) -> Vec<(u32, u32)> {
        let mut wanted: Vec<Vec<(u64, usize)>> = vec![Vec::new(); self.parts.len()];
        for (i, &h) in hashes.iter().enumerate() {
            wanted[self.part_of(h)].push((h, i));
        }
        let found: Vec<Vec<(usize, u32)>> = self
            .parts
            .par_iter_mut()
            .zip(wanted)
            .map(|(part, wanted)| {
                if wanted.is_empty() {
                    return Vec::new();
                }
                // The wanted hashes, each with its id once known.
                let mask = (wanted.len() * 2).next_power_of_two() - 1;
                let mut table = vec![(0u64, u32::MAX, false); mask + 1];
                let slot = |table: &[(u64, u32, bool)], h: u64| {
                    let mut i = (h >> 32) as usize & mask;
                    while table[i].2 && table[i].0 != h {
                        i = (i + 1) & mask;
                    }
                    i
                };
                for &(h, _) in &wanted {
                    let i = slot(&table, h);
                    table[i] = (h, u32::MAX, true);
                }
                for (id, &k) in part.keys.iter().enumerate() {
                    let i = slot(&table, k);
                    if table[i].2 {
                        table[i].1 = id as u32;
                    }
                }
                wanted
                    .iter()
                    .map(|&(h, at)| {
                        let i = slot(&table, h);
                        if table[i].1 == u32::MAX {
                            table[i].1 = part.keys.len() as u32;
                            part.keys.push(h);
                            part.len += 1;
                        }
                        (at, table[i].1)
                    })
                    .collect()
            })
            .collect();
        let mut out = vec![(0, 0); hashes.len()];
        for (p, found) in found.into_iter().enumerate() {
            for (at, id) in found {
                out[at] = (p as u32, id);
            }
        }
        out
    }

    /// Replaces the values by one-byte codes into a palette when the layer
    /// has fewer than 255 distinct values (British Square has fewer than 70):
    /// the layer before reads them at random, and a quarter of the bytes stay
    /// in cache better.
    pub(super) fn compress(&mut self) {
        // The distinct values, in parallel: a bit per possible cell.
        let present = self
            .values
            .par_iter()
            .fold(
                || vec![0u64; 1 << 10],
                |mut bits, vals| {
                    for v in vals {
                        bits[usize::from(v.0 >> 6)] |= 1 << (v.0 & 63);
                    }
                    bits
                },
            )
            .reduce(
                || vec![0u64; 1 << 10],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x |= y);
                    a
                },
            );
        if present.iter().map(|w| w.count_ones()).sum::<u32>() >= u32::from(u8::MAX) {
            return;
        }
        let mut code = vec![0u8; 1 << 16];
        let mut palette = Vec::new();
        for (w, &bits) in present.iter().enumerate() {
            for b in 0..64 {
                if bits >> b & 1 != 0 {
                    code[w * 64 + b] = palette.len() as u8;
                    palette.push(Cell((w * 64 + b) as u16));
                }
            }
        }
        self.codes = self
            .values
            .par_iter()
            .map(|vals| vals.iter().map(|v| code[usize::from(v.0)]).collect())
            .collect();
        self.palette = palette;
        self.values = Vec::new();
    }

    /// The value of state `id` of partition `p`, once scored.
    #[inline]
    pub(super) fn value(&self, p: usize, id: usize) -> Cell {
        if self.palette.is_empty() {
            self.values[p][id]
        } else {
            self.palette[usize::from(self.codes[p][id])]
        }
    }

    /// The key hashes and values, partition by partition; frees the layer.
    pub(super) fn into_parts(self) -> impl Iterator<Item = (Vec<u64>, Vec<Cell>)> {
        let Layer {
            parts,
            values,
            palette,
            codes,
            ..
        } = self;
        let values: Vec<Vec<Cell>> = if palette.is_empty() {
            values
        } else {
            codes
                .into_iter()
                .map(|c| c.into_iter().map(|c| palette[usize::from(c)]).collect())
                .collect()
        };
        parts.into_iter().map(|p| p.keys).zip(values)
    }
}

/// Inserts into one partition of a layer.
pub(super) struct Inserter<'a> {
    part: &'a mut Part,
    bits: u32,
}

impl Inserter<'_> {
    /// Inserts the keys whose hashes are `hashes`, replacing each by its id.
    ///
    /// The partition was last used a batch ago and has likely left the cache,
    /// so blocks of keys go through a pipeline: one block ahead, find their
    /// home slots and prefetch them; then find, without a branch on the
    /// outcome, the keys in their home slots (most are), and insert the rest
    /// one by one.
    #[inline(never)]
    pub(super) fn insert_all(&mut self, hashes: &mut [u64]) {
        const BLOCK: usize = 32;
        let part = &mut *self.part;
        let bits = self.bits;
        let len = hashes.len();
        let blocks = len.div_ceil(BLOCK);
        let block = |b: usize| b * BLOCK..((b + 1) * BLOCK).min(len);
        let mut homes = [[(0usize, 0u64); BLOCK]; 2];
        // The index size the homes of each block were found for.
        let mut sized = [0u32; 2];
        let mut missed = [0u8; BLOCK];
        for b in 0..=blocks {
            // Inserting may grow the index: read its shape afresh.
            let mask = part.index.len() - 1;
            let ib = part.index_bits;
            if b < blocks {
                sized[b % 2] = ib;
                for (home, &h) in homes[b % 2].iter_mut().zip(&hashes[block(b)]) {
                    *home = part.home_rest(h, bits);
                    prefetch(&part.index[home.0 & mask]);
                }
            }
            if b >= 1 {
                let c = b - 1;
                let hs = &mut hashes[block(c)];
                // Homes found before the index grew are stale: all miss.
                let fresh = sized[c % 2] == ib;
                let mut n = 0;
                for (i, (h, &(home, above))) in hs.iter_mut().zip(&homes[c % 2]).enumerate() {
                    let e = part.index[home & mask];
                    let hit = fresh && e != 0 && e >> ib == above;
                    missed[n] = i as u8;
                    n += usize::from(!hit);
                    *h = if hit { (e & ((1 << ib) - 1)) - 1 } else { *h };
                }
                for &i in &missed[..n] {
                    let h = &mut hs[usize::from(i)];
                    *h = u64::from(part.insert(*h, bits).0);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_coded_when_few() {
        let mut l = Layer::new(1000);
        for k in 0..1000u64 {
            l.insert(k * 3);
        }
        let cells = |l: &Layer| -> Vec<Cell> {
            (0..l.part_count())
                .flat_map(|p| (0..l.parts()[p].len()).map(move |i| (p, i)))
                .map(|(p, i)| l.value(p, i))
                .collect()
        };
        // 1000 distinct values: kept as they are.
        let mut n = 0;
        l.values = l
            .parts()
            .iter()
            .map(|p| {
                (0..p.len())
                    .map(|_| {
                        n += 7;
                        Cell(n)
                    })
                    .collect()
            })
            .collect();
        l.values[0][0] = Cell(60000);
        let before = cells(&l);
        l.compress();
        assert!(l.palette.is_empty());
        assert_eq!(cells(&l), before);
        // 10 distinct values: coded.
        l.values = l
            .parts()
            .iter()
            .map(|p| (0..p.len()).map(|i| Cell(i as u16 % 10)).collect())
            .collect();
        let before = cells(&l);
        l.compress();
        assert_eq!(l.palette.len(), 10);
        assert!(l.values.is_empty());
        assert_eq!(cells(&l), before);
        let parts: Vec<(Vec<u64>, Vec<Cell>)> = l.into_parts().collect();
        assert_eq!(
            parts
                .iter()
                .flat_map(|p| p.1.iter().copied())
                .collect::<Vec<_>>(),
            before
        );
    }

    #[test]
    fn inserts_find_and_grow() {
        let mut l = Layer::new(100_000);
        assert!(l.part_count() > 1);
        let keys: Vec<u64> = (1..50_000u64).map(|i| i * 7919 % 1_000_003).collect();
        let mut at = Vec::new();
        for &k in &keys {
            let (p, id, new) = l.insert(k);
            assert!(new);
            assert_eq!(l.insert(k), (p, id, false));
            at.push((p, id));
        }
        assert!(l.insert(0).2);
        assert!(l.insert((1 << 63) - 1).2);
        let bits = l.bits;
        l.parts.iter_mut().for_each(|p| p.materialize(bits));
        for (&k, &(p, id)) in keys.iter().zip(&at) {
            assert_eq!(unhash(l.parts()[p].hashes()[id as usize]), k);
        }
        // States added after the hashes are written out are appended.
        let (p, id, _) = l.insert(12_345_678);
        assert_eq!(unhash(l.parts()[p].hashes()[id as usize]), 12_345_678);
        assert_eq!(l.len(), keys.len() + 3);
        // Without the index, states are found or added by scanning.
        let before = l.len();
        let mut dropped = Layer::new(100_000);
        for &k in &keys {
            dropped.insert(k);
        }
        dropped.drop_index();
        let asked: Vec<u64> = [keys[5], 77, keys[9], 77, keys[5]]
            .iter()
            .map(|&k| hash(k))
            .collect();
        let got = dropped.resolve(&asked);
        assert_eq!(got[0], got[4]);
        assert_eq!(got[1], got[3]);
        assert_eq!(dropped.len(), keys.len() + 1);
        for (&(p, id), &h) in got.iter().zip(&asked) {
            assert_eq!(dropped.parts()[p as usize].hashes()[id as usize], h);
        }
        assert_eq!(l.len(), before);
        // Inserting through the pipeline finds the same ids.
        let mut again: Vec<u64> = keys.iter().copied().chain([1_000_004]).collect();
        let want: Vec<(usize, u32, bool)> = again.iter().map(|&k| l.insert(k)).collect();
        for (p, mut ins) in l.inserters().enumerate() {
            let mut mine: Vec<u64> = again
                .iter()
                .map(|&k| hash(k))
                .filter(|&h| top(h, ins.bits) == p)
                .collect();
            let expect: Vec<u64> = mine
                .iter()
                .map(|&h| u64::from(want[again.iter().position(|&x| x == unhash(h)).unwrap()].1))
                .collect();
            ins.insert_all(&mut mine);
            assert_eq!(mine, expect);
        }
        again.clear();
    }
}
