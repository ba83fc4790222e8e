//! The canonical states of a database, layer by layer, and fast lookups of
//! a key's position within its layer.
//!
//! Whole-game statistics visit every edge of the game graph, some 80 million
//! in British Square. A binary search per child over the whole record array
//! costs a dozen cache misses; a hash table per layer costs about one, which
//! is what keeps `query stats` within seconds.

use rayon::prelude::*;

use super::StatsError;
use crate::core::layout::LayoutKind;
use crate::core::Game;
use crate::db::Database;

/// One layer's canonical states: sorted keys and their stored net values.
#[derive(Clone, Debug, Default)]
pub(crate) struct Layer {
    /// The canonical keys, ascending.
    pub keys: Vec<u64>,
    /// `nets[i]` is the stored net value of `keys[i]` for its side to move.
    pub nets: Vec<i32>,
}

/// Every canonical state of a database, bucketed by [`Game::layer`].
#[derive(Clone, Debug, Default)]
pub(crate) struct LayerSet {
    /// Index = layer number.
    pub layers: Vec<Layer>,
}

/// Keys per parallel work unit when scanning a dense table.
const DENSE_CHUNK: u64 = 1 << 16;

impl LayerSet {
    /// The canonical states of a database: the records of a sorted file, or
    /// the keys of a dense file that are their own canonical form (a dense
    /// file holds every key; symmetric keys share a value).
    pub(crate) fn from_database(game: &dyn Game, db: &Database) -> Result<LayerSet, StatsError> {
        let count = game.layer_count();
        let mut layers = vec![Layer::default(); count];
        let layer_of = |key: u64| -> Result<usize, StatsError> {
            let layer = game.layer(key);
            if layer < count {
                Ok(layer)
            } else {
                Err(StatsError::Game(format!(
                    "state {key:#x} has layer {layer}, but the game has {count} layers"
                )))
            }
        };
        match db.header().kind {
            LayoutKind::Sorted => {
                let layout = db.header().layout;
                // Records are sorted by key, so every bucket comes out sorted.
                for &raw in db.raw_records() {
                    let r = u64::from_le(raw);
                    let key = layout.key(r);
                    let l = &mut layers[layer_of(key)?];
                    l.keys.push(key);
                    l.nets.push(layout.value(r).net);
                }
            }
            LayoutKind::Dense => {
                let layout = db.header().layout;
                let entries = db.dense_entries();
                let total = entries.len() as u64;
                let chunks: Vec<Vec<(u64, i32)>> = (0..total.div_ceil(DENSE_CHUNK))
                    .into_par_iter()
                    .map(|c| {
                        let lo = c * DENSE_CHUNK;
                        let hi = total.min(lo + DENSE_CHUNK);
                        (lo..hi)
                            .filter(|&k| game.canonical(k) == k)
                            .map(|k| (k, layout.dense_value(k, entries[k as usize]).net))
                            .collect()
                    })
                    .collect();
                for (key, net) in chunks.into_iter().flatten() {
                    let l = &mut layers[layer_of(key)?];
                    l.keys.push(key);
                    l.nets.push(net);
                }
            }
        }
        Ok(LayerSet { layers })
    }

    /// The layer and index of a canonical key, by binary search (for the
    /// few lookups that do not deserve a table).
    pub(crate) fn find(&self, game: &dyn Game, key: u64) -> Option<(usize, usize)> {
        let layer = game.layer(key);
        let l = self.layers.get(layer)?;
        l.keys.binary_search(&key).ok().map(|i| (layer, i))
    }
}

/// An open-addressing hash table from the keys of one layer to their
/// indices in it.
#[derive(Debug)]
pub(crate) struct LayerTable {
    slots: Vec<Slot>,
    shift: u32,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    key: u64,
    index: u32,
}

/// Marks an empty slot: no game key has all 64 bits set (keys use at most
/// the low [`crate::core::GameDescriptor::key_bits`], and the solver caps those
/// well below 64); [`LayerTable::new`] checks.
const EMPTY: u64 = u64::MAX;

impl LayerTable {
    /// A table of `keys` (distinct), which must be fewer than 2^32.
    pub(crate) fn new(keys: &[u64]) -> Result<LayerTable, StatsError> {
        if keys.len() >= u32::MAX as usize || keys.contains(&EMPTY) {
            return Err(StatsError::Game(
                "a layer is too large or holds the key 2^64 - 1".into(),
            ));
        }
        // At most half full: short probe sequences.
        let bits = (keys.len() * 2)
            .max(16)
            .next_power_of_two()
            .trailing_zeros();
        let mut slots = vec![
            Slot {
                key: EMPTY,
                index: 0
            };
            1 << bits
        ];
        let shift = 64 - bits;
        let mask = slots.len() - 1;
        for (i, &key) in keys.iter().enumerate() {
            let mut s = home(key, shift);
            while slots[s].key != EMPTY {
                s = (s + 1) & mask;
            }
            slots[s] = Slot {
                key,
                index: i as u32,
            };
        }
        Ok(LayerTable { slots, shift })
    }

    /// The index of `key`, if the layer holds it.
    #[inline]
    pub(crate) fn get(&self, key: u64) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut s = home(key, self.shift);
        loop {
            let slot = self.slots[s];
            if slot.key == key {
                return Some(slot.index as usize);
            }
            if slot.key == EMPTY {
                return None;
            }
            s = (s + 1) & mask;
        }
    }

    /// Asks the processor to start loading `key`'s home slot, so that a
    /// later [`LayerTable::get`] does not wait for memory.
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        if let Some(slot) = self.slots.get(home(key, self.shift)) {
            crate::core::platform::prefetch(slot);
        }
    }
}

/// Fibonacci hashing: the top bits of the key times an odd constant.
#[inline]
fn home(key: u64, shift: u32) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
}

/// Tables of the layers a pass over layer `L` may look children up in: `L`
/// itself (same-layer moves, such as British Square's forced passes) and
/// `L + 1`. Built as the pass moves on, each layer's table once.
#[derive(Debug, Default)]
pub(crate) struct Window {
    layer: usize,
    this: Option<LayerTable>,
    next: Option<LayerTable>,
}

impl Window {
    /// Moves the window to layer `layer` (tables of `layer` and `layer + 1`),
    /// reusing what it can. Passes run forward or backward; both work.
    pub(crate) fn at(&mut self, set: &LayerSet, layer: usize) -> Result<(), StatsError> {
        let table = |l: usize| -> Result<Option<LayerTable>, StatsError> {
            match set.layers.get(l) {
                Some(l) if !l.keys.is_empty() => LayerTable::new(&l.keys).map(Some),
                _ => Ok(None),
            }
        };
        let (this, next) = if self.this.is_some() && layer + 1 == self.layer {
            // Moving backward: the old `this` is the new `next`.
            (table(layer)?, self.this.take())
        } else if layer == self.layer + 1 && self.next.is_some() {
            (self.next.take(), table(layer + 1)?)
        } else {
            (table(layer)?, table(layer + 1)?)
        };
        *self = Window { layer, this, next };
        Ok(())
    }

    /// The index of canonical `key` of layer `layer` (the window's layer or
    /// the next one).
    #[inline]
    pub(crate) fn get(&self, layer: usize, key: u64) -> Option<usize> {
        let t = if layer == self.layer {
            self.this.as_ref()
        } else if layer == self.layer + 1 {
            self.next.as_ref()
        } else {
            None
        };
        t?.get(key)
    }

    /// [`LayerTable::prefetch`] for the table of `layer`.
    #[inline]
    pub(crate) fn prefetch(&self, layer: usize, key: u64) {
        let t = if layer == self.layer + 1 {
            self.next.as_ref()
        } else {
            self.this.as_ref()
        };
        if let Some(t) = t {
            t.prefetch(key);
        }
    }
}
