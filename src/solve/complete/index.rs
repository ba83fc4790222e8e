//! Finding keys in a sorted layer fast: an index on the top bits of the
//! keys, then a binary search of a few keys, instead of some 25 probes
//! across a layer of megabytes or gigabytes.

/// A sorted, duplicate-free slice of keys with an index on their top bits.
pub(crate) struct SortedIndex<'a> {
    keys: &'a [u64],
    shift: u32,
    /// `starts[b]`: the place of the first key whose top bits are `b` or
    /// more.
    starts: Vec<u32>,
}

/// `log2` of the index entries, at most (64 MiB of entries).
const MAX_INDEX_BITS: u32 = 24;

impl<'a> SortedIndex<'a> {
    /// Indexes `keys` (sorted, without duplicates, fewer than 2^32) with
    /// about one entry per two keys.
    pub(crate) fn new(keys: &'a [u64]) -> SortedIndex<'a> {
        let last = keys.last().copied().unwrap_or(0);
        let bits = (usize::BITS - keys.len().leading_zeros()).clamp(1, MAX_INDEX_BITS);
        let shift = (64 - last.leading_zeros()).saturating_sub(bits);
        let buckets = (last >> shift) as usize + 1;
        let mut starts = Vec::with_capacity(buckets + 1);
        let mut i = 0;
        for b in 0..=buckets {
            while i < keys.len() && ((keys[i] >> shift) as usize) < b {
                i += 1;
            }
            starts.push(u32::try_from(i).unwrap_or(u32::MAX));
        }
        SortedIndex {
            keys,
            shift,
            starts,
        }
    }

    /// The place of `key`, if the slice holds it.
    #[inline]
    pub(crate) fn find(&self, key: u64) -> Option<usize> {
        let b = usize::try_from(key >> self.shift).ok()?;
        let (&from, &to) = (self.starts.get(b)?, self.starts.get(b + 1)?);
        let (from, to) = (from as usize, to as usize);
        self.keys[from..to]
            .binary_search(&key)
            .ok()
            .map(|i| from + i)
    }
}

#[cfg(test)]
mod tests {
    use super::SortedIndex;

    #[test]
    fn the_index_finds_every_key_and_nothing_else() {
        let mut keys: Vec<u64> = (0..5000u64)
            .map(|i| (i * i * 7919 % 1_000_003) << 20)
            .collect();
        keys.push(1 << 50);
        keys.sort_unstable();
        keys.dedup();
        let index = SortedIndex::new(&keys);
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(index.find(k), Some(i));
            assert_eq!(index.find(k + 1), keys.binary_search(&(k + 1)).ok());
        }
        assert_eq!(index.find(0), keys.binary_search(&0).ok());
        assert_eq!(index.find(u64::MAX), None);
        assert_eq!(SortedIndex::new(&[]).find(5), None);
        assert_eq!(SortedIndex::new(&[0]).find(0), Some(0));
    }
}
