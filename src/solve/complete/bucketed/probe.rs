//! The name step's hash table ([`Probe`]): a bucket's states get their
//! local ids in it, eight keys at a time with AVX-512 where the processor
//! has it.

use crate::core::platform::prefetch;

/// Whether [`Probe::insert_all`] may use AVX-512 (F, DQ and VL).
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_avx512() -> bool {
    crate::core::platform::features().avx512_f_dq_vl()
}

/// Odd multiplier of the hash (2^64 divided by the golden ratio).
const MUL: u64 = 0x9E37_79B9_7F4A_7C15;

/// Keys probed ahead of the one being inserted.
const AHEAD: usize = 16;

/// The name step's table: an insert-only hash set of one bucket's states,
/// numbering them in order of insertion. Linear probing, at most half full;
/// a slot holds key + 1 (0 is empty) beside its id. (Lines of 8 slots
/// compared at once were slower here: most probes end at the first slot.)
#[derive(Default)]
pub(in crate::solve) struct Probe {
    slots: Vec<u64>,
    ids: Vec<u32>,
    /// The states inserted, by id.
    pub(in crate::solve) keys: Vec<u64>,
    bits: u32,
}

impl Probe {
    /// Empties the table, sized for about `expected` states.
    pub(in crate::solve) fn reset(&mut self, expected: usize) {
        let bits = expected
            .saturating_mul(2)
            .max(64)
            .next_power_of_two()
            .trailing_zeros();
        self.keys.clear();
        self.set_bits(bits);
    }

    fn set_bits(&mut self, bits: u32) {
        let n = 1usize << bits;
        if self.slots.len() < n {
            self.slots = vec![0; n];
            self.ids = vec![0; n];
        } else {
            self.slots[..n].fill(0);
        }
        self.bits = bits;
    }

    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(MUL) >> (64 - self.bits)) as usize
    }

    /// Doubles the table, keeping every id.
    fn grow(&mut self) {
        let keys = std::mem::take(&mut self.keys);
        self.set_bits(self.bits + 1);
        let mask = (1usize << self.bits) - 1;
        for (id, &key) in keys.iter().enumerate() {
            let mut at = self.home(key);
            while self.slots[at] != 0 {
                at = (at + 1) & mask;
            }
            self.slots[at] = key + 1;
            self.ids[at] = id as u32;
        }
        self.keys = keys;
    }

    /// The id of `key`, inserted if new.
    #[inline(always)]
    pub(super) fn insert(&mut self, key: u64) -> u32 {
        self.make_room(1);
        self.insert_in_room(key)
    }

    /// Grows the table if `n` more keys could leave it over half full.
    #[inline(always)]
    fn make_room(&mut self, n: usize) {
        while (self.keys.len() + n) * 2 > 1 << self.bits {
            self.grow();
        }
    }

    /// [`Probe::insert`] where [`Probe::make_room`] made room for it.
    #[inline(always)]
    fn insert_in_room(&mut self, key: u64) -> u32 {
        let mask = (1usize << self.bits) - 1;
        let mut at = self.home(key);
        let tag = key + 1;
        loop {
            let w = self.slots[at];
            if w == tag {
                return self.ids[at];
            }
            if w == 0 {
                let id = self.keys.len() as u32;
                self.slots[at] = tag;
                self.ids[at] = id;
                self.keys.push(key);
                return id;
            }
            at = (at + 1) & mask;
        }
    }

    /// Inserts every key of `keys`, writing their ids (truncated to 16
    /// bits: the caller checks the size) to `ids`, as long. The home slots of the
    /// keys a few places ahead are fetched early: the probes are independent.
    pub(in crate::solve) fn insert_all(&mut self, keys: &[u64], ids: &mut [u16]) {
        #[cfg(target_arch = "x86_64")]
        if has_avx512() {
            // SAFETY: the processor has AVX-512 F, DQ and VL (just
            // checked), the features the function is compiled for.
            return unsafe { self.insert_all_avx512(keys, ids) };
        }
        self.insert_all_scalar(keys, ids);
    }

    /// [`Probe::insert_all`] eight keys at a time: most keys are already in
    /// the table at their home slot, so one gather of the 8 home slots and
    /// one of their ids name most of them without a branch; the rest go
    /// through [`Probe::insert`] in order, so the ids are those the scalar
    /// code gives.
    ///
    /// Code not compiled for its features calls it in `unsafe`, knowing
    /// that the processor has AVX-512 F, DQ and VL.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    fn insert_all_avx512(&mut self, keys: &[u64], ids: &mut [u16]) {
        use std::arch::x86_64::*;
        let n = keys.len().min(ids.len());
        let mut i = 0;
        while i + 8 <= n {
            // No growth inside a batch: the gathered homes stay valid.
            self.make_room(8);
            for &ahead in keys.iter().skip(i + AHEAD).take(8) {
                let h = self.home(ahead);
                prefetch(&self.slots[h]);
                prefetch(&self.ids[h]);
            }
            let batch = &keys[i..i + 8];
            // SAFETY: the unaligned load reads 64 bytes, the 8 `u64`s of
            // `batch`.
            let k = unsafe { _mm512_loadu_si512(batch.as_ptr().cast()) };
            let tag = _mm512_add_epi64(k, _mm512_set1_epi64(1));
            let shift = _mm_cvtsi64_si128(i64::from(64 - self.bits));
            let home =
                _mm512_srl_epi64(_mm512_mullo_epi64(k, _mm512_set1_epi64(MUL as i64)), shift);
            // SAFETY: every home is below 2^bits (the top `bits` bits of a
            // product), and `slots` holds at least 2^bits `u64`s: each lane
            // reads 8 bytes within it.
            let slots = unsafe { _mm512_i64gather_epi64::<8>(home, self.slots.as_ptr().cast()) };
            let hit = _mm512_cmpeq_epi64_mask(slots, tag);
            // SAFETY: every home is below 2^bits, and `ids` holds as many
            // `u32`s as `slots` holds words, at least 2^bits: each lane hit
            // reads 4 bytes within it (lanes not hit read nothing).
            let found = unsafe {
                _mm512_mask_i64gather_epi32::<4>(
                    _mm256_setzero_si256(),
                    hit,
                    home,
                    self.ids.as_ptr().cast(),
                )
            };
            let out = &mut ids[i..i + 8];
            // SAFETY: the unaligned store writes 16 bytes to `out`, a unique
            // slice of 8 `u16`s.
            unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), _mm256_cvtepi32_epi16(found)) };
            let mut miss = !hit;
            while miss != 0 {
                let j = miss.trailing_zeros() as usize;
                miss &= miss - 1;
                out[j] = self.insert_in_room(batch[j]) as u16;
            }
            i += 8;
        }
        self.insert_all_scalar(&keys[i..n], &mut ids[i..n]);
    }

    /// [`Probe::insert_all`] one key at a time, with room made for a run of
    /// keys at once.
    fn insert_all_scalar(&mut self, keys: &[u64], ids: &mut [u16]) {
        const RUN: usize = 64;
        for (r, ids) in ids.chunks_mut(RUN).enumerate() {
            self.make_room(ids.len());
            for (i, id) in (r * RUN..).zip(ids) {
                if let Some(&ahead) = keys.get(i + AHEAD) {
                    let h = self.home(ahead);
                    prefetch(&self.slots[h]);
                    prefetch(&self.ids[h]);
                }
                if let Some(&key) = keys.get(i) {
                    *id = self.insert_in_room(key) as u16;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vector_probe_names_as_the_scalar_one() {
        #[cfg(target_arch = "x86_64")]
        if has_avx512() {
            let mut seed = 0x9E37_79B9_7F4A_7C15u64;
            for (distinct, n, expected) in
                [(50u64, 400usize, 10usize), (3000, 20_000, 100), (7, 13, 1)]
            {
                let keys: Vec<u64> = (0..n)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        (seed % distinct).wrapping_mul(0x0123_4567_89AB) >> 13
                    })
                    .collect();
                let (mut a, mut b) = (Probe::default(), Probe::default());
                // Too small at first: both grow on the way.
                a.reset(expected);
                b.reset(expected);
                let (mut ia, mut ib) = (vec![0u16; n], vec![0u16; n]);
                a.insert_all_scalar(&keys, &mut ia);
                // SAFETY: the processor has AVX-512 F, DQ and VL (checked
                // above), the features the function is compiled for.
                unsafe { b.insert_all_avx512(&keys, &mut ib) };
                assert_eq!(ia, ib);
                assert_eq!(a.keys, b.keys);
                for (&k, &id) in keys.iter().zip(&ia) {
                    assert_eq!(a.keys[usize::from(id)], k);
                }
            }
        }
    }
}
