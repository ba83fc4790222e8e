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
//! One thread inserts at a time (the forward pass generates children in
//! parallel, then names them in one thread): an atomic read-modify-write
//! per insert would fence it and stall the slots fetched ahead. The slots
//! are atomics only so that the memory can be shared soundly; every access
//! is a plain load or store.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::prefetch;

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

/// Marks an id that names no state in [`Table::keys_by_id`]: no key has
/// all 64 bits.
pub(super) const GAP: u64 = u64::MAX;

/// log2 of the slots of a table for about `expected` states.
fn bits_for(expected: usize) -> u32 {
    let want = expected.saturating_mul(1000) / TARGET;
    want.max(64).next_power_of_two().trailing_zeros()
}

/// The slots of a table: zeroed anonymous memory, backed by huge pages where
/// the system allows (the table is probed at random, and with small pages
/// nearly every probe would miss the TLB too), seen as atomics.
struct Slots {
    /// Keeps the memory mapped; never read or written directly.
    _map: memmap2::MmapMut,
    ptr: *const AtomicU64,
    len: usize,
}

// SAFETY: `Slots` owns its memory like a `Vec<AtomicU64>` does, and only
// hands out `&[AtomicU64]`, which is `Send` and `Sync`.
unsafe impl Send for Slots {}
// SAFETY: as above.
unsafe impl Sync for Slots {}

impl Slots {
    /// `n` empty slots.
    fn new(n: usize) -> Slots {
        let bytes = n.checked_mul(8).expect("table size overflows");
        let mut map = match memmap2::MmapOptions::new().len(bytes.max(8)).map_anon() {
            Ok(map) => map,
            // As an allocation failure does.
            Err(e) => std::alloc::handle_alloc_error(
                std::alloc::Layout::from_size_align(bytes.max(8), 4096)
                    .unwrap_or_else(|_| panic!("cannot map {bytes} bytes: {e}")),
            ),
        };
        #[cfg(target_os = "linux")]
        {
            // Only a hint; without transparent huge pages it does nothing.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        let ptr = map.as_mut_ptr().cast::<AtomicU64>().cast_const();
        Slots {
            _map: map,
            ptr,
            len: n,
        }
    }

    #[inline(always)]
    fn get(&self) -> &[AtomicU64] {
        // SAFETY: the mapping is page aligned, zero-filled (a valid
        // `AtomicU64` is any 8 bytes) and at least `len * 8` bytes long; it
        // lives as long as `self`, and nothing accesses it but through
        // these atomics.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// The hash set of one layer's states. See the module documentation.
pub(super) struct Table {
    slots: Slots,
    /// Per id handed out: the complement of its key, or 0 if unused. Written
    /// as ids are handed out, in blocks, so mostly in order; only the used
    /// part of the mapping is ever touched.
    keys: Slots,
    /// log2 of the number of slots.
    bits: u32,
    /// Key width.
    key_bits: u32,
    /// States held.
    len: usize,
    /// The next id.
    next_id: u32,
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
            slots: Slots::new(1 << bits),
            keys: Slots::new(Geometry { bits, key_bits }.max_id() as usize + 1),
            bits,
            key_bits,
            len: 0,
            next_id: 0,
        }
    }

    fn geometry(&self) -> Geometry {
        Geometry {
            bits: self.bits,
            key_bits: self.key_bits,
        }
    }

    /// The number of states.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// One more than the largest id handed out: ids are below this, and
    /// most of them are in use.
    pub(super) fn id_bound(&self) -> u32 {
        self.next_id
    }

    /// Whether `extra` more states would fill the table beyond its growth
    /// threshold.
    pub(super) fn needs_room(&self, extra: usize) -> bool {
        self.bits < self.key_bits
            && self.len().saturating_add(extra) > self.slots.len * GROW_AT / 1000
    }

    /// Rebuilds the table with room for about `n` states (at least twice
    /// its slots), keeping every id.
    pub(super) fn grow(&mut self, n: usize) {
        let bits = bits_for(n.max(self.len())).max(self.bits + 1);
        let mut bigger = Table::with_bits(self.key_bits, bits);
        let old = self.geometry();
        for (slot, w) in self.slots.get().iter().enumerate() {
            let w = w.load(Relaxed);
            if w != 0 {
                let (h, id) = old.decode(slot, w);
                bigger.place(h, id);
            }
        }
        let used = self.id_bound() as usize;
        for (new, old) in bigger.keys.get()[..used].iter().zip(self.keys.get()) {
            new.store(old.load(Relaxed), Relaxed);
        }
        bigger.len = self.len;
        bigger.next_id = self.next_id;
        *self = bigger;
    }

    /// Places hash `h` with `id` (growing: it is not in the table yet).
    fn place(&mut self, h: u64, id: u32) {
        let g = self.geometry();
        let cap = self.slots.len;
        let home = g.home(h);
        for disp in 0..cap {
            let i = (home + disp) & (cap - 1);
            let s = &self.slots.get()[i];
            if s.load(Relaxed) == 0 {
                if disp as u64 > mask(DISP_BITS) {
                    // Too far from home: spread the keys further.
                    self.grow(0);
                    self.place(h, id);
                    return;
                }
                s.store(g.word(h, disp as u64, id), Relaxed);
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
        let slots = self.slots.get();
        let id_keys = self.keys.get();
        let cap_mask = slots.len() - 1;
        let max_id = g.max_id();
        let mut next_id = self.next_id;
        let mut new = 0;
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
                let w = slots[at].load(Relaxed);
                if w == 0 {
                    if disp > mask(DISP_BITS) || next_id > max_id {
                        break None;
                    }
                    slots[at].store(g.word(h, disp, next_id), Relaxed);
                    id_keys[next_id as usize].store(!key, Relaxed);
                    next_id += 1;
                    new += 1;
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
                    self.next_id = next_id;
                    self.len += new;
                    let done = self.len();
                    self.grow(done * 2);
                    return new + self.insert_all(&keys[i..], &mut ids[i..]);
                }
            }
        }
        self.next_id = next_id;
        self.len += new;
        new
    }

    /// The key of every id below [`Table::id_bound`]; [`GAP`] for the ids
    /// handed out but not used.
    pub(super) fn keys_by_id(&self) -> Vec<u64> {
        self.keys.get()[..self.id_bound() as usize]
            .iter()
            .map(|k| match k.load(Relaxed) {
                0 => GAP,
                k => !k,
            })
            .collect()
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
        let mut keys: Vec<u64> = t.keys_by_id().into_iter().filter(|&k| k != GAP).collect();
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
