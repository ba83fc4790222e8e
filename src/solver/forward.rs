//! The forward pass: every reachable canonical state, layer by layer, and
//! every edge's child by name.
//!
//! Layer `k` is expanded once all earlier layers are: its states are then all
//! known except those only reachable by same-layer moves (forced passes).
//! Expanding a batch of parents happens in three steps:
//!
//! 1. in parallel over chunks of parents, generate the canonical children,
//!    route the keys of layer `k + 1` by partition (a counting sort per
//!    chunk), and record each edge's kind and partition;
//! 2. in parallel over the partitions of layer `k + 1`, insert the routed keys
//!    of every chunk, each partition by one thread while it is in cache, and
//!    record each child's id;
//! 3. insert the children beyond `k + 1` (rare) one by one.
//!
//! Same-layer children (rare too) are named once all of the layer's parents
//! are expanded: layer `k` has dropped its index by then, and
//! [`Layer::resolve`] scans for them instead. The new ones are expanded in
//! turn, until the layer is closed.

use rayon::prelude::*;

use super::edges::{push_count, push_kind, Chunk, Edges};
use super::layer::{hash, unhash, Inserter, Layer, Part};
use super::{Progress, SolveError, CHUNK};
use crate::game::{Edge, Game};

/// Children routed per batch, roughly: large enough that each partition of
/// the next layer gets many keys per visit, small enough that the buffers
/// stay modest.
const BATCH_EDGES: usize = 1 << 20;

/// Chunks per batch at most, so that the reused buffers stay modest when the
/// states have few children.
const MAX_BATCH: usize = 64;

/// The checked layer of a child of a state of layer `k`.
#[inline]
pub(super) fn child_layer<G: Game + ?Sized>(
    game: &G,
    key_bits: u32,
    k: usize,
    child: u64,
) -> Result<usize, SolveError> {
    if key_bits < 64 && child >> key_bits != 0 {
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

/// What generating the children of one chunk of parents produced. The
/// buffers are reused from batch to batch.
#[derive(Default)]
struct Generated {
    part: usize,
    first: usize,
    len: usize,
    counts: Vec<u8>,
    many: Vec<u32>,
    kinds: Vec<(i8, bool, u32)>,
    /// Per edge: the partition of the next layer, or the number of
    /// partitions for other children.
    routes: Vec<u16>,
    /// Per edge: the position of its child in `keys`.
    pos: Vec<u32>,
    /// The hashes of the children in layer `k + 1`, partition by partition;
    /// replaced by their ids once inserted.
    keys: Vec<u64>,
    starts: Vec<u32>,
    /// The other children, in edge order, with their layers.
    other_keys: Vec<(usize, u64)>,
    /// The hashes of the children in layer `k + 1` in edge order, before
    /// grouping.
    unsorted: Vec<u64>,
    edges: Vec<Edge>,
}

/// Enumerates every reachable canonical state: one [`Layer`] per layer, and
/// per layer the chunks of its parents with their edges.
pub(super) fn enumerate<G: Game + ?Sized>(
    game: &G,
    start: u64,
    progress: &dyn Progress,
) -> Result<(Vec<Layer>, Vec<Edges>), SolveError> {
    let count = game.layer_count();
    let key_bits = game.descriptor().key_bits;
    progress.start_phase("enumerate", count as u64);
    let mut layers: Vec<Layer> = (0..count).map(|_| Layer::new(0)).collect();
    let mut edges: Vec<Edges> = (0..count).map(|_| Edges::default()).collect();
    let first = child_layer(game, key_bits, 0, start)?;
    layers[first].insert(start);
    // Children per parent so far, to size batches.
    let mut fanout = 8.0;
    let mut pool = Vec::new();

    for k in 0..count {
        let n = layers[k].len();
        if n == 0 {
            layers[k].drop_index();
            progress.advance(1);
            continue;
        }
        if k + 1 < count && layers[k + 1].len() == 0 {
            // Expect the next layer to grow as this one did.
            let prev = if k > 0 { layers[k - 1].len().max(1) } else { 1 };
            let growth = (n as f64 / prev as f64).clamp(0.5, 4.0);
            layers[k + 1] = Layer::new((n as f64 * growth) as usize);
        }
        edges[k].other = layers.get(k + 1).map_or(0, |l| l.part_count() as u32);
        // Expand the layer, then the states its same-layer moves add, until
        // none are new. Its index is not needed for that (see
        // `Layer::resolve`), and it is the larger of the two live ones.
        layers[k].drop_index();
        let mut done = vec![0; layers[k].part_count()];
        loop {
            let ranges: Vec<(usize, usize, usize)> = layers[k]
                .parts()
                .iter()
                .zip(&done)
                .enumerate()
                .flat_map(|(q, (part, &from))| {
                    (from..part.len())
                        .step_by(CHUNK)
                        .map(move |first| (q, first, CHUNK.min(part.len() - first)))
                })
                .collect();
            if ranges.is_empty() {
                break;
            }
            for (d, part) in done.iter_mut().zip(layers[k].parts()) {
                *d = part.len();
            }
            let mut same = Vec::new();
            fanout = expand(
                game,
                key_bits,
                k,
                &ranges,
                &mut layers,
                &mut edges[k],
                &mut pool,
                &mut same,
                fanout,
            )?;
            // Name the same-layer children, adding the new ones: they are
            // expanded in the next round.
            let hashes: Vec<u64> = same.iter().map(|&(h, _, _)| h).collect();
            let found = layers[k].resolve(&hashes);
            for (&(_, chunk, at), &(p, id)) in same.iter().zip(&found) {
                edges[k].chunks[chunk].others[at] = (k as u32, p, id);
            }
        }
        edges[k].shrink_to_fit();
        // Past the widest layers, batches only shrink: give their buffers
        // back rather than keep them to the end, when the recorded edges of
        // every layer are held.
        if layers.get(k + 1).is_some_and(|next| next.len() < n) {
            pool = Vec::new();
        }
        progress.advance(1);
    }
    progress.finish_phase();
    Ok((layers, edges))
}

/// Expands the parents `ranges` (`(partition, first id, count)`) of layer `k`,
/// appending their chunks and edges to `out`. Same-layer children are left
/// unnamed in their chunks' `others`; `same` gets their hashes and where to
/// name them (chunk, position). Returns the children per parent.
#[allow(clippy::too_many_arguments)]
fn expand<G: Game + ?Sized>(
    game: &G,
    key_bits: u32,
    k: usize,
    ranges: &[(usize, usize, usize)],
    layers: &mut [Layer],
    out: &mut Edges,
    pool: &mut Vec<Generated>,
    same: &mut Vec<(u64, usize, usize)>,
    fanout: f64,
) -> Result<f64, SolveError> {
    let (mut parents, mut edges) = (0usize, 0usize);
    let per_batch = ((BATCH_EDGES as f64 / fanout.max(1.0)) as usize / CHUNK).clamp(1, MAX_BATCH);
    for batch in ranges.chunks(per_batch) {
        if pool.len() < batch.len() {
            pool.resize_with(batch.len(), Generated::default);
        }
        let gens = &mut pool[..batch.len()];
        let (head, later) = layers.split_at_mut(k + 1);
        let layer = &head[k];
        let next = later.first_mut();
        let next_ref = next.as_deref();
        gens.par_iter_mut()
            .zip(batch)
            .try_for_each(|(g, &(q, first, len))| {
                let parents = &layer.parts()[q].hashes()[first..first + len];
                (g.part, g.first, g.len) = (q, first, len);
                generate(game, key_bits, k, parents, next_ref, g)
            })?;
        // Ids are below the largest partition's size.
        let mut max_id = 0;
        if let Some(next) = next {
            insert_next(next, gens);
            max_id = next.parts().iter().map(Part::len).max().unwrap_or(0);
        }
        let spans = append(out, gens, max_id as u64);
        for (g, (e, c)) in gens.iter().zip(spans) {
            // Rare: children in this layer or beyond the next one.
            let mut others = Vec::with_capacity(g.other_keys.len());
            for &(j, key) in &g.other_keys {
                if j == k {
                    same.push((hash(key), out.chunks.len(), others.len()));
                    others.push((0, 0, 0));
                } else {
                    let (p, id, _) = layers[j].insert(key);
                    others.push((j as u32, p as u32, id));
                }
            }
            parents += g.len;
            edges += g.routes.len();
            out.chunks.push(Chunk {
                part: g.part,
                first: g.first,
                len: g.len,
                edges: e,
                counts: c,
                many: g.many.clone(),
                kinds: g.kinds.clone(),
                others,
            });
        }
    }
    Ok(if parents > 0 {
        edges as f64 / parents as f64
    } else {
        fanout
    })
}

/// Appends the counts, routes and ids (none above `max_id`) of `gens` to
/// `out`, in parallel; returns where each chunk's edges and counts start.
fn append(out: &mut Edges, gens: &[Generated], max_id: u64) -> Vec<(usize, usize)> {
    let (mut e, mut c) = (out.routes.len(), out.counts.len());
    let mut spans = Vec::with_capacity(gens.len());
    for g in gens {
        spans.push((e, c));
        e += g.routes.len();
        c += g.counts.len();
    }
    out.routes.reserve_to(e, u64::from(out.other));
    out.ids.reserve_to(e, max_id);
    out.counts.resize(c, 0);
    let other = out.other as usize;
    let base = spans.first().map_or(0, |s| s.0);
    let cbase = spans.first().map_or(0, |s| s.1);
    let counts = split(
        &mut out.counts[cbase..],
        gens.iter().map(|g| g.counts.len()),
    );
    counts
        .into_par_iter()
        .zip(gens)
        .for_each(|(dst, g)| dst.copy_from_slice(&g.counts));
    let lens = || gens.iter().map(|g| g.routes.len());
    out.routes
        .fill_from(base, lens(), gens, |g, i| u64::from(g.routes[i]));
    out.ids.fill_from(base, lens(), gens, |g, i| {
        let r = usize::from(g.routes[i]);
        if r == other {
            0
        } else {
            g.keys[g.pos[i] as usize]
        }
    });
    spans
}

/// Splits `v` into consecutive slices of the given lengths.
fn split<T>(mut v: &mut [T], lens: impl Iterator<Item = usize>) -> Vec<&mut [T]> {
    let mut out = Vec::new();
    for n in lens {
        let (head, tail) = v.split_at_mut(n);
        out.push(head);
        v = tail;
    }
    out
}

/// Inserts the routed children of every chunk into the next layer, one
/// partition per thread, replacing each key by its id.
fn insert_next(next: &mut Layer, gens: &mut [Generated]) {
    let parts = next.part_count();
    // Per partition: every chunk's keys for it.
    let mut work: Vec<Vec<&mut [u64]>> = (0..parts).map(|_| Vec::new()).collect();
    for g in gens.iter_mut() {
        let mut keys: &mut [u64] = &mut g.keys;
        for (p, w) in work.iter_mut().enumerate() {
            let (head, tail) = keys.split_at_mut((g.starts[p + 1] - g.starts[p]) as usize);
            w.push(head);
            keys = tail;
        }
    }
    let inserters: Vec<Inserter<'_>> = next.inserters().collect();
    inserters
        .into_par_iter()
        .zip(work)
        .for_each(|(mut ins, work)| {
            for keys in work {
                ins.insert_all(keys);
            }
        });
}

/// Generates the children of `parents` (key hashes of layer `k`) into `g`
/// and routes them.
fn generate<G: Game + ?Sized>(
    game: &G,
    key_bits: u32,
    k: usize,
    parents: &[u64],
    next: Option<&Layer>,
    g: &mut Generated,
) -> Result<(), SolveError> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the processor has the feature the function is compiled for.
        return unsafe { generate_popcnt(game, key_bits, k, parents, next, g) };
    }
    generate_any(game, key_bits, k, parents, next, g)
}

/// [`generate`] compiled with the population count instruction, which
/// [`Game::layer`] (a piece count for board games) inlines into.
///
/// # Safety
/// The processor must have POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn generate_popcnt<G: Game + ?Sized>(
    game: &G,
    key_bits: u32,
    k: usize,
    parents: &[u64],
    next: Option<&Layer>,
    g: &mut Generated,
) -> Result<(), SolveError> {
    generate_any(game, key_bits, k, parents, next, g)
}

#[inline(always)]
fn generate_any<G: Game + ?Sized>(
    game: &G,
    key_bits: u32,
    k: usize,
    parents: &[u64],
    next: Option<&Layer>,
    g: &mut Generated,
) -> Result<(), SolveError> {
    let parts = next.map_or(0, Layer::part_count);
    g.counts.clear();
    g.many.clear();
    g.kinds.clear();
    g.routes.clear();
    g.unsorted.clear();
    g.other_keys.clear();
    // starts[p + 1] counts the children of partition p as they come.
    g.starts.clear();
    g.starts.resize(parts + 2, 0);
    for &h in parents {
        g.edges.clear();
        game.canonical_children(unhash(h), &mut g.edges);
        push_count(&mut g.counts, &mut g.many, g.edges.len());
        for e in &g.edges {
            push_kind(&mut g.kinds, e.reward, e.again);
            let j = child_layer(game, key_bits, k, e.child)?;
            match next {
                Some(next) if j == k + 1 => {
                    let h = hash(e.child);
                    let p = next.part_of(h);
                    g.starts[p + 1] += 1;
                    g.routes.push(p as u16);
                    g.unsorted.push(h);
                }
                _ => {
                    g.routes.push(parts as u16);
                    g.other_keys.push((j, e.child));
                }
            }
        }
    }
    // Group the children of the next layer by partition (a counting sort),
    // remembering where each edge's child went.
    for p in 0..parts {
        g.starts[p + 1] += g.starts[p];
    }
    g.starts.truncate(parts + 1);
    g.keys.clear();
    g.keys.resize(g.unsorted.len(), 0);
    g.pos.clear();
    let mut at = g.starts.clone();
    let mut children = g.unsorted.iter();
    for &r in &g.routes {
        let r = usize::from(r);
        if r == parts {
            g.pos.push(0);
            continue;
        }
        let i = at[r] as usize;
        at[r] += 1;
        g.keys[i] = children.next().copied().unwrap_or(0);
        g.pos.push(i as u32);
    }
    Ok(())
}
