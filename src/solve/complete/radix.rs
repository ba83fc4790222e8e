//! Sorting the records: a least-significant-digit radix sort on the key
//! bits.
//!
//! Keys are distinct, so ordering the records by their key bits alone orders
//! them completely; digits on which every record agrees are skipped.

use rayon::prelude::*;

/// Bits of a digit: 2048 buckets, whose write positions stay in cache.
const DIGIT_BITS: u32 = 13;
const BUCKETS: usize = 1 << DIGIT_BITS;

/// Sorts `records`, whose keys (distinct) start at bit `key_shift`.
pub(super) fn sort(records: &mut Vec<u64>, key_shift: u32) {
    let n = records.len();
    if n < 2 {
        return;
    }
    let (or, and) = records
        .par_chunks(1 << 16)
        .map(|c| c.iter().fold((0, u64::MAX), |(o, a), &r| (o | r, a & r)))
        .reduce(|| (0, u64::MAX), |x, y| (x.0 | y.0, x.1 & y.1));
    let varying = (or ^ and).checked_shr(key_shift).unwrap_or(0) << key_shift;
    if varying == 0 {
        return;
    }
    let lo = varying.trailing_zeros();
    let hi = 64 - varying.leading_zeros();
    let shifts: Vec<u32> = (lo..hi).step_by(DIGIT_BITS as usize).collect();
    // Every digit's histogram in one pass.
    let counts = records
        .par_chunks(1 << 16)
        .map(|c| {
            let mut h = vec![[0usize; BUCKETS]; shifts.len()];
            for &r in c {
                for (h, &s) in h.iter_mut().zip(&shifts) {
                    h[(r >> s) as usize & (BUCKETS - 1)] += 1;
                }
            }
            h
        })
        .reduce(
            || vec![[0usize; BUCKETS]; shifts.len()],
            |mut a, b| {
                for (a, b) in a.iter_mut().zip(&b) {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                }
                a
            },
        );
    let mut scratch = Vec::with_capacity(n);
    crate::core::platform::advise_huge_pages(&scratch);
    scratch.resize(n, 0);
    for (h, &s) in counts.iter().zip(&shifts) {
        if h.contains(&n) {
            continue;
        }
        let mut at = [0usize; BUCKETS];
        let mut sum = 0;
        for (a, &c) in at.iter_mut().zip(h) {
            *a = sum;
            sum += c;
        }
        for &r in records.iter() {
            let b = (r >> s) as usize & (BUCKETS - 1);
            scratch[at[b]] = r;
            at[b] += 1;
        }
        std::mem::swap(records, &mut scratch);
    }
}

/// Below this many values [`sort_in_place`] hands over to `sort_unstable`.
const SMALL: usize = 64;

/// Sorts `values` (any `u64`s) most significant digit first, through
/// `scratch` (grown to `values.len()` if shorter): each pass splits on the
/// highest bits on which the values still differ, so skewed values (the
/// canonical keys crowd their top bits) split as evenly as their spread
/// allows, and each part is sorted alone while it is in cache.
pub(super) fn sort_in_place(values: &mut [u64], scratch: &mut Vec<u64>) {
    if scratch.len() < values.len() {
        scratch.resize(values.len(), 0);
    }
    let n = values.len();
    msd(values, &mut scratch[..n], true);
}

/// Sorts the values in `src` (as long as `dst`) into `src` when `back`,
/// else into `dst`. Each pass scatters from one buffer into the other and
/// the parts are sorted on from there, so no pass copies back.
fn msd(src: &mut [u64], dst: &mut [u64], back: bool) {
    let n = src.len();
    if n <= SMALL {
        src.sort_unstable();
        if !back {
            dst.copy_from_slice(src);
        }
        return;
    }
    let first = src[0];
    let differ = src.iter().fold(0, |a, &v| a | (v ^ first));
    if differ == 0 {
        if !back {
            dst.copy_from_slice(src);
        }
        return;
    }
    let hi = 64 - differ.leading_zeros();
    // About 16 values per part on evenly spread input, at most 4096 parts.
    let bits = (usize::BITS - (n / 16).leading_zeros()).clamp(4, 12);
    let bits = bits.min(hi);
    let shift = hi - bits;
    let mask = (1usize << bits) - 1;
    let mut at = vec![0usize; (1 << bits) + 1];
    for &v in src.iter() {
        at[((v >> shift) as usize & mask) + 1] += 1;
    }
    for d in 0..1 << bits {
        at[d + 1] += at[d];
    }
    let mut next = at.clone();
    for &v in src.iter() {
        let d = (v >> shift) as usize & mask;
        dst[next[d]] = v;
        next[d] += 1;
    }
    // The parts are in `dst` now: sorted on from there, they end in `src`
    // exactly when `back` asks for it.
    let (mut from, mut to): (&mut [u64], &mut [u64]) = (dst, src);
    for w in at.windows(2) {
        let len = w[1] - w[0];
        let (part, rest) = std::mem::take(&mut from).split_at_mut(len);
        let (other, others) = std::mem::take(&mut to).split_at_mut(len);
        match len {
            0 => {}
            1 => {
                if back {
                    other[0] = part[0];
                }
            }
            _ => msd(part, other, !back),
        }
        from = rest;
        to = others;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_in_place_sorts_like_sort_unstable() {
        let mut seed = 0x0F1E_2D3C_4B5A_6978u64;
        let mut scratch = Vec::new();
        for n in [0usize, 1, 2, 64, 65, 1000, 100_000] {
            for spread in [64u32, 40, 20, 3] {
                let mut v: Vec<u64> = (0..n)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        // Skewed: the top bits mostly zero, duplicates allowed.
                        (seed >> (64 - spread)) & (seed >> 3 | 0xFFF)
                    })
                    .collect();
                let mut want = v.clone();
                want.sort_unstable();
                sort_in_place(&mut v, &mut scratch);
                assert_eq!(v, want, "n={n} spread={spread}");
            }
        }
    }

    #[test]
    fn sorts_like_sort_unstable() {
        let mut seed = 0x1234_5678_9ABC_DEF1u64;
        for n in [0usize, 1, 2, 5, 100, 3000, 200_000] {
            for (spread, shift) in [(63u32, 12u32), (40, 0), (13, 3)] {
                let mut v: Vec<u64> = (0..n)
                    .map(|i| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        // Distinct keys, skewed: many share their top bits.
                        let key = ((seed >> (64 - spread + shift)) & (seed >> 7 | 0xFFFF))
                            ^ ((i as u64).wrapping_mul(0x9E37) % (1 << (spread - shift)));
                        key << shift | (seed & ((1 << shift) - 1))
                    })
                    .collect();
                let mut keys: Vec<u64> = v.iter().map(|r| r >> shift).collect();
                keys.sort_unstable();
                keys.dedup();
                if keys.len() != v.len() {
                    continue;
                }
                let mut want = v.clone();
                want.sort_unstable();
                sort(&mut v, shift);
                assert_eq!(v, want, "n={n} spread={spread}");
            }
        }
    }
}
