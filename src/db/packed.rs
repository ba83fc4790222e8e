//! The packed layout (`format-spec.md`, section 3c): the records of a
//! sorted or dense file in blocks of a fixed number of entries, each
//! compressed with raw DEFLATE on its own and followed by its XXH3-64, and
//! an index of every block's first key and offset at the end of the file.
//!
//! A lookup reads the index (held in memory from the open on) and one
//! block, which it checks against its checksum before decoding it; decoded
//! blocks are kept in a cache of bounded size. A sorted block stores its
//! keys as LEB128 steps and its value fields in byte planes, which DEFLATE
//! compresses well; a dense block stores only the entries of canonical
//! keys, since symmetric keys have equal entries.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};

use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

use super::header::{Header, PackedInfo, HEADER_SIZE, INDEX_ENTRY_SIZE, MIN_BLOCK_SIZE};
use super::ranges::RangeFile;
use super::DbError;
use crate::core::{Corrupted, Game, LayoutKind, RecordLayout, Value};

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

/// The most memory decoded blocks take by default: 64 MiB.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

/// Bytes of the checksum after each block's payload.
pub const BLOCK_CHECKSUM_SIZE: usize = 8;

/// The most bytes one LEB128 key step takes.
const MAX_STEP_BYTES: usize = 10;

/// A decoded block: its entries as ascending `u64`s, the records themselves
/// for a sorted file, `key << 8 | entry` for a dense one.
#[derive(Debug)]
pub struct Block {
    /// The entries, ascending.
    pub records: Vec<u64>,
    /// Every [`FENCE`]-th entry: a search looks here first, then in the
    /// few entries between two fences.
    fences: Vec<u64>,
}

/// Entries between two fences of a decoded block: 512 bytes, eight cache
/// lines.
const FENCE: usize = 64;

impl Block {
    /// A block of `records`, ascending.
    pub fn new(records: Vec<u64>) -> Block {
        let fences = records.iter().step_by(FENCE).copied().collect();
        Block { records, fences }
    }

    /// The memory the block takes in the cache.
    fn cost(&self) -> usize {
        (self.records.capacity() + self.fences.capacity()) * 8 + 64
    }

    /// The first entry `>= first`, if any.
    #[inline]
    fn lower_bound(&self, first: u64) -> Option<u64> {
        let f = self
            .fences
            .partition_point(|&x| x < first)
            .saturating_sub(1);
        let lo = f * FENCE;
        let hi = self.records.len().min(lo + FENCE + 1);
        let near = self.records.get(lo..hi)?;
        near.get(near.partition_point(|&r| r < first)).copied()
    }
}

/// How the entries of a block become `u64`s and back.
#[derive(Clone, Copy, Debug)]
pub struct Codec {
    kind: LayoutKind,
    layout: RecordLayout,
}

/// Appends `v` as unsigned LEB128.
fn put_leb128(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads an unsigned LEB128 number at `*at`, which moves past it.
fn get_leb128(bytes: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut v = 0u64;
    for i in 0..MAX_STEP_BYTES {
        let Some(&b) = bytes.get(*at) else {
            return Err("the key steps run past the content".into());
        };
        *at += 1;
        let low = u64::from(b & 0x7F);
        if i == MAX_STEP_BYTES - 1 && (b & 0x80 != 0 || low > 1) {
            return Err("a key step does not fit 64 bits".into());
        }
        v |= low << (7 * i);
        if b & 0x80 == 0 {
            if i > 0 && b == 0 {
                return Err("a key step is not in its shortest form".into());
            }
            return Ok(v);
        }
    }
    Err("a key step does not fit 64 bits".into())
}

/// `2^bits - 1`.
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl Codec {
    /// The codec of a file's records.
    pub fn new(kind: LayoutKind, layout: RecordLayout) -> Codec {
        Codec { kind, layout }
    }

    /// Bytes of the net-field planes and the remoteness-field planes.
    fn planes(&self) -> (usize, usize) {
        (
            self.layout.value_bits.div_ceil(8) as usize,
            self.layout.remoteness_bits.div_ceil(8) as usize,
        )
    }

    /// The most bytes the content of a block of `n` entries takes.
    pub fn max_content(&self, n: usize) -> usize {
        match self.kind {
            LayoutKind::Dense => n,
            LayoutKind::Sorted => {
                let (v, r) = self.planes();
                n.saturating_sub(1) * MAX_STEP_BYTES + n * (v + r)
            }
        }
    }

    /// The content of a sorted block: key steps, net planes, remoteness
    /// planes. `records` is not empty and strictly ascending.
    pub fn sorted_content(&self, records: &[u64], out: &mut Vec<u8>) {
        let l = &self.layout;
        out.clear();
        for w in records.windows(2) {
            put_leb128(out, l.key(w[1]) - l.key(w[0]));
        }
        let (vp, rp) = self.planes();
        for (shift, bits, planes) in [
            (l.value_shift, l.value_bits, vp),
            (l.remoteness_shift, l.remoteness_bits, rp),
        ] {
            for p in 0..planes {
                out.extend(
                    records
                        .iter()
                        .map(|&r| (((r >> shift) & mask(bits)) >> (8 * p)) as u8),
                );
            }
        }
    }

    /// Decodes the content of a sorted block of `n` entries whose first
    /// key is `first` and whose keys are all below `end`.
    fn decode_sorted(
        &self,
        content: &[u8],
        n: usize,
        first: u64,
        end: u64,
    ) -> Result<Vec<u64>, String> {
        let l = &self.layout;
        let mut records = Vec::with_capacity(n);
        records.push(first << l.key_shift);
        let mut at = 0;
        let mut key = first;
        for _ in 1..n {
            // Most steps take one or two bytes.
            let step = match content.get(at..at + 2) {
                Some(&[b0, _]) if b0 < 0x80 => {
                    at += 1;
                    u64::from(b0)
                }
                Some(&[b0, b1]) if b1 < 0x80 && b1 != 0 => {
                    at += 2;
                    u64::from(b0 & 0x7F) | u64::from(b1) << 7
                }
                _ => get_leb128(content, &mut at)?,
            };
            key = match key.checked_add(step) {
                Some(k) if step != 0 && k < end => k,
                _ if step == 0 => return Err("the keys are not strictly ascending".into()),
                _ => return Err("a key runs past the next block's first key".into()),
            };
            records.push(key << l.key_shift);
        }
        let (vp, rp) = self.planes();
        if content.len() - at != n * (vp + rp) {
            return Err(format!(
                "the content is {} bytes, not the {} its entries take",
                content.len(),
                at + n * (vp + rp)
            ));
        }
        for (shift, bits, planes) in [
            (l.value_shift, l.value_bits, vp),
            (l.remoteness_shift, l.remoteness_bits, rp),
        ] {
            for p in 0..planes {
                let plane = &content[at..at + n];
                at += n;
                // The top plane holds the field's last bits: nothing above.
                let room = bits - 8 * p as u32;
                if room < 8 && plane.iter().any(|&b| u32::from(b) >> room != 0) {
                    return Err("a value field is wider than its bits".into());
                }
                let shift = shift + 8 * p as u32;
                for (r, &b) in records.iter_mut().zip(plane) {
                    *r |= u64::from(b) << shift;
                }
            }
        }
        Ok(records)
    }

    /// Decodes the content of a dense block of `n` entries, the canonical
    /// keys from `first` up to (not including) `end`.
    fn decode_dense(
        &self,
        content: &[u8],
        n: usize,
        first: u64,
        end: u64,
        game: &dyn Game,
    ) -> Result<Vec<u64>, String> {
        if content.len() != n {
            return Err(format!(
                "the content is {} bytes for {n} entries",
                content.len()
            ));
        }
        let mut records = Vec::with_capacity(n);
        // A stretch at a time: a damaged index may stretch a block's keys
        // far beyond its entries.
        let mut at = first;
        while at < end && records.len() <= n {
            let to = end.min(at.saturating_add(1 << 16));
            game.canonical_keys_in(at, to, &mut records);
            at = to;
        }
        if records.len() != n {
            return Err(format!(
                "{} canonical keys from {first:#x} to {end:#x}, not its {n} entries",
                records.len()
            ));
        }
        for (r, &e) in records.iter_mut().zip(content) {
            *r = *r << 8 | u64::from(e);
        }
        Ok(records)
    }

    /// The value of a decoded entry.
    #[inline]
    pub fn value(&self, record: u64) -> Value {
        match self.kind {
            LayoutKind::Sorted => self.layout.value(record),
            LayoutKind::Dense => self.layout.dense_value(record >> 8, record as u8),
        }
    }

    /// The smallest decoded entry of `key`.
    #[inline]
    fn first_entry(&self, key: u64) -> u64 {
        match self.kind {
            LayoutKind::Sorted => self.layout.first_record(key),
            LayoutKind::Dense => key << 8,
        }
    }

    /// The key of a decoded entry.
    #[inline]
    pub fn key_of(&self, record: u64) -> u64 {
        match self.kind {
            LayoutKind::Sorted => self.layout.key(record),
            LayoutKind::Dense => record >> 8,
        }
    }
}

/// Inflates a raw DEFLATE payload that must end exactly at its end and
/// inflate to at most `max` bytes.
pub fn inflate(payload: &[u8], max: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    inflate_into(payload, max, &mut out)?;
    Ok(out)
}

/// [`inflate`] into `out`, whose memory is reused from call to call.
pub fn inflate_into(payload: &[u8], max: usize, out: &mut Vec<u8>) -> Result<(), String> {
    // One byte more than allowed tells a content too long from one that
    // fits exactly.
    out.resize(max + 1, 0);
    let mut state = DecompressorOxide::new();
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let (status, read, written) = decompress(&mut state, payload, out, 0, flags);
    match status {
        TINFLStatus::Done if read == payload.len() && written <= max => {
            out.truncate(written);
            Ok(())
        }
        TINFLStatus::Done if read != payload.len() => {
            Err("the compressed stream ends before the block does".into())
        }
        TINFLStatus::Done | TINFLStatus::HasMoreOutput => {
            Err("the block inflates to more than its entries take".into())
        }
        other => Err(format!("the block does not inflate ({other:?})")),
    }
}

thread_local! {
    /// Each thread's buffer for inflated content: a lookup that decodes a
    /// block allocates only the block it keeps.
    static CONTENT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Decoded blocks, at most a number of bytes of them: a slot per block of
/// the file (a lookup locks only its block's), each with a mark set when a
/// lookup finds it there. When the bound is reached, blocks leave in the
/// order they came (a clock): one whose mark is set stays for another
/// round with its mark cleared, so the blocks in use stay.
struct BlockCache {
    /// The slots, in chunks made when a block of theirs is first kept: a
    /// query of one position on a file of many blocks makes few.
    chunks: Vec<OnceLock<Box<[Slot]>>>,
    order: Mutex<(VecDeque<usize>, usize)>,
    limit: usize,
}

/// Slots per chunk of the cache.
const CHUNK_SLOTS: usize = 256;

#[derive(Default)]
struct Slot {
    block: Mutex<Option<Arc<Block>>>,
    used: std::sync::atomic::AtomicBool,
}

impl BlockCache {
    fn new(blocks: usize, limit: usize) -> BlockCache {
        let chunks = if limit == 0 {
            0
        } else {
            blocks.div_ceil(CHUNK_SLOTS)
        };
        BlockCache {
            chunks: (0..chunks).map(|_| OnceLock::new()).collect(),
            order: Mutex::new((VecDeque::new(), 0)),
            limit,
        }
    }

    /// The slot of block `b`, if its chunk is made.
    #[inline]
    fn slot(&self, b: usize) -> Option<&Slot> {
        self.chunks
            .get(b / CHUNK_SLOTS)?
            .get()?
            .get(b % CHUNK_SLOTS)
    }

    /// The slot of block `b`, its chunk made if need be.
    fn slot_made(&self, b: usize) -> Option<&Slot> {
        self.chunks
            .get(b / CHUNK_SLOTS)?
            .get_or_init(|| (0..CHUNK_SLOTS).map(|_| Slot::default()).collect())
            .get(b % CHUNK_SLOTS)
    }

    /// Runs `f` on block `b` if the cache holds it.
    #[inline]
    fn with<T>(&self, b: usize, f: impl FnOnce(&Block) -> T) -> Option<T> {
        let slot = self.slot(b)?;
        let block = slot.block.lock().ok()?;
        let out = block.as_deref().map(f);
        if out.is_some() && !slot.used.load(std::sync::atomic::Ordering::Relaxed) {
            slot.used.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        out
    }

    fn put(&self, b: usize, decoded: Arc<Block>) {
        use std::sync::atomic::Ordering::Relaxed;
        let cost = decoded.cost();
        let Some(slot) = self.slot_made(b) else {
            return;
        };
        if cost > self.limit {
            return;
        }
        let Ok(mut order) = self.order.lock() else {
            return;
        };
        match slot.block.lock() {
            Ok(mut s) if s.is_none() => *s = Some(decoded),
            _ => return,
        }
        slot.used.store(false, Relaxed);
        order.0.push_back(b);
        order.1 += cost;
        // Each block in the ring is passed over at most once.
        let mut spared = 0;
        while order.1 > self.limit {
            let Some(old) = order.0.pop_front() else {
                break;
            };
            let Some(s) = self.slot(old) else {
                continue;
            };
            if old != b && spared < order.0.len() && s.used.swap(false, Relaxed) {
                order.0.push_back(old);
                spared += 1;
                continue;
            }
            let gone = s.block.lock().ok().and_then(|mut s| s.take());
            if let Some(gone) = gone {
                order.1 -= gone.cost();
            }
        }
    }
}

/// The blocks of an open packed file: its index, read and checked on
/// opening, and the cache of decoded blocks.
pub struct PackedStore {
    info: PackedInfo,
    codec: Codec,
    key_bits: u32,
    first_keys: Vec<u64>,
    /// Where each block starts, and where the last ends.
    offsets: Vec<u64>,
    cache: BlockCache,
    cache_limit: usize,
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

/// A damaged index.
fn bad_index(reason: String) -> DbError {
    DbError::HeaderField {
        field: "index",
        reason,
    }
}

impl PackedStore {
    /// Reads and checks the index of a packed file whose whole bytes are
    /// `file` (the header validated, the size checked).
    pub fn open(header: &Header, file: &[u8]) -> Result<PackedStore, DbError> {
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
    pub fn from_index(header: &Header, index: &[u8]) -> Result<PackedStore, DbError> {
        let Some(info) = header.packed else {
            return Err(bad_index("the file is not packed".into()));
        };
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
        Ok(PackedStore {
            info,
            codec: Codec::new(header.kind, header.layout),
            key_bits,
            first_keys,
            offsets,
            cache: BlockCache::new(blocks, DEFAULT_CACHE_BYTES),
            cache_limit: DEFAULT_CACHE_BYTES,
            canonical: OnceLock::new(),
        })
    }

    /// Gives the store the game's canonical keys, which a dense file needs
    /// (a second call changes nothing).
    pub fn set_canonical(&self, canonical: Symmetries) {
        let _ = self.canonical.set(canonical);
    }

    /// Bounds the memory of decoded blocks (and empties the cache).
    pub fn set_cache_limit(&mut self, bytes: usize) {
        self.cache = BlockCache::new(self.first_keys.len(), bytes);
        self.cache_limit = bytes;
    }

    /// The bound of the memory of decoded blocks.
    pub fn cache_limit(&self) -> usize {
        self.cache_limit
    }

    /// The header fields of the packing.
    pub fn info(&self) -> &PackedInfo {
        &self.info
    }

    /// The number of blocks.
    pub fn block_count(&self) -> u64 {
        self.first_keys.len() as u64
    }

    /// Where block `b` lies in the file.
    pub fn block_range(&self, b: usize) -> (u64, u64) {
        (self.offsets[b], self.offsets[b + 1])
    }

    /// The number of entries of block `b`.
    pub fn entries_of(&self, b: usize) -> usize {
        let per = u64::from(self.info.block_entries);
        let before = b as u64 * per;
        (self.info.entry_count - before).min(per) as usize
    }

    /// The block that would hold `key`, if any.
    #[inline]
    fn block_of(&self, key: u64) -> Option<usize> {
        self.first_keys
            .partition_point(|&f| f <= key)
            .checked_sub(1)
    }

    /// The key a lookup of `key` searches: its canonical key in a dense
    /// file.
    #[inline]
    fn search_key(&self, key: u64) -> Result<Option<u64>, Corrupted> {
        if key > mask(self.key_bits) {
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

    /// Checks and decodes block `b` from the file's bytes `file`.
    pub fn decode_block<'f>(
        &self,
        file: impl Into<FileBytes<'f>>,
        b: usize,
    ) -> Result<Block, Corrupted> {
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
    fn decode_content(&self, b: usize, content: &[u8], n: usize) -> Result<Block, Corrupted> {
        let (start, end) = self.block_range(b);
        let damaged = |reason: String| block_damage(b, start, end, reason);
        let first = self.first_keys[b];
        let end_key = match self.first_keys.get(b + 1) {
            Some(&next) => next,
            None => mask(self.key_bits).saturating_add(1),
        };
        let records = match self.codec.kind {
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
        .map_err(damaged)?;
        Ok(Block::new(records))
    }

    /// Checks the checksum of every block (without decoding any).
    pub fn check_block_sums(&self, file: &[u8]) -> Result<(), Corrupted> {
        for b in 0..self.first_keys.len() {
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

    /// Runs `f` on block `b`, from the cache or checked and decoded from
    /// `file` (and then kept in the cache).
    #[inline]
    pub fn with_block<'f, T>(
        &self,
        file: FileBytes<'f>,
        b: usize,
        f: impl FnOnce(&Block) -> T,
    ) -> Result<T, Corrupted> {
        let mut f = Some(f);
        if let Some(Some(t)) = self.cache.with(b, |block| f.take().map(|f| f(block))) {
            return Ok(t);
        }
        let decoded = Arc::new(self.decode_block(file, b)?);
        let out = f.take().map(|f| f(&decoded));
        self.cache.put(b, decoded);
        out.ok_or_else(|| Corrupted::new("a block lookup ran twice"))
    }

    /// Looks up many keys: `out[i]` becomes the value of `keys[i]`.
    ///
    /// Read by ranges, a key whose block is missing does not stop the
    /// others: every missing block is wanted before the first error
    /// returns.
    pub fn get_many(
        &self,
        file: FileBytes<'_>,
        keys: &[u64],
        out: &mut Vec<Option<Value>>,
    ) -> Result<(), Corrupted> {
        out.clear();
        let mut first_error = None;
        for &key in keys {
            let Some(k) = self.search_key(key)? else {
                out.push(None);
                continue;
            };
            let Some(b) = self.block_of(k) else {
                out.push(None);
                continue;
            };
            let codec = &self.codec;
            let found = self.with_block(file, b, |block| {
                block
                    .lower_bound(codec.first_entry(k))
                    .filter(|&r| codec.key_of(r) == k)
                    .map(|r| codec.value(r))
            });
            match (found, file) {
                (Ok(found), _) => out.push(found),
                (Err(e), FileBytes::Ranges(_)) => {
                    first_error.get_or_insert(e);
                    out.push(None);
                }
                (Err(e), FileBytes::Whole(_)) => return Err(e),
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// The codec of the entries.
    pub fn codec(&self) -> &Codec {
        &self.codec
    }

    /// Every record of the sorted file packed, in order (each block
    /// checked), or the first damaged block.
    pub fn unpack_sorted(
        &self,
        file: &[u8],
        stop: &dyn Fn() -> bool,
    ) -> Result<Vec<u64>, Unpacking> {
        let mut records = Vec::with_capacity(self.info.entry_count as usize);
        for b in 0..self.first_keys.len() {
            if b.is_multiple_of(STOP_BLOCKS) && stop() {
                return Err(Unpacking::Stopped);
            }
            records.extend_from_slice(&self.decode_block(file, b)?.records);
        }
        Ok(records)
    }

    /// Every entry of the dense table packed, one byte per key (each block
    /// checked), or the first damaged block.
    pub fn unpack_dense(&self, file: &[u8], stop: &dyn Fn() -> bool) -> Result<Vec<u8>, Unpacking> {
        let canonical = self
            .canonical
            .get()
            .ok_or_else(|| Corrupted::new("the game's symmetries are needed to unpack"))?;
        let size = usize::try_from(mask(self.key_bits).saturating_add(1))
            .map_err(|_| Corrupted::new("the table does not fit in memory"))?;
        let mut table = vec![0u8; size];
        let mut stored = 0u64;
        for b in 0..self.first_keys.len() {
            if b.is_multiple_of(STOP_BLOCKS) && stop() {
                return Err(Unpacking::Stopped);
            }
            for &r in &self.decode_block(file, b)?.records {
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
pub enum Unpacking {
    /// A block is damaged.
    #[error(transparent)]
    Corrupted(#[from] Corrupted),
    /// The caller asked to stop.
    #[error("interrupted")]
    Stopped,
}
