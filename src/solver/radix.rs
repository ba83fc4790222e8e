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
    super::advise_huge_pages(&scratch);
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

#[cfg(test)]
mod tests {
    use super::*;

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
