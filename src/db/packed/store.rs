//! An open packed file's blocks: where their bytes come from, each block
//! checked and decoded, the lookups through the cache, and unpacking.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use super::block::{Block, Step};
use super::cache::BlockCache;
use super::codec::{inflate_into, Codec};
use super::index::{bad_index, Index};
use super::mask;
use crate::core::{Corrupted, LayoutKind, Value};
use crate::db::header::{Header, PackedInfo};
use crate::db::ranges::RangeFile;
use crate::db::DbError;

/// Where a packed file's blocks are read from: its whole bytes (mapped or
/// in memory), or the pieces of it a host supplies.
#[derive(Clone, Copy, Debug)]
pub enum FileBytes<'a> {
    /// The whole file.
    Whole(&'a [u8]),
    /// The pieces supplied so far; a block not among them is wanted.
    Ranges(&'a RangeFile),
}

impl<'a> From<&'a [u8]> for FileBytes<'a> {
    fn from(bytes: &'a [u8]) -> FileBytes<'a> {
        FileBytes::Whole(bytes)
    }
}

impl<'a> FileBytes<'a> {
    /// Bytes `start..end`, or what is wrong: outside the file, or (read
    /// by ranges) not supplied yet, and then wanted.
    fn get(self, start: u64, end: u64) -> Result<Cow<'a, [u8]>, String> {
        match self {
            FileBytes::Whole(file) => usize::try_from(start)
                .ok()
                .zip(usize::try_from(end).ok())
                .and_then(|(s, e)| file.get(s..e))
                .map(Cow::Borrowed)
                .ok_or_else(|| "it lies outside the file".into()),
            FileBytes::Ranges(file) if end > file.len() => Err("it lies outside the file".into()),
            FileBytes::Ranges(file) => file
                .read(start, end)
                .map(Cow::Owned)
                .ok_or_else(|| "its bytes are not loaded yet".into()),
        }
    }
}

/// The game of a file, whose symmetries a dense packed file needs: its
/// canonical keys are the ones it stores.
pub type Symmetries = Arc<dyn crate::core::Game>;

/// Keys [`PackedStore::get_many`] looks up together.
const LANES: usize = 32;

/// The most memory decoded blocks take by default: 64 MiB.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

/// Bytes of the checksum after each block's payload.
pub(crate) const BLOCK_CHECKSUM_SIZE: usize = 8;

thread_local! {
    /// Each thread's buffer for inflated content: a lookup that decodes a
    /// block allocates only the block it keeps.
    static CONTENT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The blocks of an open packed file: its index, read and checked on
/// opening, and the cache of decoded blocks.
pub struct PackedStore {
    info: PackedInfo,
    codec: Codec,
    index: Index,
    cache: BlockCache,
    cache_limit: usize,
    /// The levels of the search tree of a decoded block at most.
    levels: u8,
    canonical: OnceLock<Symmetries>,
}

impl std::fmt::Debug for PackedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackedStore")
            .field("info", &self.info)
            .field("cache_limit", &self.cache_limit)
            .finish()
    }
}

/// A damaged block.
fn block_damage(b: usize, start: u64, end: u64, reason: String) -> Corrupted {
    Corrupted::new(format!(
        "block {b} (bytes {start} to {end}) of the packed records: {reason}"
    ))
}

impl PackedStore {
    /// Reads and checks the index of a packed file whose whole bytes are
    /// `file` (the header validated, the size checked).
    pub(crate) fn open(header: &Header, file: &[u8]) -> Result<PackedStore, DbError> {
        let Some(info) = header.packed else {
            return Err(bad_index("the file is not packed".into()));
        };
        let start = usize::try_from(info.index_offset)
            .map_err(|_| bad_index("the index lies beyond memory".into()))?;
        let index = file
            .get(start..)
            .filter(|i| i.len() as u64 == info.index_size())
            .ok_or_else(|| bad_index("the index is not where the header says".into()))?;
        PackedStore::from_index(header, index)
    }

    /// Checks the index `index` of a packed file (its bytes from the
    /// header's `index_offset` to the end) and sets up the store.
    pub(crate) fn from_index(header: &Header, index: &[u8]) -> Result<PackedStore, DbError> {
        let Some(info) = header.packed else {
            return Err(bad_index("the file is not packed".into()));
        };
        let index = Index::read(header, &info, index)?;
        Ok(PackedStore {
            info,
            codec: Codec::new(header.kind, header.layout),
            cache: BlockCache::new(index.blocks(), DEFAULT_CACHE_BYTES),
            index,
            cache_limit: DEFAULT_CACHE_BYTES,
            levels: Block::levels_for(info.block_entries as usize),
            canonical: OnceLock::new(),
        })
    }

    /// Gives the store the game's canonical keys, which a dense file needs
    /// (a second call changes nothing).
    pub(crate) fn set_canonical(&self, canonical: Symmetries) {
        let _ = self.canonical.set(canonical);
    }

    /// Bounds the memory of decoded blocks (and empties the cache).
    pub(crate) fn set_cache_limit(&mut self, bytes: usize) {
        self.cache = BlockCache::new(self.index.blocks(), bytes);
        self.cache_limit = bytes;
    }

    /// The header fields of the packing.
    #[cfg(test)]
    pub(crate) fn info(&self) -> &PackedInfo {
        &self.info
    }

    /// The number of blocks.
    pub fn block_count(&self) -> u64 {
        self.index.blocks() as u64
    }

    /// Where block `b` lies in the file.
    pub(crate) fn block_range(&self, b: usize) -> (u64, u64) {
        self.index.range(b)
    }

    /// The number of entries of block `b`.
    pub(crate) fn entries_of(&self, b: usize) -> usize {
        let per = u64::from(self.info.block_entries);
        let before = b as u64 * per;
        (self.info.entry_count - before).min(per) as usize
    }

    /// The key a lookup of `key` searches: its canonical key in a dense
    /// file.
    #[inline]
    fn search_key(&self, key: u64) -> Result<Option<u64>, Corrupted> {
        if key > mask(self.index.key_bits()) {
            return Ok(None);
        }
        match self.codec.kind {
            LayoutKind::Sorted => Ok(Some(key)),
            LayoutKind::Dense => match self.canonical.get() {
                Some(g) => Ok(Some(g.canonical(key))),
                None => Err(Corrupted::new(
                    "a packed dense table is read with its game's symmetries, which this \
                     reader was not given",
                )),
            },
        }
    }

    /// Checks and decodes block `b` from the file's bytes `file`, in the
    /// form the cache keeps.
    pub fn decode_block<'f>(
        &self,
        file: impl Into<FileBytes<'f>>,
        b: usize,
    ) -> Result<Block, Corrupted> {
        let entries = self.decode_entries(file, b)?;
        Ok(Block::new(&entries, self.codec.key_shift()))
    }

    /// Checks and decodes block `b` from the file's bytes `file`: its
    /// entries, ascending.
    pub(crate) fn decode_entries<'f>(
        &self,
        file: impl Into<FileBytes<'f>>,
        b: usize,
    ) -> Result<Vec<u64>, Corrupted> {
        let (start, end) = self.block_range(b);
        let damaged = |reason: String| block_damage(b, start, end, reason);
        let payload = self.block_payload(file.into(), b)?;
        let payload = &payload[..payload.len() - BLOCK_CHECKSUM_SIZE];
        let n = self.entries_of(b);
        CONTENT.with(|content| {
            let mut content = content.borrow_mut();
            inflate_into(payload, self.codec.max_content(n), &mut content).map_err(damaged)?;
            self.decode_content(b, &content, n)
        })
    }

    /// Decodes the inflated content of block `b`, of `n` entries.
    fn decode_content(&self, b: usize, content: &[u8], n: usize) -> Result<Vec<u64>, Corrupted> {
        let (start, end) = self.block_range(b);
        let damaged = |reason: String| block_damage(b, start, end, reason);
        let (first, end_key) = self.index.keys(b);
        match self.codec.kind {
            LayoutKind::Sorted => self.codec.decode_sorted(content, n, first, end_key),
            LayoutKind::Dense => {
                let canonical = self.canonical.get().ok_or_else(|| {
                    damaged("the game's symmetries are needed to decode it".into())
                })?;
                if !canonical.is_canonical(first) {
                    return Err(damaged(format!(
                        "its first key {first:#x} is not canonical"
                    )));
                }
                self.codec
                    .decode_dense(content, n, first, end_key, &**canonical)
            }
        }
        .map_err(damaged)
    }

    /// Checks the checksum of every block (without decoding any).
    pub(crate) fn check_block_sums(&self, file: &[u8]) -> Result<(), Corrupted> {
        for b in 0..self.index.blocks() {
            self.block_payload(file.into(), b)?;
        }
        Ok(())
    }

    /// The bytes of block `b` (its payload, then its checksum), the
    /// checksum checked.
    fn block_payload<'f>(&self, file: FileBytes<'f>, b: usize) -> Result<Cow<'f, [u8]>, Corrupted> {
        let (start, end) = self.block_range(b);
        let bytes = file
            .get(start, end)
            .map_err(|reason| block_damage(b, start, end, reason))?;
        let (payload, sum) = bytes.split_at(bytes.len() - BLOCK_CHECKSUM_SIZE);
        let mut stored = [0u8; 8];
        stored.copy_from_slice(sum);
        let stored = u64::from_le_bytes(stored);
        let computed = xxhash_rust::xxh3::xxh3_64(payload);
        if stored != computed {
            return Err(block_damage(
                b,
                start,
                end,
                format!("checksum mismatch (stored {stored:#018x}, computed {computed:#018x})"),
            ));
        }
        Ok(bytes)
    }

    /// Looks up many keys: `out[i]` becomes the value of `keys[i]`.
    ///
    /// The keys go 32 at a time. Those whose blocks the cache holds
    /// are searched in lockstep, under one read of the cache: the lines
    /// each step reads (the block's own, a node of its tree a level, the
    /// key's group) are asked for for every key before the next step reads
    /// any, so that their misses overlap instead of waiting for each
    /// other. Then the blocks not in the cache are checked and decoded, in
    /// the order of the keys, each once for the run, answering every key
    /// of the run in it.
    ///
    /// Read by ranges, a key whose block is missing does not stop the
    /// others: every missing block is wanted before the first error
    /// returns.
    pub(crate) fn get_many(
        &self,
        file: FileBytes<'_>,
        keys: &[u64],
        out: &mut Vec<Option<Value>>,
    ) -> Result<(), Corrupted> {
        out.clear();
        out.reserve(keys.len());
        let codec = &self.codec;
        let mut first_error = None;
        // Per lane: the key searched and its block, while the key is not
        // answered; where its search stands.
        let mut want: [Option<(u64, usize)>; LANES] = [None; LANES];
        let mut at: [Option<Step>; LANES] = [None; LANES];
        for run in keys.chunks(LANES) {
            let base = out.len();
            let lanes = 0..run.len();
            {
                let cache = self.cache.read();
                let mut held: [Option<&Block>; LANES] = [None; LANES];
                for (i, &key) in run.iter().enumerate() {
                    out.push(None);
                    want[i] = None;
                    let Some(k) = self.search_key(key)? else {
                        continue;
                    };
                    let Some(b) = self.index.block_of(k) else {
                        continue;
                    };
                    want[i] = Some((k, b));
                    held[i] = cache.get(b).map(|block| &**block);
                    if let Some(block) = held[i] {
                        block.prefetch();
                    }
                }
                // Level by level, each lane's next line asked for before
                // any is read.
                for i in lanes.clone() {
                    at[i] = match (held[i], want[i]) {
                        (Some(block), Some((k, _))) => block.search_top(k),
                        _ => None,
                    };
                }
                for _ in 0..self.levels {
                    for i in lanes.clone() {
                        at[i] = match (held[i], want[i], at[i]) {
                            (Some(block), Some((k, _)), Some(step)) => block.search_down(step, k),
                            _ => None,
                        };
                    }
                }
                for i in lanes.clone() {
                    if let Some(block) = held[i] {
                        out[base + i] = match (want[i], at[i]) {
                            (Some((k, _)), Some(step)) => {
                                block.search_group(step.node, k).map(|e| codec.value(e))
                            }
                            _ => None,
                        };
                        want[i] = None;
                    }
                }
            }
            // The blocks not in the cache, each decoded once.
            for i in lanes.clone() {
                let Some((_, b)) = want[i] else {
                    continue;
                };
                let decoded = self.decode_block(file, b).map(Arc::new);
                for j in i..run.len() {
                    match want[j] {
                        Some((k, c)) if c == b => {
                            if let Ok(block) = &decoded {
                                out[base + j] = block.find(k).map(|e| codec.value(e));
                            }
                            want[j] = None;
                        }
                        _ => {}
                    }
                }
                match (decoded, file) {
                    (Ok(block), _) => self.cache.put(b, block),
                    (Err(e), FileBytes::Ranges(_)) => {
                        first_error.get_or_insert(e);
                    }
                    (Err(e), FileBytes::Whole(_)) => return Err(e),
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// The codec of the entries.
    pub(crate) fn codec(&self) -> &Codec {
        &self.codec
    }

    /// Every record of the sorted file packed, in order (each block
    /// checked), or the first damaged block.
    pub(crate) fn unpack_sorted(
        &self,
        file: &[u8],
        stop: &dyn Fn() -> bool,
    ) -> Result<Vec<u64>, Unpacking> {
        let mut records = Vec::with_capacity(self.info.entry_count as usize);
        for b in 0..self.index.blocks() {
            if b.is_multiple_of(STOP_BLOCKS) && stop() {
                return Err(Unpacking::Stopped);
            }
            records.extend_from_slice(&self.decode_entries(file, b)?);
        }
        Ok(records)
    }

    /// Every entry of the dense table packed, one byte per key (each block
    /// checked), or the first damaged block.
    pub(crate) fn unpack_dense(
        &self,
        file: &[u8],
        stop: &dyn Fn() -> bool,
    ) -> Result<Vec<u8>, Unpacking> {
        let canonical = self
            .canonical
            .get()
            .ok_or_else(|| Corrupted::new("the game's symmetries are needed to unpack"))?;
        let size = usize::try_from(mask(self.index.key_bits()).saturating_add(1))
            .map_err(|_| Corrupted::new("the table does not fit in memory"))?;
        let mut table = vec![0u8; size];
        let mut stored = 0u64;
        for b in 0..self.index.blocks() {
            if b.is_multiple_of(STOP_BLOCKS) && stop() {
                return Err(Unpacking::Stopped);
            }
            for &r in &self.decode_entries(file, b)? {
                table[(r >> 8) as usize] = r as u8;
                stored += 1;
            }
        }
        if stored != self.info.entry_count {
            return Err(Corrupted::new(format!(
                "the blocks hold {stored} entries, the header says {}",
                self.info.entry_count
            ))
            .into());
        }
        // A key's canonical key is never larger: one ascending pass fills
        // every other key from entries already in place.
        for k in 0..size {
            let c = canonical.canonical(k as u64) as usize;
            if c != k {
                table[k] = table[c];
            }
        }
        Ok(table)
    }
}

/// Blocks unpacked between two looks at whether to stop.
const STOP_BLOCKS: usize = 64;

/// Why a packed file was not unpacked.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Unpacking {
    /// A block is damaged.
    #[error(transparent)]
    Corrupted(#[from] Corrupted),
    /// The caller asked to stop.
    #[error("interrupted")]
    Stopped,
}
