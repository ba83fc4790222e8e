//! The records of every layer in one ascending array: a most-significant-digit
//! radix sort.
//!
//! One pass distributes the records, as they are packed from the layers, into
//! buckets by their top bits; the buckets, now mostly small, are then sorted
//! in place in parallel, by further radix passes through a scratch buffer the
//! size of a bucket. No second array of all records is needed.

use rayon::prelude::*;

use super::layer::{unhash, Layer};
use super::{Cell, SolveError};
use crate::db::layout::RecordLayout;

/// Bits of the first digit: few enough buckets that distributing into them
/// streams through the cache.
const TOP_BITS: u32 = 11;
/// Bits of the later digits.
const DIGIT_BITS: u32 = 8;
/// Buckets this small are finished by insertion sort.
const SMALL: usize = 32;

/// Every record of `layers`, ascending; frees the layers as it goes.
pub(super) fn sorted_records(
    layers: Vec<Layer>,
    layout: &RecordLayout,
) -> Result<Vec<u64>, SolveError> {
    // Pack each partition's records in place of its key hashes.
    let mut parts: Vec<(Vec<u64>, Vec<Cell>)> = Vec::new();
    for layer in layers {
        parts.extend(layer.into_parts());
    }
    let parts: Vec<Vec<u64>> = parts
        .into_par_iter()
        .map(|(mut keys, vals)| {
            for (k, &c) in keys.iter_mut().zip(&vals) {
                *k = layout.pack(unhash(*k), c.value())?;
            }
            Ok(keys)
        })
        .collect::<Result<_, SolveError>>()?;
    // The bits in use, to place the first digit.
    let all_bits = parts
        .par_iter()
        .map(|p| p.iter().fold(0, |a, &r| a | r))
        .reduce(|| 0, |a, b| a | b);
    let width = 64 - all_bits.leading_zeros();
    let top = TOP_BITS.min(width);
    let shift = width - top;
    let bucket = move |r: u64| r.checked_shr(shift).unwrap_or(0) as usize;
    let buckets = 1usize << top;
    let counts = parts
        .par_iter()
        .fold(
            || vec![0usize; buckets],
            |mut h, p| {
                for &r in p {
                    h[bucket(r)] += 1;
                }
                h
            },
        )
        .reduce(
            || vec![0usize; buckets],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        );
    let mut at = Vec::with_capacity(buckets);
    let mut total = 0;
    for &c in &counts {
        at.push(total);
        total += c;
    }
    let mut out = vec![0u64; total];
    for p in parts {
        for r in p {
            let b = bucket(r);
            out[at[b]] = r;
            at[b] += 1;
        }
    }
    // Split the array into its buckets and sort them independently.
    let mut buckets = Vec::with_capacity(buckets);
    let mut rest: &mut [u64] = &mut out;
    for &c in &counts {
        let (head, tail) = rest.split_at_mut(c);
        if c > 1 {
            buckets.push(head);
        }
        rest = tail;
    }
    buckets
        .into_par_iter()
        .for_each_init(Vec::new, |scratch, b| {
            sort_digits(b, shift, scratch);
        });
    Ok(out)
}

/// Sorts `v`, whose records agree on every bit from `bits` up.
fn sort_digits(v: &mut [u64], bits: u32, scratch: &mut Vec<u64>) {
    if v.len() <= SMALL || bits == 0 {
        insertion_sort(v);
        return;
    }
    let d = DIGIT_BITS.min(bits);
    let shift = bits - d;
    let mask = (1usize << d) - 1;
    let mut counts = [0usize; 1 << DIGIT_BITS];
    for &r in v.iter() {
        counts[(r >> shift) as usize & mask] += 1;
    }
    let mut at = [0usize; 1 << DIGIT_BITS];
    let mut sum = 0;
    for (a, &c) in at.iter_mut().zip(&counts) {
        *a = sum;
        sum += c;
    }
    scratch.clear();
    scratch.resize(v.len(), 0);
    for &r in v.iter() {
        let b = (r >> shift) as usize & mask;
        scratch[at[b]] = r;
        at[b] += 1;
    }
    v.copy_from_slice(scratch);
    let mut rest = v;
    for &c in &counts[..=mask] {
        let (head, tail) = rest.split_at_mut(c);
        if c > 1 {
            sort_digits(head, shift, scratch);
        }
        rest = tail;
    }
}

fn insertion_sort(v: &mut [u64]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_sort_unstable() {
        let mut seed = 0x1234_5678_9ABC_DEF1u64;
        for n in [0usize, 1, 2, 5, 100, 3000, 200_000] {
            for spread in [64u32, 40, 13] {
                let mut v: Vec<u64> = (0..n)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        // Skewed: many records share their top bits.
                        (seed >> (64 - spread)) & (seed >> 7 | 0xFFFF)
                    })
                    .collect();
                let mut want = v.clone();
                want.sort_unstable();
                sort_digits(&mut v, spread, &mut Vec::new());
                assert_eq!(v, want, "n={n} spread={spread}");
            }
        }
    }
}
