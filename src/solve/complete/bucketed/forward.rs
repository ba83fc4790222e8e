//! The forward pass of the bucketed solver: every reachable state, layer
//! by layer, each bucket's states numbered by local id and every edge's
//! child named by its id. Layer `k + 1` is built from layer `k` in the two
//! parallel steps the parent module describes: *expand* ([`expand`], per
//! bucket of layer `k`) and *name* (`name`, per bucket of layer `k + 1`).
//!
//! The child ids of all layers go into one arena of words, two bytes an
//! edge, bucket by bucket: once the values are known, its memory (already
//! paged in, larger than the records) becomes the records' array. While a
//! layer is expanded, its children (bucket by bucket, class by class) lie
//! past the room for its ids, where later layers' ids will go: the pages
//! are touched once for both (fresh pages cost kernel time).

use rayon::prelude::*;

use super::arena::{key_chunks, lengthen, reserved_words, share, unshare};
use super::name::{name, Named};
use super::{Bucket, Solve};
use crate::core::Progress;
use crate::solve::complete::backward::Kind;
use crate::solve::complete::buckets::{BucketScheme, Bucketed, ClassSink, MAX_CLASSES, NO_BUCKET};
use crate::solve::complete::error::SolveError;

/// What the forward pass found: every bucket's states and edges.
pub(super) struct Enumerated {
    /// The canonical start state.
    pub(super) start: u64,
    /// Every bucket of the scheme, by number (those never reached empty).
    pub(super) buckets: Vec<Bucket>,
    /// The states' keys, bucket after bucket, in one chunk per naming
    /// thread (see [`key_chunks`]).
    pub(super) chunks: Vec<Vec<u64>>,
    /// Per bucket and class: where its visit starts in its target's ids.
    pub(super) visit_at: Vec<u32>,
    /// The buckets of each layer.
    pub(super) by_layer: Vec<Vec<u32>>,
    /// The child id of every edge, bucket by bucket, visit after visit, 2
    /// bytes each, in an array of words (see the module documentation).
    pub(super) arena: Vec<u64>,
    /// The ids in `arena`.
    pub(super) ids_len: usize,
}

/// The children of the layer being expanded: bucket by bucket, class by
/// class, in one run.
struct LayerChildren<'a> {
    /// Per bucket: where its children start, as an index into `at`
    /// (`u32::MAX` for a bucket not in the layer).
    row: &'a [u32],
    /// Per bucket of the layer and class: where its children start in
    /// `children` (`classes + 1` entries a bucket, the last where its
    /// children end).
    at: &'a [usize],
    /// The children.
    children: &'a [u64],
}

impl LayerChildren<'_> {
    /// The children of bucket `b`'s class `c`.
    #[inline]
    fn class(&self, b: u32, c: usize) -> &[u64] {
        let r = self.row[b as usize];
        if r == u32::MAX {
            return &[];
        }
        let i = r as usize + c;
        &self.children[self.at[i]..self.at[i + 1]]
    }
}

/// A bucket of the next layer and the visits into it: the (bucket, class)
/// pairs of the layer expanded whose children go there, in a fixed order.
struct Target {
    bucket: u32,
    visits: Vec<(u32, usize)>,
}

/// The forward pass: every bucket's states and edges, from the start's
/// bucket on.
pub(super) fn enumerate<G: Bucketed + ?Sized>(
    solve: &Solve<'_, G>,
    progress: &dyn Progress,
) -> Result<Enumerated, SolveError> {
    let scheme = &solve.scheme;
    // Per bucket: the (bucket, class) pairs that lead to it.
    let mut incoming: Vec<Vec<(u32, usize)>> = vec![Vec::new(); scheme.count()];
    for b in 0..scheme.count() as u32 {
        for c in 0..solve.classes {
            let t = scheme.next(b, c);
            if t != NO_BUCKET {
                incoming[t as usize].push((b, c));
            }
        }
    }
    progress.start_phase("enumerate", solve.layers as u64);
    let mut found = start(solve)?;
    // Per bucket: where the children of the layer being expanded start, by
    // class, as an index into their offsets.
    let mut row = vec![u32::MAX; scheme.count()];
    for k in 0..solve.layers {
        expand_layer(solve, &incoming, &mut found, &mut row, k)?;
        progress.advance(1);
    }
    found.arena.truncate(found.ids_len.div_ceil(4));
    progress.finish_phase();
    Ok(found)
}

/// The start's bucket, named: the forward pass before its first layer.
fn start<G: Bucketed + ?Sized>(solve: &Solve<'_, G>) -> Result<Enumerated, SolveError> {
    let Solve {
        game,
        ref scheme,
        classes,
        layers,
        key_bits,
        ..
    } = *solve;
    let mut buckets: Vec<Bucket> = (0..scheme.count()).map(|_| Bucket::default()).collect();
    let mut by_layer: Vec<Vec<u32>> = vec![Vec::new(); layers];
    let start = game.canonical(game.start());
    let first = game.bucket(start);
    if first as usize >= scheme.count() {
        return Err(SolveError::BucketContract {
            state: start,
            reason: "its bucket is out of range",
        });
    }
    let k0 = scheme.layer(first);
    if k0 >= layers {
        return Err(SolveError::LayerRange {
            state: start,
            layer: k0,
            count: layers,
        });
    }
    let shared = share(key_chunks());
    let named = name(
        game,
        scheme,
        first,
        key_bits,
        &[&[start]],
        &mut [0],
        &shared,
    )?;
    let chunks = unshare(shared);
    buckets[first as usize].keys = named.keys;
    buckets[first as usize].same = named.same;
    buckets[first as usize].moves = named.moves;
    by_layer[k0].push(first);
    if classes > MAX_CLASSES {
        return Err(SolveError::BucketContract {
            state: start,
            reason: "its game's scheme has more than 16 classes",
        });
    }
    Ok(Enumerated {
        start,
        buckets,
        chunks,
        visit_at: vec![0u32; scheme.count() * classes],
        by_layer,
        arena: reserved_words(),
        ids_len: 0,
    })
}

/// Expands layer `k` into layer `k + 1`: its buckets' children, then the
/// buckets they lead to, each named. `incoming` lists each bucket's
/// (bucket, class) pairs that lead to it; `row` is the layer's index into
/// its children's offsets, all `u32::MAX` between layers.
fn expand_layer<G: Bucketed + ?Sized>(
    solve: &Solve<'_, G>,
    incoming: &[Vec<(u32, usize)>],
    found: &mut Enumerated,
    row: &mut [u32],
    k: usize,
) -> Result<(), SolveError> {
    let classes = solve.classes;
    let Enumerated {
        start,
        buckets,
        chunks,
        visit_at,
        by_layer,
        arena,
        ids_len,
    } = found;
    let sources = std::mem::take(&mut by_layer[k]);
    // Where each bucket's children of each class go.
    let mut at = Vec::with_capacity(sources.len() * (classes + 1) + 1);
    let mut total = 0;
    for (i, &b) in sources.iter().enumerate() {
        row[b as usize] = (i * (classes + 1)) as u32;
        for &n in &buckets[b as usize].moves[..classes] {
            at.push(total);
            total += n;
        }
        at.push(total);
    }
    // The layer's ids (one per child) then its children. Every slot is
    // written before it is read: no clearing, only growing.
    let ids_end = *ids_len + total;
    let children_at = ids_end.div_ceil(4);
    lengthen(arena, children_at + total);
    let (id_words, children) = arena.split_at_mut(children_at);
    let children = &mut children[..total];
    let kinds = expand_buckets(
        solve.game, buckets, chunks, &sources, &at, classes, children,
    )?;
    let layer = LayerChildren {
        row,
        at: &at,
        children,
    };
    let targets = targets(&solve.scheme, incoming, &sources, &layer, k)?;
    // Each target's share of the arena.
    let mut starts = Vec::with_capacity(targets.len());
    let mut end = *ids_len;
    for t in &targets {
        starts.push(end);
        let mut offset = 0usize;
        for &(b, c) in &t.visits {
            visit_at[b as usize * classes + c] = offset as u32;
            offset += layer.class(b, c).len();
        }
        buckets[t.bucket as usize].ids_at = end;
        end += offset;
    }
    if end != ids_end {
        // Every child is in one visit of one target.
        return Err(SolveError::BucketContract {
            state: *start,
            reason: "its game's classes lead to buckets that do not take them",
        });
    }
    let mut outs = Vec::with_capacity(targets.len());
    let mut rest = &mut bytemuck::cast_slice_mut::<u64, u16>(id_words)[*ids_len..end];
    for (i, &at) in starts.iter().enumerate() {
        let next = starts.get(i + 1).copied().unwrap_or(end);
        let (head, tail) = rest.split_at_mut(next - at);
        outs.push(head);
        rest = tail;
    }
    *ids_len = end;
    let named = name_targets(solve, &targets, &layer, outs, chunks)?;
    for (t, named) in targets.iter().zip(named) {
        let bucket = &mut buckets[t.bucket as usize];
        bucket.keys = named.keys;
        bucket.same = named.same;
        bucket.moves = named.moves;
    }
    for (&b, kinds) in sources.iter().zip(kinds) {
        row[b as usize] = u32::MAX;
        buckets[b as usize].kinds = kinds;
    }
    by_layer[k] = sources;
    if k + 1 < solve.layers {
        by_layer[k + 1] = targets.into_iter().map(|t| t.bucket).collect();
    }
    Ok(())
}

/// The expand step: the children of every bucket of `sources` into
/// `children`, in parallel, bucket `i`'s class `c` from `at[i * (classes +
/// 1) + c]` on; each bucket's kinds of edges, by class.
fn expand_buckets<G: Bucketed + ?Sized>(
    game: &G,
    buckets: &[Bucket],
    chunks: &[Vec<u64>],
    sources: &[u32],
    at: &[usize],
    classes: usize,
    children: &mut [u64],
) -> Result<Vec<Vec<Option<Kind>>>, SolveError> {
    let mut outs = Vec::with_capacity(sources.len());
    let mut rest: &mut [u64] = children;
    for i in 0..sources.len() {
        let row = &at[i * (classes + 1)..(i + 1) * (classes + 1)];
        let (head, tail) = rest.split_at_mut(row[classes] - row[0]);
        outs.push(head);
        rest = tail;
    }
    sources
        .par_iter()
        .zip(outs)
        .enumerate()
        .map(|(i, (&b, out))| {
            let row = &at[i * (classes + 1)..(i + 1) * (classes + 1)];
            let local: Vec<usize> = row.iter().map(|&a| a - row[0]).collect();
            expand(game, buckets[b as usize].keys.get(chunks), &local, out)
        })
        .collect()
}

/// The buckets of layer `k + 1` that the children of `layer` go to, in
/// order, each with its visits; checks that every class with children
/// leads to a bucket of the next layer.
fn targets(
    scheme: &BucketScheme,
    incoming: &[Vec<(u32, usize)>],
    sources: &[u32],
    layer: &LayerChildren<'_>,
    k: usize,
) -> Result<Vec<Target>, SolveError> {
    let mut targets = Vec::new();
    for &b in sources {
        for c in 0..scheme.classes() {
            if let Some(&child) = layer.class(b, c).first() {
                let t = scheme.next(b, c);
                if t == NO_BUCKET {
                    return Err(SolveError::BucketContract {
                        state: child,
                        reason: "its move's class leads nowhere from its parent's bucket",
                    });
                }
                if scheme.layer(t) != k + 1 {
                    return Err(SolveError::BucketContract {
                        state: child,
                        reason: "its move's class leads to a bucket not in the next layer",
                    });
                }
                targets.push(t);
            }
        }
    }
    targets.sort_unstable();
    targets.dedup();
    // The visits into each target, in a fixed order.
    Ok(targets
        .into_iter()
        .map(|t| Target {
            bucket: t,
            visits: incoming[t as usize]
                .iter()
                .copied()
                .filter(|&(b, c)| !layer.class(b, c).is_empty())
                .collect(),
        })
        .collect())
}

/// The name step: every bucket of `targets` named in parallel from its
/// visits' children in `layer`, the ids of its edges written to its part
/// of `outs`, its keys appended to `chunks`.
fn name_targets<G: Bucketed + ?Sized>(
    solve: &Solve<'_, G>,
    targets: &[Target],
    layer: &LayerChildren<'_>,
    outs: Vec<&mut [u16]>,
    chunks: &mut Vec<Vec<u64>>,
) -> Result<Vec<Named>, SolveError> {
    let shared = share(std::mem::take(chunks));
    let named: Vec<Named> = targets
        .par_iter()
        .zip(outs)
        .map(|(t, ids)| {
            let slices: Vec<&[u64]> = t.visits.iter().map(|&(b, c)| layer.class(b, c)).collect();
            name(
                solve.game,
                &solve.scheme,
                t.bucket,
                solve.key_bits,
                &slices,
                ids,
                &shared,
            )
        })
        .collect::<Result<_, _>>()?;
    *chunks = unshare(shared);
    Ok(named)
}

/// Generates the children of the states `keys` of one bucket into `out`,
/// class after class, where class `c` starts at `at[c]` (and ends at
/// `at[c + 1]`): [`Bucketed::class_counts`] said how many each class has.
/// Returns each class's kind of edges.
pub(in crate::solve) fn expand<G: Bucketed + ?Sized>(
    game: &G,
    keys: &[u64],
    at: &[usize],
    out: &mut [u64],
) -> Result<Vec<Option<Kind>>, SolveError> {
    let mut sink = ClassSink::new(out, at);
    for &parent in keys {
        sink.start_state();
        game.class_children(parent, &mut sink);
        let broken = |reason| SolveError::BucketContract {
            state: parent,
            reason,
        };
        let reserved = sink.end_state().map_err(broken)?;
        // Each state's reservation against its class counts (which the
        // backward pass recomputes to find each edge's parent): in debug
        // builds (the tests). Release builds check the bucket's sums
        // below: every class's run filled exactly.
        if cfg!(debug_assertions) && reserved != game.class_counts(parent) {
            return Err(broken("its moves of each class are not its class counts"));
        }
    }
    if !sink.is_full() {
        return Err(SolveError::BucketContract {
            state: keys.first().copied().unwrap_or(0),
            reason: "its bucket's moves of each class are not its class counts",
        });
    }
    Ok((0..at.len() - 1)
        .map(|c| (at[c + 1] > at[c]).then(|| game.class_kind(c)))
        .collect())
}
