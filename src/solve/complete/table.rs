//! A layer's states while it is being enumerated: an insert-only hash set
//! that gives every state a stable id.
//!
//! Keys of `K` bits are hashed by a bijection of `K`-bit numbers (an odd
//! multiplier modulo `2^K`). In a table of `2^b` slots a hash `h` has its
//! home slot in its top `b` bits, and linear probing places it `disp` slots
//! further. A slot then holds, in one `u64`,
//!
//! ```text
//! rest (low K - b bits of h) | disp (8 bits) | id + 1 (b + 2 bits)
//! ```
//!
//! which is `K + 10` bits: the home slot and `disp` give back the top bits of
//! the hash, so the whole key and its id fit in the slot, and a probe reads
//! one word. An empty slot is 0. Ids follow each other in order of insertion
//! and survive growing, which re-places every entry: the forward pass records
//! each edge's child by id at once. The keys are also kept by id as they are
//! inserted, so the layer's key list costs nothing to read out.
//!
//! Only one thread inserts (the forward pass generates children in parallel,
//! then names them in one thread): an atomic read-modify-write per insert
//! would fence it and stall the slots fetched ahead.

use crate::core::platform::prefetch;

/// Odd multiplier of the hash (2^64 divided by the golden ratio).
const MUL: u64 = 0x9E37_79B9_7F4A_7C15;

/// The widest key the table holds: key, displacement and id fill 64 bits.
pub(super) const MAX_KEY_BITS: u32 = 54;
/// Bits of the displacement field.
const DISP_BITS: u32 = 8;
/// Fill a table to at most this (per mille) before growing it.
const GROW_AT: usize = 900;
/// The fill a table aims for when sized for an expected number of states.
const TARGET: usize = 800;
/// Slots probed ahead of the one being inserted.
pub(super) const AHEAD: usize = 16;

/// log2 of the slots of a table for about `expected` states.
fn bits_for(expected: usize) -> u32 {
    let want = expected.saturating_mul(1000) / TARGET;
    want.max(64).next_power_of_two().trailing_zeros()
}

/// Zeroed anonymous memory seen as `u64`s, backed by huge pages where the
/// system allows: the slots are probed at random, and with small pages
/// nearly every probe would miss the TLB too. Only the part that is used is
/// ever touched.
struct Words {
    map: memmap2::MmapMut,
}

impl Words {
    /// `n` zero words.
    fn new(n: usize) -> Words {
        let bytes = n.checked_mul(8).expect("table size overflows").max(8);
        let map = match memmap2::MmapOptions::new().len(bytes).map_anon() {
            Ok(map) => map,
            // Report it as a failed allocation does.
            Err(_) => std::alloc::handle_alloc_error(
                std::alloc::Layout::from_size_align(bytes, 8).expect("a valid layout"),
            ),
        };
        #[cfg(target_os = "linux")]
        {
            // Only a hint; without transparent huge pages it does nothing.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Words { map }
    }

    #[inline(always)]
    fn get(&self) -> &[u64] {
        bytemuck::cast_slice(&self.map[..])
    }

    #[inline(always)]
    fn get_mut(&mut self) -> &mut [u64] {
        bytemuck::cast_slice_mut(&mut self.map[..])
    }
}

/// The hash set of one layer's states. See the module documentation.
pub(super) struct Table {
    /// `2^bits` slots, then nothing: the mapping may be a little longer.
    slots: Words,
    /// The key of each id, written in order as ids are handed out.
    keys: Words,
    /// log2 of the number of slots.
    bits: u32,
    /// Key width.
    key_bits: u32,
    /// States held, which is also the next id.
    len: u32,
}

/// The geometry of a table, copied into the views so that the hot loops
/// keep it in registers.
#[derive(Clone, Copy)]
struct Geometry {
    bits: u32,
    key_bits: u32,
}

impl Geometry {
    #[inline(always)]
    fn hash(self, key: u64) -> u64 {
        key.wrapping_mul(MUL) & mask(self.key_bits)
    }

    #[inline(always)]
    fn home(self, h: u64) -> usize {
        (h >> (self.key_bits - self.bits)) as usize
    }

    /// The slot word of hash `h` placed `disp` past home, with id `id`.
    #[inline(always)]
    fn word(self, h: u64, disp: u64, id: u32) -> u64 {
        let rest = h & mask(self.key_bits - self.bits);
        rest << (DISP_BITS + self.bits + 2) | disp << (self.bits + 2) | u64::from(id + 1)
    }

    /// The hash part of a slot word (rest and displacement): equal for equal
    /// keys placed equally far from home.
    #[inline(always)]
    fn tag(self, w: u64) -> u64 {
        w >> (self.bits + 2)
    }

    #[inline(always)]
    fn id(self, w: u64) -> u32 {
        (w & mask(self.bits + 2)) as u32 - 1
    }

    /// The hash and id held by word `w` in slot `slot`: its home slot and
    /// displacement give back the top bits of the hash.
    #[inline]
    fn decode(self, slot: usize, w: u64) -> (u64, u32) {
        let disp = (w >> (self.bits + 2)) & mask(DISP_BITS);
        let home = (slot as u64).wrapping_sub(disp) & mask(self.bits);
        let rest = w >> (DISP_BITS + self.bits + 2);
        (home << (self.key_bits - self.bits) | rest, self.id(w))
    }

    /// The largest id a slot word can hold.
    fn max_id(self) -> u32 {
        (mask(self.bits + 2) - 1).min(u64::from(u32::MAX - 1)) as u32
    }
}

#[inline(always)]
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

impl Table {
    /// An empty table for keys of `key_bits` bits (at most
    /// [`MAX_KEY_BITS`]) with room for about `expected` states.
    pub(super) fn new(key_bits: u32, expected: usize) -> Table {
        Table::with_bits(key_bits, bits_for(expected))
    }

    /// An empty table of `2^bits` slots (at most one per key).
    fn with_bits(key_bits: u32, bits: u32) -> Table {
        debug_assert!(key_bits <= MAX_KEY_BITS);
        let bits = bits.min(key_bits);
        Table {
            slots: Words::new(1 << bits),
            keys: Words::new(Geometry { bits, key_bits }.max_id() as usize + 1),
            bits,
            key_bits,
            len: 0,
        }
    }

    fn geometry(&self) -> Geometry {
        Geometry {
            bits: self.bits,
            key_bits: self.key_bits,
        }
    }

    /// The number of states; their ids are `0..len`.
    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    /// The slots.
    #[inline(always)]
    fn slots(&self) -> &[u64] {
        &self.slots.get()[..1 << self.bits]
    }

    /// Whether `extra` more states would fill the table beyond its growth
    /// threshold.
    pub(super) fn needs_room(&self, extra: usize) -> bool {
        self.bits < self.key_bits
            && self.len().saturating_add(extra) > (1usize << self.bits) * GROW_AT / 1000
    }

    /// Rebuilds the table with room for about `n` states (at least twice
    /// its slots), keeping every id.
    pub(super) fn grow(&mut self, n: usize) {
        let bits = bits_for(n.max(self.len())).max(self.bits + 1);
        let mut bigger = Table::with_bits(self.key_bits, bits);
        let old = self.geometry();
        for (slot, &w) in self.slots().iter().enumerate() {
            if w != 0 {
                let (h, id) = old.decode(slot, w);
                bigger.place(h, id);
            }
        }
        let n = self.len();
        bigger.keys.get_mut()[..n].copy_from_slice(&self.keys.get()[..n]);
        bigger.len = self.len;
        *self = bigger;
    }

    /// Places hash `h` with `id` (growing: it is not in the table yet).
    fn place(&mut self, h: u64, id: u32) {
        let g = self.geometry();
        let cap = 1usize << self.bits;
        let home = g.home(h);
        for disp in 0..cap {
            let i = (home + disp) & (cap - 1);
            if self.slots.get()[i] == 0 {
                if disp as u64 > mask(DISP_BITS) {
                    // Too far from home: spread the keys further.
                    self.grow(0);
                    self.place(h, id);
                    return;
                }
                self.slots.get_mut()[i] = g.word(h, disp as u64, id);
                return;
            }
        }
        unreachable!("a growing table has free slots");
    }

    /// The id of `key`, inserting it if new; grows as needed.
    pub(super) fn insert(&mut self, key: u64) -> u32 {
        let mut id = [0];
        self.insert_all(&[key], &mut id);
        id[0]
    }

    /// Inserts every key of `keys`, writing their ids to `ids`, growing as
    /// needed; returns how many were new. The home slots of the keys a few
    /// places ahead are fetched early: the table is larger than the cache,
    /// and the probes are independent.
    pub(super) fn insert_all(&mut self, keys: &[u64], ids: &mut [u32]) -> usize {
        if self.needs_room(keys.len()) {
            self.grow(self.len() + keys.len());
        }
        let g = self.geometry();
        let slots = &mut self.slots.get_mut()[..1 << g.bits];
        let id_keys = self.keys.get_mut();
        let cap_mask = slots.len() - 1;
        let max_id = g.max_id();
        let first = self.len;
        let mut next_id = first;
        let mut i = 0;
        while i < keys.len() {
            let key = keys[i];
            if let Some(&ahead) = keys.get(i + AHEAD) {
                prefetch(&slots[g.home(g.hash(ahead))]);
            }
            let h = g.hash(key);
            let mut at = g.home(h);
            let mut disp = 0u64;
            let id = loop {
                let w = slots[at];
                if w == 0 {
                    if disp > mask(DISP_BITS) || next_id > max_id {
                        break None;
                    }
                    slots[at] = g.word(h, disp, next_id);
                    id_keys[next_id as usize] = key;
                    next_id += 1;
                    break Some(next_id - 1);
                }
                if g.tag(w) == g.tag(g.word(h, disp, 0)) {
                    break Some(g.id(w));
                }
                disp += 1;
                at = (at + 1) & cap_mask;
            };
            match id {
                Some(id) => {
                    ids[i] = id;
                    i += 1;
                }
                None => {
                    // Too far from home, or out of ids: grow, then go on.
                    self.len = next_id;
                    self.grow(self.len() * 2);
                    let rest = self.insert_all(&keys[i..], &mut ids[i..]);
                    return (next_id - first) as usize + rest;
                }
            }
        }
        self.len = next_id;
        (next_id - first) as usize
    }

    /// The key of every id, `0..len`.
    pub(super) fn keys_by_id(&self) -> Vec<u64> {
        self.keys.get()[..self.len()].to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_keys_come_back() {
        let mut t = Table::new(40, 10);
        let keys: Vec<u64> = (0..20_000u64)
            .map(|i| (i * 0x9E37_79B9) & ((1 << 40) - 1))
            .collect();
        let mut ids = Vec::new();
        for &k in &keys {
            let id = t.insert(k);
            assert_eq!(id as usize, ids.len(), "ids follow each other");
            ids.push(id);
            assert_eq!(t.insert(k), id, "{k} keeps its id");
        }
        assert_eq!(t.len(), keys.len());
        let mut again = vec![0; keys.len()];
        assert_eq!(t.insert_all(&keys, &mut again), 0);
        assert_eq!(again, ids, "ids survive growing");
        let by_id = t.keys_by_id();
        for (&k, &id) in keys.iter().zip(&ids) {
            assert_eq!(by_id[id as usize], k);
        }
    }

    #[test]
    fn batches_name_duplicates_alike() {
        let mut t = Table::new(30, 0);
        let keys: Vec<u64> = (0..60_000u64).map(|i| (i * 7919) % 50_000).collect();
        let mut ids = vec![0; keys.len()];
        assert_eq!(t.insert_all(&keys, &mut ids), 50_000);
        let by_id = t.keys_by_id();
        assert_eq!(by_id.len(), 50_000);
        for (&k, &id) in keys.iter().zip(&ids) {
            assert_eq!(by_id[id as usize], k);
        }
    }

    #[test]
    fn tiny_key_spaces_fill_up() {
        let mut t = Table::new(7, 0);
        for k in 0..128 {
            t.insert(k);
        }
        assert_eq!(t.len(), 128);
        let mut keys = t.keys_by_id();
        keys.sort_unstable();
        assert_eq!(keys, (0..128).collect::<Vec<_>>());
    }

    #[test]
    fn clustered_keys_spread_out() {
        // Keys that differ only in their top bits, as board keys often do.
        let mut t = Table::new(51, 0);
        let keys: Vec<u64> = (0..1u64 << 14).map(|i| i << 37).collect();
        let mut ids = vec![0; keys.len()];
        assert_eq!(t.insert_all(&keys, &mut ids), keys.len());
        let by_id = t.keys_by_id();
        for (&k, &id) in keys.iter().zip(&ids) {
            assert_eq!(by_id[id as usize], k);
        }
    }
}
