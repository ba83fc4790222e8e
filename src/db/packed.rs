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
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, OnceLock, PoisonError, RwLock, RwLockReadGuard};

use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

use super::header::{Header, PackedInfo, HEADER_SIZE, INDEX_ENTRY_SIZE, MIN_BLOCK_SIZE};
use super::ranges::RangeFile;
use super::DbError;
use crate::core::platform;
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

/// Keys [`PackedStore::get_many`] looks up together.
const LANES: usize = 32;

/// The most memory decoded blocks take by default: 64 MiB.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

/// Bytes of the checksum after each block's payload.
pub const BLOCK_CHECKSUM_SIZE: usize = 8;

/// The most bytes one LEB128 key step takes.
const MAX_STEP_BYTES: usize = 10;

/// A decoded block, kept in the cache in a form a search reads few cache
/// lines of: its entries, ascending `u64`s (the records themselves for a
/// sorted file, `key << 8 | entry` for a dense one), in groups of 16,
/// under a search tree of the groups' first keys.
///
/// The tree is a static B-tree of one cache line a node: its lowest level
/// holds each group's first key, eight a line; each level above holds the
/// first key of each line of the level below; the top (at most eight
/// keys) lies in the block itself. A search reads one line a level, then
/// its group's lines.
///
/// Where each key lies less than `2^32` above its group's first key and
/// the bits below the keys take at most 16, the entries are kept split:
/// each key's offset from its group's first key (a `u32`, a group's in one
/// line) and its bits below the key (a `u16`): 6 bytes an entry instead of
/// 8. Otherwise they are kept whole.
#[derive(Debug)]
#[repr(C)]
pub struct Block {
    /// The top of the tree: the first keys of the lines of the level
    /// below (or of the groups), padded with `u64::MAX`. With the fields
    /// after it, the block's two cache lines.
    top: Line,
    /// The levels of the tree below the top, from the top down.
    tree: Box<[Line]>,
    entries: Entries,
    /// Where each level of `tree` starts (lines), from the top down.
    starts: [u16; MAX_LEVELS],
    /// The levels in `tree`.
    levels: u8,
    /// The bits below the key in an entry.
    shift: u8,
    /// The number of entries.
    len: u32,
}

// Two cache lines, which a search asks for first.
const _: () = assert!(size_of::<Block>() <= 128);

/// Eight keys: a node of a block's search tree, one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Line([u64; 8]);

impl Line {
    /// How many of the keys are at most `key`.
    #[inline]
    fn rank(&self, key: u64) -> usize {
        self.0.iter().map(|&k| usize::from(k <= key)).sum()
    }
}

/// A group's key offsets, one cache line (padded with `u32::MAX`).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Offsets([u32; GROUP]);

/// A group's bits below the keys, half a cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
struct Lows([u16; GROUP]);

/// Entries in a group of a decoded block: its key offsets fill one cache
/// line.
const GROUP: usize = 16;

/// Levels of a block's tree below its top at most: enough for 2^22
/// entries (a block holds at most 2^20), whose tree takes fewer than 2^16
/// lines.
const MAX_LEVELS: usize = 5;

/// The entries of a decoded block.
#[derive(Debug)]
enum Entries {
    /// Each entry's key less its group's first key, by group, and its
    /// bits below the key.
    Split {
        offsets: Box<[Offsets]>,
        low: Box<[Lows]>,
    },
    /// The entries themselves, eight a line, padded with `u64::MAX`.
    Whole(Box<[Line]>),
}

/// `values` eight a line, the last padded with `u64::MAX`.
fn lines(values: &[u64]) -> impl Iterator<Item = Line> + '_ {
    values.chunks(8).map(|c| {
        let mut line = Line([u64::MAX; 8]);
        line.0[..c.len()].copy_from_slice(c);
        line
    })
}

impl Block {
    /// The levels of the tree below the top of a block of `n` entries.
    fn levels_for(n: usize) -> u8 {
        let mut keys = n.div_ceil(GROUP);
        let mut levels = 0;
        while keys > 8 && levels < MAX_LEVELS {
            keys = keys.div_ceil(8);
            levels += 1;
        }
        levels as u8
    }

    /// A block of `entries` (ascending, keys distinct and below `2^63`,
    /// at most `2^22`) whose keys lie above their lowest `shift` bits.
    fn new(entries: &[u64], shift: u32) -> Block {
        let firsts: Vec<u64> = entries.iter().step_by(GROUP).map(|&e| e >> shift).collect();
        // The levels from the lowest up, until one fits the top.
        let mut levels = Vec::new();
        let mut keys = firsts.clone();
        while keys.len() > 8 && levels.len() < MAX_LEVELS {
            let above = keys.iter().step_by(8).copied().collect();
            levels.push(std::mem::replace(&mut keys, above));
        }
        debug_assert!(keys.len() <= 8);
        debug_assert_eq!(levels.len(), usize::from(Block::levels_for(entries.len())));
        let mut top = Line([u64::MAX; 8]);
        top.0[..keys.len().min(8)].copy_from_slice(&keys[..keys.len().min(8)]);
        let mut tree = Vec::new();
        let mut starts = [0u16; MAX_LEVELS];
        for (d, level) in levels.iter().rev().enumerate() {
            starts[d] = tree.len() as u16;
            tree.extend(lines(level));
        }
        // The entries ascend: a group's last key is its farthest.
        let split = shift <= 16
            && entries.chunks(GROUP).zip(&firsts).all(|(group, &first)| {
                let last = group.last().map_or(first, |&e| e >> shift);
                last.wrapping_sub(first) <= u64::from(u32::MAX)
            });
        let entries_kept = if split {
            let low_mask = mask(shift);
            let mut offsets = vec![Offsets([u32::MAX; GROUP]); firsts.len()];
            let mut low = vec![Lows([0; GROUP]); firsts.len()];
            for (((group, &first), o), l) in entries
                .chunks(GROUP)
                .zip(&firsts)
                .zip(&mut offsets)
                .zip(&mut low)
            {
                for ((&e, o), l) in group.iter().zip(&mut o.0).zip(&mut l.0) {
                    *o = (e >> shift).wrapping_sub(first) as u32;
                    *l = (e & low_mask) as u16;
                }
            }
            Entries::Split {
                offsets: offsets.into(),
                low: low.into(),
            }
        } else {
            Entries::Whole(lines(entries).collect())
        };
        Block {
            top,
            tree: tree.into(),
            starts,
            levels: levels.len() as u8,
            shift: shift as u8,
            len: entries.len() as u32,
            entries: entries_kept,
        }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when the block holds no entry (never, for a block decoded from
    /// a file).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first key of group `g`.
    #[inline]
    fn group_key(&self, g: usize) -> u64 {
        match self.levels {
            0 => self.top.0[g],
            l => {
                let lowest = self.starts[usize::from(l) - 1] as usize;
                self.tree[lowest + g / 8].0[g % 8]
            }
        }
    }

    /// Entry `i`.
    #[inline]
    pub fn entry(&self, i: usize) -> u64 {
        let shift = u32::from(self.shift);
        match &self.entries {
            Entries::Split { offsets, low } => {
                let key = self.group_key(i / GROUP) + u64::from(offsets[i / GROUP].0[i % GROUP]);
                key << shift | u64::from(low[i / GROUP].0[i % GROUP])
            }
            Entries::Whole(lines) => lines[i / 8].0[i % 8],
        }
    }

    /// The entries, in order.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        (0..self.len()).map(|i| self.entry(i))
    }

    /// The memory the block takes in the cache.
    fn cost(&self) -> usize {
        let entries = match &self.entries {
            Entries::Split { offsets, low } => size_of_val(&**offsets) + size_of_val(&**low),
            Entries::Whole(lines) => size_of_val(&**lines),
        };
        size_of::<Block>() + size_of_val(&*self.tree) + entries + 64
    }

    /// Asks for the block's own two lines, where a search starts.
    #[inline]
    fn prefetch(&self) {
        platform::prefetch(&self.top);
        platform::prefetch(&self.tree);
    }

    /// The first step of a search for `key`: where it goes at the top (a
    /// place among the levels or a group), none when `key` lies below the
    /// block; the lines it reads next asked for.
    #[inline]
    fn search_top(&self, key: u64) -> Option<Step> {
        let node = self.top.rank(key).checked_sub(1)?;
        let step = Step { level: 0, node };
        self.prefetch_step(step);
        Some(step)
    }

    /// One level down from `step`, the lines read next asked for; a step
    /// at a group stays there.
    #[inline]
    fn search_down(&self, step: Step, key: u64) -> Option<Step> {
        if step.level >= usize::from(self.levels) {
            return Some(step);
        }
        let line = self
            .tree
            .get(self.starts[step.level] as usize + step.node)?;
        let node = step.node * 8 + line.rank(key).checked_sub(1)?;
        let next = Step {
            level: step.level + 1,
            node,
        };
        self.prefetch_step(next);
        Some(next)
    }

    /// Asks for the line a search reads at `step`: a node of the tree, or
    /// at the bottom, its group's.
    #[inline]
    fn prefetch_step(&self, step: Step) {
        if step.level < usize::from(self.levels) {
            if let Some(line) = self.tree.get(self.starts[step.level] as usize + step.node) {
                platform::prefetch(line);
            }
            return;
        }
        let g = step.node;
        match &self.entries {
            Entries::Split { offsets, low } => {
                if let Some(o) = offsets.get(g) {
                    platform::prefetch(o);
                }
                if let Some(l) = low.get(g) {
                    platform::prefetch(l);
                }
            }
            Entries::Whole(lines) => {
                for line in lines.iter().skip(g * GROUP / 8).take(GROUP / 8) {
                    platform::prefetch(line);
                }
            }
        }
    }

    /// Searches group `g` for `key`: its entry, if the block holds it.
    #[inline]
    fn search_group(&self, g: usize, key: u64) -> Option<u64> {
        let shift = u32::from(self.shift);
        let (i, entry) = match &self.entries {
            Entries::Split { offsets, low } => {
                let want = u32::try_from(key.checked_sub(self.group_key(g))?).ok()?;
                let group = &offsets.get(g)?.0;
                let p = group.iter().map(|&o| usize::from(o < want)).sum::<usize>();
                if group.get(p) != Some(&want) {
                    return None;
                }
                let low = low.get(g)?.0[p];
                (g * GROUP + p, key << shift | u64::from(low))
            }
            Entries::Whole(lines) => {
                let at = g * GROUP / 8;
                let group = lines.get(at..lines.len().min(at + GROUP / 8))?;
                let p = group
                    .iter()
                    .flat_map(|l| l.0)
                    .map(|e| usize::from(e >> shift < key))
                    .sum::<usize>();
                let e = *group.get(p / 8)?.0.get(p % 8)?;
                if e >> shift != key {
                    return None;
                }
                (g * GROUP + p, e)
            }
        };
        (i < self.len()).then_some(entry)
    }

    /// The entry of key `key`, if the block holds it.
    #[inline]
    pub fn find(&self, key: u64) -> Option<u64> {
        let mut step = self.search_top(key)?;
        for _ in 0..self.levels {
            step = self.search_down(step, key)?;
        }
        self.search_group(step.node, key)
    }
}

/// Where a search stands in a block's tree: a node of level `level` (from
/// the top down, 0 the first below the top), or at the bottom, a group.
#[derive(Clone, Copy, Debug)]
struct Step {
    level: usize,
    node: usize,
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
                let bits = plane.iter().fold(0, |a, &b| a | b);
                if room < 8 && u32::from(bits) >> room != 0 {
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

    /// The bits below the key in a decoded entry.
    #[inline]
    pub fn key_shift(&self) -> u32 {
        match self.kind {
            LayoutKind::Sorted => self.layout.key_shift,
            LayoutKind::Dense => 8,
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
/// the file, each with a mark set when a lookup finds it there. When the
/// bound is reached, blocks leave in the order they came (a clock): one
/// whose mark is set stays for another round with its mark cleared, so the
/// blocks in use stay.
///
/// One lock guards it all: a run of lookups reads under one shared lock
/// (one atomic operation for the run, none a block), and a block decoded
/// comes in under the exclusive lock, which it takes only to store the
/// block and let others go (the decoding and the freeing happen outside).
struct BlockCache {
    state: RwLock<CacheState>,
    limit: usize,
}

/// What [`BlockCache`]'s lock guards.
struct CacheState {
    /// The slots, in chunks made when a block of theirs is first kept: a
    /// query of one position on a file of many blocks makes few.
    chunks: Vec<Option<Box<[Slot]>>>,
    /// The blocks kept, in the order they came.
    order: VecDeque<usize>,
    /// The memory they take ([`Block::cost`]).
    bytes: usize,
}

/// Slots per chunk of the cache.
const CHUNK_SLOTS: usize = 256;

#[derive(Default)]
struct Slot {
    block: Option<Arc<Block>>,
    used: AtomicBool,
}

impl CacheState {
    /// Block `b`, if the cache holds it (marked as used).
    #[inline]
    fn get(&self, b: usize) -> Option<&Arc<Block>> {
        let slot = self
            .chunks
            .get(b / CHUNK_SLOTS)?
            .as_ref()?
            .get(b % CHUNK_SLOTS)?;
        let block = slot.block.as_ref()?;
        if !slot.used.load(Relaxed) {
            slot.used.store(true, Relaxed);
        }
        Some(block)
    }

    /// The slot of block `b`, if its chunk is made.
    fn slot_mut(&mut self, b: usize) -> Option<&mut Slot> {
        self.chunks
            .get_mut(b / CHUNK_SLOTS)?
            .as_mut()?
            .get_mut(b % CHUNK_SLOTS)
    }
}

impl BlockCache {
    fn new(blocks: usize, limit: usize) -> BlockCache {
        let chunks = if limit == 0 {
            0
        } else {
            blocks.div_ceil(CHUNK_SLOTS)
        };
        BlockCache {
            state: RwLock::new(CacheState {
                chunks: (0..chunks).map(|_| None).collect(),
                order: VecDeque::new(),
                bytes: 0,
            }),
            limit,
        }
    }

    /// The cache, read.
    #[inline]
    fn read(&self) -> RwLockReadGuard<'_, CacheState> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps block `b`, unless it is kept already or larger than the
    /// bound, letting others go to stay within the bound.
    fn put(&self, b: usize, decoded: Arc<Block>) {
        let cost = decoded.cost();
        if cost > self.limit {
            return;
        }
        let mut gone = Vec::new();
        {
            let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
            let state = &mut *state;
            let Some(chunk) = state.chunks.get_mut(b / CHUNK_SLOTS) else {
                return;
            };
            let chunk =
                chunk.get_or_insert_with(|| (0..CHUNK_SLOTS).map(|_| Slot::default()).collect());
            let slot = &mut chunk[b % CHUNK_SLOTS];
            if slot.block.is_some() {
                return;
            }
            slot.block = Some(decoded);
            *slot.used.get_mut() = false;
            state.order.push_back(b);
            state.bytes += cost;
            // Each block in the ring is passed over at most once.
            let mut spared = 0;
            while state.bytes > self.limit {
                let Some(old) = state.order.pop_front() else {
                    break;
                };
                let left = state.order.len();
                let Some(s) = state.slot_mut(old) else {
                    continue;
                };
                if old != b && spared < left && std::mem::take(s.used.get_mut()) {
                    state.order.push_back(old);
                    spared += 1;
                    continue;
                }
                if let Some(block) = s.block.take() {
                    state.bytes -= block.cost();
                    gone.push(block);
                }
            }
        }
        // Freed once the lock is let go.
        drop(gone);
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
            levels: Block::levels_for(info.block_entries as usize),
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
    pub fn decode_entries<'f>(
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
        let first = self.first_keys[b];
        let end_key = match self.first_keys.get(b + 1) {
            Some(&next) => next,
            None => mask(self.key_bits).saturating_add(1),
        };
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

    /// Block `b`, from the cache or checked and decoded from `file` (and
    /// then kept in the cache).
    pub fn block(&self, file: FileBytes<'_>, b: usize) -> Result<Arc<Block>, Corrupted> {
        if let Some(block) = self.cache.read().get(b) {
            return Ok(Arc::clone(block));
        }
        let decoded = Arc::new(self.decode_block(file, b)?);
        self.cache.put(b, Arc::clone(&decoded));
        Ok(decoded)
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
        Ok(f(&*self.block(file, b)?))
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
    pub fn get_many(
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
                    let Some(b) = self.block_of(k) else {
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
            records.extend_from_slice(&self.decode_entries(file, b)?);
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
pub enum Unpacking {
    /// A block is damaged.
    #[error(transparent)]
    Corrupted(#[from] Corrupted),
    /// The caller asked to stop.
    #[error("interrupted")]
    Stopped,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A generator of the same numbers on every run.
    fn noise(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// `n` ascending entries of distinct keys above `shift` bits, the
    /// keys' steps below `2^step_bits`, the first key `first`.
    fn entries(n: usize, shift: u32, step_bits: u32, first: u64, seed: &mut u64) -> Vec<u64> {
        let mut key = first;
        (0..n)
            .map(|i| {
                if i > 0 {
                    key += 1 + noise(seed) % (1 << step_bits);
                }
                key << shift | noise(seed) & mask(shift)
            })
            .collect()
    }

    /// Every entry of `block` is found, and the keys around them are not.
    fn finds_exactly(block: &Block, entries: &[u64], shift: u32) {
        assert_eq!(block.len(), entries.len());
        assert!(block.entries().eq(entries.iter().copied()));
        for (i, &e) in entries.iter().enumerate() {
            let key = e >> shift;
            assert_eq!(block.find(key), Some(e), "entry {i} of {}", entries.len());
            for near in [key.wrapping_sub(1), key + 1] {
                if entries
                    .binary_search_by_key(&near, |&e| e >> shift)
                    .is_err()
                {
                    assert_eq!(block.find(near), None, "{near:#x}");
                }
            }
        }
        let last = entries.last().map_or(0, |&e| e >> shift);
        for far in [last + (1 << 33), (1 << (63 - shift)) - 1] {
            if far > last {
                assert_eq!(block.find(far), None);
            }
        }
    }

    #[test]
    fn a_decoded_block_finds_every_entry_and_nothing_else() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for n in [1, 2, 8, 15, 16, 17, 129, 130, 1000, 4096, 4097, 20_000] {
            // Split (small steps), whole (steps past 2^32 in a group), and
            // whole for more than 16 bits below the key.
            for (shift, step_bits) in [
                (12, 20),
                (8, 4),
                (0, 10),
                (12, 31),
                (16, 24),
                (16, 31),
                (20, 8),
            ] {
                let e = entries(n, shift, step_bits, 5, &mut seed);
                let block = Block::new(&e, shift);
                assert_eq!(block.levels, Block::levels_for(n));
                let split = matches!(block.entries, Entries::Split { .. });
                let narrow = e
                    .chunks(GROUP)
                    .all(|g| (g[g.len() - 1] >> shift) - (g[0] >> shift) <= u64::from(u32::MAX));
                assert_eq!(split, shift <= 16 && narrow, "{n} {shift} {step_bits}");
                if n > 100 {
                    assert_eq!(
                        split,
                        shift <= 16 && step_bits < 28,
                        "{n} {shift} {step_bits}"
                    );
                }
                finds_exactly(&block, &e, shift);
            }
        }
    }

    #[test]
    fn the_padding_of_a_last_group_is_never_found() {
        // A key offset of u32::MAX, the value of the padding, in a group
        // that is not full.
        let e = [0u64, 1, u64::from(u32::MAX)].map(|k| k << 12 | 7);
        let block = Block::new(&e, 12);
        assert!(matches!(block.entries, Entries::Split { .. }));
        finds_exactly(&block, &e, 12);
        // Keys up to the last of their width, kept whole: the padding
        // (u64::MAX) reads as the last key with every bit below it set.
        let top = (1u64 << 52) - 1;
        let e = [1u64, 1 << 40, top - 1].map(|k| k << 12 | 3);
        let block = Block::new(&e, 12);
        assert!(matches!(block.entries, Entries::Whole(_)));
        finds_exactly(&block, &e, 12);
        assert_eq!(block.find(top), None);
    }

    #[test]
    fn a_block_of_the_most_entries_fits_the_levels_and_starts_of_its_tree() {
        let n = super::super::header::MAX_BLOCK_ENTRIES as usize;
        assert!(usize::from(Block::levels_for(n)) <= MAX_LEVELS);
        let mut seed = 7;
        let e = entries(n, 12, 8, 0, &mut seed);
        let block = Block::new(&e, 12);
        assert_eq!(usize::from(block.levels), MAX_LEVELS);
        assert!(block.tree.len() < 1 << 16);
        for &x in e.iter().step_by(997) {
            assert_eq!(block.find(x >> 12), Some(x));
        }
    }

    #[test]
    fn the_cache_stays_within_its_bound_and_keeps_the_blocks_in_use() {
        let mut seed = 3;
        let blocks: Vec<Arc<Block>> = (0..40)
            .map(|b| Arc::new(Block::new(&entries(256, 12, 16, b << 40, &mut seed), 12)))
            .collect();
        let cost = blocks[0].cost();
        let cache = BlockCache::new(blocks.len(), 10 * cost);
        for (b, block) in blocks.iter().enumerate() {
            cache.put(b, Arc::clone(block));
            // Block 0 in use all along.
            assert!(cache.read().get(0).is_some(), "block {b}");
            let state = cache.read();
            assert!(state.bytes <= 10 * cost);
            assert_eq!(state.order.len(), state.bytes / cost);
        }
        let state = cache.read();
        assert_eq!(state.order.len(), 10);
        assert!(state.get(blocks.len() - 1).is_some());
        drop(state);
        // A second put of a block kept changes nothing; a block larger
        // than the bound is not kept.
        cache.put(0, Arc::clone(&blocks[0]));
        assert_eq!(cache.read().bytes, 10 * cost);
        let none = BlockCache::new(blocks.len(), cost - 1);
        none.put(0, Arc::clone(&blocks[0]));
        assert!(none.read().get(0).is_none());
        assert_eq!(none.read().bytes, 0);
    }
}
