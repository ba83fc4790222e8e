//! The cache of decoded blocks: bounded in bytes, a slot per block, the
//! blocks in use kept by the clock.

use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard};

use super::block::Block;

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
pub(super) struct BlockCache {
    state: RwLock<CacheState>,
    limit: usize,
}

/// What [`BlockCache`]'s lock guards.
pub(super) struct CacheState {
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
    pub(super) fn get(&self, b: usize) -> Option<&Arc<Block>> {
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
    /// An empty cache of at most `limit` bytes for a file of `blocks`
    /// blocks (none kept when `limit` is 0).
    pub(super) fn new(blocks: usize, limit: usize) -> BlockCache {
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
    pub(super) fn read(&self) -> RwLockReadGuard<'_, CacheState> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps block `b`, unless it is kept already or larger than the
    /// bound, letting others go to stay within the bound.
    pub(super) fn put(&self, b: usize, decoded: Arc<Block>) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::packed::block::tests::entries;

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
