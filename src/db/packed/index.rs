//! The index of a packed file: every block's first key and where it
//! starts, read and checked on opening, and the block a key falls in.

use super::mask;
use crate::core::LayoutKind;
use crate::db::header::{Header, PackedInfo, HEADER_SIZE, INDEX_ENTRY_SIZE, MIN_BLOCK_SIZE};
use crate::db::DbError;

/// A damaged index.
pub(super) fn bad_index(reason: String) -> DbError {
    DbError::HeaderField {
        field: "index",
        reason,
    }
}

/// The index of a packed file: its blocks' first keys, ascending, and
/// where each block lies.
pub(super) struct Index {
    /// The bits of a key.
    key_bits: u32,
    first_keys: Vec<u64>,
    /// Where each block starts, and where the last ends.
    offsets: Vec<u64>,
}

impl Index {
    /// Checks the index `index` of a packed file (its bytes from the
    /// header's `index_offset` to the end), whose header is `header` and
    /// its packing `info`.
    pub(super) fn read(header: &Header, info: &PackedInfo, index: &[u8]) -> Result<Index, DbError> {
        if index.len() as u64 != info.index_size() {
            return Err(bad_index("the index is not where the header says".into()));
        }
        let sum = xxhash_rust::xxh3::xxh3_64(index);
        if sum != info.index_checksum {
            return Err(DbError::HeaderField {
                field: "index_checksum",
                reason: format!(
                    "stored {:#018x}, computed {sum:#018x}: the index is corrupted",
                    info.index_checksum
                ),
            });
        }
        let word = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&index[i..i + 8]);
            u64::from_le_bytes(b)
        };
        let blocks = index.len() / INDEX_ENTRY_SIZE as usize;
        let mut first_keys = Vec::with_capacity(blocks);
        let mut offsets = Vec::with_capacity(blocks + 1);
        for b in 0..blocks {
            first_keys.push(word(b * 16));
            offsets.push(word(b * 16 + 8));
        }
        offsets.push(info.index_offset);
        if offsets.first() != Some(&(HEADER_SIZE as u64)) && blocks > 0 {
            return Err(bad_index("the first block does not start at 4096".into()));
        }
        let mut largest = MIN_BLOCK_SIZE;
        for (b, w) in offsets.windows(2).enumerate() {
            let size = w[1].checked_sub(w[0]);
            if size.is_none_or(|s| s < MIN_BLOCK_SIZE || s > u64::from(info.max_block_size)) {
                return Err(bad_index(format!(
                    "block {b} at {} has a size out of 9 to {} bytes",
                    w[0], info.max_block_size
                )));
            }
            largest = largest.max(size.unwrap_or(0));
        }
        if largest != u64::from(info.max_block_size) {
            return Err(bad_index(format!(
                "the largest block is {largest} bytes, not the header's {}",
                info.max_block_size
            )));
        }
        let key_bits = header.layout.key_bits;
        if header.kind == LayoutKind::Dense && first_keys.first().is_some_and(|&k| k != 0) {
            return Err(bad_index(
                "the first block of a dense table does not start at key 0".into(),
            ));
        }
        if first_keys.windows(2).any(|w| w[0] >= w[1])
            || first_keys.last().is_some_and(|&k| k > mask(key_bits))
        {
            return Err(bad_index(
                "the first keys of the blocks are not ascending keys".into(),
            ));
        }
        Ok(Index {
            key_bits,
            first_keys,
            offsets,
        })
    }

    /// The number of blocks.
    pub(super) fn blocks(&self) -> usize {
        self.first_keys.len()
    }

    /// The bits of a key.
    #[inline]
    pub(super) fn key_bits(&self) -> u32 {
        self.key_bits
    }

    /// Where block `b` lies in the file.
    pub(super) fn range(&self, b: usize) -> (u64, u64) {
        (self.offsets[b], self.offsets[b + 1])
    }

    /// The keys block `b` may hold: from its first key up to (not
    /// including) the next block's first key, or past the largest key.
    pub(super) fn keys(&self, b: usize) -> (u64, u64) {
        let first = self.first_keys[b];
        let end_key = match self.first_keys.get(b + 1) {
            Some(&next) => next,
            None => mask(self.key_bits).saturating_add(1),
        };
        (first, end_key)
    }

    /// The block that would hold `key`, if any.
    #[inline]
    pub(super) fn block_of(&self, key: u64) -> Option<usize> {
        self.first_keys
            .partition_point(|&f| f <= key)
            .checked_sub(1)
    }
}
