//! The forward pass: every reachable canonical state, layer by layer, with
//! every edge's child named by its id.
//!
//! Layer `k` is expanded once all earlier layers are: its states are then all
//! known, except those only reachable by same-layer moves (forced passes).
//! Its parents, in id order, are cut into chunks; a batch of chunks is
//! expanded in parallel, each chunk generating the canonical children of its
//! parents and inserting those of layer `k + 1` into that layer's table (a
//! group of keys at a time, the table lines fetched ahead), which names
//! them. Between batches the next table grows if the batch could fill it;
//! a chunk that finds it full anyway is redone after it grows.
//!
//! Children in a later layer than `k + 1` (rare) are inserted after their
//! batch, one by one; same-layer children once the layer's parents are all
//! expanded: the new ones get the next ids and are expanded in turn, until
//! the layer is closed.

use rayon::prelude::*;

use super::edges::LayerEdges;
use super::error::SolveError;
use super::table::Table;
use crate::core::Progress;
use crate::core::{Edge, Game};

/// Parents per parallel work item.
pub(super) const CHUNK: usize = 2048;

/// Chunks expanded in parallel between two checks of the next table's room.
const BATCH: usize = 32;

/// The checked layer of a child of a state of layer `k`.
#[inline]
pub(super) fn child_layer<G: Game + ?Sized>(
    game: &G,
    key_bits: u32,
    k: usize,
    child: u64,
) -> Result<usize, SolveError> {
    if child.checked_shr(key_bits).unwrap_or(0) != 0 {
        return Err(SolveError::KeyTooWide {
            state: child,
            bits: key_bits,
        });
    }
    let j = game.layer(child);
    let count = game.layer_count();
    if j >= count {
        return Err(SolveError::LayerRange {
            state: child,
            layer: j,
            count,
        });
    }
    if j < k {
        return Err(SolveError::LayerOrder {
            state: child,
            from: k,
            to: j,
        });
    }
    Ok(j)
}

/// The forward pass's result: per layer, the keys by id and the edges of its
/// parents.
pub(super) struct Enumerated {
    pub(super) keys: Vec<Vec<u64>>,
    pub(super) edges: Vec<LayerEdges>,
}

/// What expanding one chunk of parents produced.
#[derive(Default)]
struct Generated {
    /// Children per parent.
    counts: Vec<u32>,
    /// The ids of the children in the next layer, in edge order.
    next_ids: Vec<u32>,
    /// `(edge, layer, key)` of the other children, edges counted from the
    /// chunk's first.
    others: Vec<(u32, u32, u64)>,
    /// `(edge, reward, again)` where the edge kind changes, from the chunk's
    /// first edge on.
    kinds: Vec<(u32, i8, bool)>,
    /// The keys of the children in the next layer, in edge order, until
    /// they are named.
    next_keys: Vec<u64>,
}

/// Buffers a thread reuses from chunk to chunk.
#[derive(Default)]
struct Scratch {
    edges: Vec<Edge>,
}

/// Enumerates every reachable canonical state and records every edge.
pub(super) fn enumerate<G: Game + ?Sized>(
    game: &G,
    start: u64,
    progress: &dyn Progress,
) -> Result<Enumerated, SolveError> {
    let count = game.layer_count();
    let key_bits = game.descriptor().key_bits;
    progress.start_phase("enumerate", count as u64);
    let mut tables: Vec<Table> = (0..count).map(|_| Table::new(key_bits, 0)).collect();
    let mut keys: Vec<Vec<u64>> = (0..count).map(|_| Vec::new()).collect();
    let mut edges: Vec<LayerEdges> = (0..count).map(|_| LayerEdges::default()).collect();
    let first = child_layer(game, key_bits, 0, start)?;
    tables[first].insert(start);
    let mut prev = 1usize;
    let mut ids_buf = Vec::new();

    for k in 0..count {
        let mut layer_keys = tables[k].keys_by_id();
        let n = layer_keys.len();
        // Expect the next layer to grow as this one did.
        let ratio = (n as f64 / prev as f64).clamp(0.5, 4.0);
        prev = n.max(1);
        if k + 1 < count && tables[k + 1].len() == 0 && n > 0 {
            tables[k + 1] = Table::new(key_bits, (n as f64 * ratio) as usize);
        }
        let mut build = Build::new(std::mem::take(&mut ids_buf));
        let (done, later) = tables.split_at_mut(k + 1);
        let mut same = expand(game, key_bits, k, &layer_keys, later, &mut build)?;
        // Close the layer under its same-layer moves.
        let table = &mut done[k];
        while !same.is_empty() {
            let bound = table.len() as u32;
            let mut fresh = Vec::new();
            for &(e, key) in &same {
                let id = table.insert(key);
                build.ids[e as usize] = id;
                if id >= bound && (id - bound) as usize == fresh.len() {
                    fresh.push(key);
                }
            }
            layer_keys.extend_from_slice(&fresh);
            same = expand(game, key_bits, k, &fresh, later, &mut build)?;
        }
        *table = Table::new(key_bits, 0);
        (edges[k], ids_buf) = build.finish();
        keys[k] = layer_keys;
        progress.advance(1);
    }
    progress.finish_phase();
    Ok(Enumerated { keys, edges })
}

/// A layer's edges while they are recorded.
struct Build {
    edges: LayerEdges,
    /// Child id per edge.
    ids: Vec<u32>,
}

impl Build {
    /// Starts a layer, reusing the buffer of an earlier one.
    fn new(mut ids: Vec<u32>) -> Build {
        ids.clear();
        Build {
            edges: LayerEdges::new(),
            ids,
        }
    }

    /// The layer's edges, and the buffer for the next layer.
    fn finish(mut self) -> (LayerEdges, Vec<u32>) {
        self.edges.set_ids(&self.ids);
        (self.edges, self.ids)
    }

    /// Appends a chunk's parents and edges; returns the edge numbers of its
    /// other children with their layers and keys, for naming.
    fn append(&mut self, g: &Generated) -> Vec<(u64, u32, u64)> {
        let base = self.ids.len() as u64;
        let parents = self.edges.parents();
        // The backward pass works in the same chunks.
        if parents > 0 {
            self.edges.starts.push((parents as u32, base));
        }
        for &c in &g.counts {
            self.edges.push_count(c as usize);
        }
        for &(e, reward, again) in &g.kinds {
            if self.edges.kinds.last().map(|&(_, r, a)| (r, a)) != Some((reward, again)) {
                self.edges.kinds.push((base + u64::from(e), reward, again));
            }
        }
        // Merge the next layer's ids with placeholders for the others.
        let mut next: &[u32] = &g.next_ids;
        let mut at = 0u32;
        for &(e, _, _) in &g.others {
            let (head, tail) = next.split_at((e - at) as usize);
            self.ids.extend_from_slice(head);
            self.ids.push(0);
            next = tail;
            at = e + 1;
        }
        self.ids.extend_from_slice(next);
        for &(e, layer, _) in &g.others {
            self.edges.others.push((base + u64::from(e), layer));
        }
        g.others
            .iter()
            .map(|&(e, layer, key)| (base + u64::from(e), layer, key))
            .collect()
    }
}

/// Expands `parents` (keys, in id order) of layer `k`, appending
/// their edges to `build`; `later` are the tables of layers `k + 1` on.
/// Returns the same-layer children: `(edge, key)`.
fn expand<G: Game + ?Sized>(
    game: &G,
    key_bits: u32,
    k: usize,
    parents: &[u64],
    later: &mut [Table],
    build: &mut Build,
) -> Result<Vec<(u64, u64)>, SolveError> {
    let mut same = Vec::new();
    let chunks: Vec<&[u64]> = parents.chunks(CHUNK).collect();
    let has_next = !later.is_empty();
    for batch in chunks.chunks(BATCH) {
        let mut results: Vec<Generated> = batch
            .par_iter()
            .map_init(Scratch::default, |scratch, parents| {
                generate(game, key_bits, k, parents, has_next, scratch)
            })
            .collect::<Result<_, SolveError>>()?;
        // Naming the children needs the next table to itself: one thread
        // inserts, without atomic read-modify-writes, whose fences would
        // stall the table lines fetched ahead.
        for g in &mut results {
            if let Some(next) = later.first_mut() {
                g.next_ids.resize(g.next_keys.len(), 0);
                next.insert_all(&g.next_keys, &mut g.next_ids);
            }
            for (e, layer, key) in build.append(g) {
                let j = layer as usize;
                if j == k {
                    same.push((e, key));
                } else {
                    build.ids[e as usize] = later[j - k - 1].insert(key);
                }
            }
        }
    }
    Ok(same)
}

/// Expands one chunk of parents: generates their canonical children,
/// leaving those of the next layer to be named.
fn generate<G: Game + ?Sized>(
    game: &G,
    key_bits: u32,
    k: usize,
    parents: &[u64],
    has_next: bool,
    scratch: &mut Scratch,
) -> Result<Generated, SolveError> {
    let mut g = Generated {
        counts: Vec::with_capacity(parents.len()),
        ..Generated::default()
    };
    let mut kind = None;
    let mut e = 0u32;
    for &parent in parents {
        scratch.edges.clear();
        game.canonical_children(parent, &mut scratch.edges);
        g.counts.push(scratch.edges.len() as u32);
        for edge in &scratch.edges {
            if kind != Some((edge.reward, edge.again)) {
                kind = Some((edge.reward, edge.again));
                g.kinds.push((e, edge.reward, edge.again));
            }
            let j = child_layer(game, key_bits, k, edge.child)?;
            if j == k + 1 && has_next {
                g.next_keys.push(edge.child);
            } else {
                g.others.push((e, j as u32, edge.child));
            }
            e += 1;
        }
    }
    Ok(g)
}
