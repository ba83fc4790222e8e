//! The layered solver over ranks for games with buckets ([`Bucketed`]):
//! whole buckets, not single states, belong to ranks.
//!
//! A bucket holds the states of one layer with the same piece counts, so
//! every move of a class leads from a known bucket to a known bucket, and a
//! forced pass stays in its bucket. With buckets owned by ranks (a hash of
//! the bucket's number), a rank works on a few thousand states at a time
//! that fit its cache, as the one-process bucketed solver does:
//!
//! 1. **Forward**, layer by layer: each rank closes each of its buckets
//!    under its forced passes (which stay in the bucket, so on the rank),
//!    expands it class by class ([`Bucketed::class_children`]), gathers
//!    the children of each target bucket, sorted and without repeats, and
//!    sends them to the target's owner, which merges what every rank sent.
//! 2. **Backward**, last layer first: each rank fetches from their owners
//!    the keys and values of the next-layer buckets its buckets' moves
//!    lead to (10 bytes a state, once per round for every rank that reads
//!    the bucket, not 16 bytes an edge), then scores each of its buckets
//!    class by class, so that a class's lookups (a probe in a small hash
//!    index) stay in one bucket, in cache.
//! 3. **Records**, as [`super::ranks`]: sent to the rank of their key range.
//!
//! Every exchange is bounded: the forward pass sends at most [`ROUND`]
//! parents' children a round, and a backward round fetches buckets of at
//! most [`FETCH_STATES`] states in all.

use super::backward;
use super::buckets::{BucketScheme, Bucketed, NO_BUCKET};
use super::buckets::{ClassSink, MAX_CLASSES};
use super::layered::{overflow, Cell, SolveError};
use super::ranks::{
    finish, human_bytes, owner, Counted, Exchange, KeyMap as HashMap, RankSolution, ROUND,
};
use crate::core::layout::RecordLayout;
use crate::core::{Edge, Progress, Value};

/// The most states of fetched buckets a rank takes in one backward round.
pub const FETCH_STATES: usize = 1 << 20;

/// One of this rank's buckets.
#[derive(Default)]
struct Owned {
    /// Its states, sorted.
    keys: Vec<u64>,
    /// Their values, once scored.
    values: Vec<Cell>,
    /// The next-layer buckets its moves lead to, sorted.
    targets: Vec<u32>,
}

/// The rank that owns bucket `b`.
fn bucket_owner(b: u32, ranks: usize) -> usize {
    owner(u64::from(b), ranks)
}

/// Solves a bucketed game completely on the ranks of `ex`; every rank calls
/// this with the same game. The records are those of [`super::ranks::solve`]
/// (and of the one-process solvers).
pub fn solve<G: Bucketed + ?Sized>(
    game: &G,
    ex: &dyn Exchange,
    progress: &dyn Progress,
) -> Result<RankSolution, SolveError> {
    let layout = RecordLayout::for_game(game.descriptor());
    if !layout.is_well_formed() {
        return Err(overflow(Value::TERMINAL, &layout));
    }
    let ex = &Counted::new(ex);
    let scheme = game.bucket_scheme();
    let start = game.canonical(game.start());
    let layers = game.layer_count();
    let first = game.bucket(start);
    if first as usize >= scheme.count() || scheme.layer(first) >= layers {
        return Err(SolveError::BucketContract {
            state: start,
            reason: "its bucket is out of range",
        });
    }
    let mut buckets: HashMap<u32, Owned> = HashMap::default();
    let mut by_layer: Vec<Vec<u32>> = vec![Vec::new(); layers];
    if bucket_owner(first, ex.size()) == ex.rank() {
        // Closed under forced passes when it is expanded.
        buckets.insert(
            first,
            Owned {
                keys: vec![start],
                ..Owned::default()
            },
        );
        by_layer[scheme.layer(first)].push(first);
    }
    let forward_bytes = expand_layers(game, &scheme, ex, &mut buckets, &mut by_layer, progress)?;
    let mut layer_sizes = Vec::with_capacity(layers);
    for bs in &by_layer {
        let n: usize = bs.iter().map(|b| buckets[b].keys.len()).sum();
        layer_sizes.push(usize::try_from(ex.sum(n as u64)?).unwrap_or(usize::MAX));
    }
    let backward_bytes = score_layers(
        game,
        &scheme,
        ex,
        &mut buckets,
        &by_layer,
        &layout,
        progress,
    )?;

    // Each bucket is dropped as soon as it is packed.
    let mut records = Vec::with_capacity(buckets.values().map(|o| o.keys.len()).sum());
    for (_, o) in buckets.drain() {
        for (&key, cell) in o.keys.iter().zip(&o.values) {
            records.push(layout.pack(key, cell.value())?);
        }
    }
    drop(buckets);
    crate::core::platform::release_free_memory();
    finish(
        ex,
        records,
        layout,
        start,
        layer_sizes,
        [forward_bytes, backward_bytes],
    )
}

/// The children of a bucket's states, class by class, as the one-process
/// bucketed solver makes them ([`Bucketed::class_children`]).
struct Expanded {
    /// Per state: its moves of each class, 4 bits a class.
    counts: Vec<u64>,
    /// Where class `c`'s run is: `children[at[c]..at[c + 1]]`, the
    /// children of the states in order.
    at: Vec<usize>,
    children: Vec<u64>,
    /// The moves that stay in the bucket (forced passes), by state.
    same: Vec<(usize, Edge)>,
}

fn expand_bucket<G: Bucketed + ?Sized>(
    game: &G,
    classes: usize,
    keys: &[u64],
) -> Result<Expanded, SolveError> {
    let mut edges: Vec<Edge> = Vec::new();
    let mut same = Vec::new();
    let mut totals = [0usize; MAX_CLASSES];
    let counts: Vec<u64> = keys
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            edges.clear();
            let c = game.counts_and_same_bucket_children(s, &mut edges);
            same.extend(edges.iter().map(|e| (i, *e)));
            for (j, t) in totals.iter_mut().enumerate().take(classes) {
                *t += (c >> (4 * j) & 15) as usize;
            }
            c
        })
        .collect();
    let mut at = Vec::with_capacity(classes + 1);
    let mut total = 0;
    for &n in &totals[..classes] {
        at.push(total);
        total += n;
    }
    at.push(total);
    let mut children = vec![0u64; total];
    let mut sink = ClassSink::new(&mut children, &at);
    for &s in keys {
        sink.start_state();
        game.class_children(s, &mut sink);
        sink.end_state()
            .map_err(|reason| SolveError::BucketContract { state: s, reason })?;
    }
    if !sink.is_full() {
        return Err(SolveError::BucketContract {
            state: keys.first().copied().unwrap_or(0),
            reason: "its bucket's moves of each class are not its class counts",
        });
    }
    Ok(Expanded {
        counts,
        at,
        children,
        same,
    })
}

/// Closes this rank's bucket `b` under its forced passes (children in the
/// bucket itself, which its states' expansion names) and expands it.
fn closed_and_expanded<G: Bucketed + ?Sized>(
    game: &G,
    classes: usize,
    buckets: &mut HashMap<u32, Owned>,
    b: u32,
) -> Result<Expanded, SolveError> {
    let o = buckets
        .get_mut(&b)
        .ok_or(SolveError::MissingState { state: 0 })?;
    loop {
        let x = expand_bucket(game, classes, &o.keys)?;
        let mut missing: Vec<u64> = x
            .same
            .iter()
            .map(|(_, e)| e.child)
            .filter(|c| o.keys.binary_search(c).is_err())
            .collect();
        if missing.is_empty() {
            return Ok(x);
        }
        missing.sort_unstable();
        missing.dedup();
        o.keys.extend_from_slice(&missing);
        o.keys.sort_unstable();
    }
}

/// The next-layer bucket of class `c` of bucket `b` (in layer `k`), or
/// the game's broken contract.
fn target(
    scheme: &BucketScheme,
    b: u32,
    c: usize,
    k: usize,
    child: u64,
) -> Result<u32, SolveError> {
    let t = scheme.next(b, c);
    if t == NO_BUCKET || scheme.layer(t) != k + 1 {
        return Err(SolveError::BucketContract {
            state: child,
            reason: "its move's class leads nowhere in the next layer",
        });
    }
    Ok(t)
}

/// `items` cut into consecutive groups of at most `limit` in weight (an
/// item heavier than that alone), as many on every rank (the most any rank
/// needs; the others get empty groups).
fn rounds_of<T: Copy>(
    ex: &Counted<'_>,
    items: &[T],
    weight: impl Fn(T) -> usize,
    limit: usize,
) -> Result<Vec<Vec<T>>, SolveError> {
    let mut groups: Vec<Vec<T>> = Vec::new();
    let mut load = 0;
    for &item in items {
        let w = weight(item);
        match groups.last_mut() {
            Some(g) if load + w <= limit => g.push(item),
            _ => {
                groups.push(vec![item]);
                load = 0;
            }
        }
        load += w;
    }
    let most = ex.all_gather(vec![groups.len() as u64])?;
    let most = most.into_iter().max().unwrap_or(0) as usize;
    groups.resize(most, Vec::new());
    Ok(groups)
}

/// The forward pass: fills `buckets` and `by_layer` (this rank's buckets of
/// each layer, sorted) from the start's; the bytes all ranks sent while
/// expanding each layer.
fn expand_layers<G: Bucketed + ?Sized>(
    game: &G,
    scheme: &BucketScheme,
    ex: &Counted<'_>,
    buckets: &mut HashMap<u32, Owned>,
    by_layer: &mut [Vec<u32>],
    progress: &dyn Progress,
) -> Result<Vec<u64>, SolveError> {
    let ranks = ex.size();
    let layers = by_layer.len();
    let mut bytes = Vec::with_capacity(layers);
    progress.start_phase("forward", layers as u64);
    for k in 0..layers {
        by_layer[k].sort_unstable();
        let mut incoming: HashMap<u32, Vec<u64>> = HashMap::default();
        let mut targets_of: HashMap<u32, Vec<u32>> = HashMap::default();
        let rounds = rounds_of(ex, &by_layer[k], |b| buckets[&b].keys.len(), ROUND)?;
        for round in rounds {
            let mut by_target: HashMap<u32, Vec<u64>> = HashMap::default();
            for b in round {
                let x = closed_and_expanded(game, scheme.classes(), buckets, b)?;
                let ts = targets_of.entry(b).or_default();
                for c in 0..scheme.classes() {
                    let run = &x.children[x.at[c]..x.at[c + 1]];
                    let Some(&first) = run.first() else {
                        continue;
                    };
                    let t = target(scheme, b, c, k, first)?;
                    ts.push(t);
                    by_target.entry(t).or_default().extend_from_slice(run);
                }
            }
            let mut outgoing = vec![Vec::new(); ranks];
            for (t, mut children) in by_target {
                children.sort_unstable();
                children.dedup();
                let out = &mut outgoing[bucket_owner(t, ranks)];
                out.push(u64::from(t));
                out.push(children.len() as u64);
                out.extend_from_slice(&children);
            }
            for message in ex.all_to_all(outgoing)? {
                let mut rest = &message[..];
                while let [t, n, tail @ ..] = rest {
                    let n = usize::try_from(*n).unwrap_or(usize::MAX);
                    let (keys, after) =
                        tail.split_at_checked(n)
                            .ok_or_else(|| SolveError::Exchange {
                                reason: "a bucket's message is cut short".into(),
                            })?;
                    let t = u32::try_from(*t).map_err(|_| SolveError::Exchange {
                        reason: "a bucket number out of range".into(),
                    })?;
                    incoming.entry(t).or_default().extend_from_slice(keys);
                    rest = after;
                }
            }
        }
        for (b, mut ts) in targets_of {
            ts.sort_unstable();
            ts.dedup();
            if let Some(o) = buckets.get_mut(&b) {
                o.targets = ts;
            }
        }
        if k + 1 < layers {
            for (t, mut keys) in incoming {
                // Sorted runs, one per sender and round: the stable sort
                // merges them. Forced passes are added when the bucket is
                // expanded.
                keys.sort();
                keys.dedup();
                keys.shrink_to_fit();
                buckets.insert(
                    t,
                    Owned {
                        keys,
                        ..Owned::default()
                    },
                );
                by_layer[k + 1].push(t);
            }
        } else if !incoming.is_empty() {
            return Err(SolveError::LayerRange {
                state: 0,
                layer: layers,
                count: layers,
            });
        }
        let total = ex.total()?;
        bytes.push(total - bytes.iter().sum::<u64>());
        progress.status(&format!("{} exchanged", human_bytes(total)));
        progress.advance(1);
    }
    progress.finish_phase();
    Ok(bytes)
}

/// A fetched bucket of another rank: its keys and their values.
struct Fetched {
    keys: Vec<u64>,
    values: Vec<Cell>,
    index: SlotIndex,
}

/// Where each key of a bucket is: an open-addressing table of places, twice
/// the bucket's size, so that a lookup costs a probe or two instead of a
/// binary search's dozen dependent loads.
struct SlotIndex {
    slots: Vec<u32>,
    mask: usize,
}

impl SlotIndex {
    const EMPTY: u32 = u32::MAX;

    #[inline]
    fn home(&self, key: u64) -> usize {
        let h = key.wrapping_mul(0xd6e8_feb8_6659_fd93);
        (h ^ h >> 32) as usize & self.mask
    }

    /// Indexes `keys` (distinct, fewer than 2^32).
    fn new(keys: &[u64]) -> SlotIndex {
        let size = (2 * keys.len()).next_power_of_two().max(2);
        let mut index = SlotIndex {
            slots: vec![Self::EMPTY; size],
            mask: size - 1,
        };
        for (i, &k) in keys.iter().enumerate() {
            let mut at = index.home(k);
            while index.slots[at] != Self::EMPTY {
                at = (at + 1) & index.mask;
            }
            index.slots[at] = i as u32;
        }
        index
    }

    /// The place of `key` in `keys` (the keys indexed), if there.
    #[inline]
    fn find(&self, keys: &[u64], key: u64) -> Option<usize> {
        let mut at = self.home(key);
        loop {
            let i = self.slots[at];
            if i == Self::EMPTY {
                return None;
            }
            if keys.get(i as usize) == Some(&key) {
                return Some(i as usize);
            }
            at = (at + 1) & self.mask;
        }
    }
}

/// The backward pass: scores every state of this rank's buckets; the bytes
/// all ranks sent while scoring each layer.
fn score_layers<G: Bucketed + ?Sized>(
    game: &G,
    scheme: &BucketScheme,
    ex: &Counted<'_>,
    buckets: &mut HashMap<u32, Owned>,
    by_layer: &[Vec<u32>],
    layout: &RecordLayout,
    progress: &dyn Progress,
) -> Result<Vec<u64>, SolveError> {
    let ranks = ex.size();
    let me = ex.rank();
    let layers = by_layer.len();
    let before = ex.total()?;
    let mut bytes = vec![0u64; layers];
    progress.start_phase("backward", layers as u64);
    for k in (0..layers).rev() {
        // The sizes of the next layer's buckets, to bound what a round
        // fetches.
        let sizes: HashMap<u32, usize> = if k + 1 < layers {
            let mine: Vec<u64> = by_layer[k + 1]
                .iter()
                .flat_map(|&t| [u64::from(t), buckets[&t].keys.len() as u64])
                .collect();
            ex.all_gather(mine)?
                .chunks_exact(2)
                .map(|p| (p[0] as u32, p[1] as usize))
                .collect()
        } else {
            HashMap::default()
        };
        // This rank's buckets of layer k in groups whose remote targets
        // hold at most FETCH_STATES states.
        let mut groups: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
        let mut group: (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
        let mut states = 0usize;
        for &b in &by_layer[k] {
            let remote: Vec<u32> = buckets[&b]
                .targets
                .iter()
                .copied()
                .filter(|&t| bucket_owner(t, ranks) != me && !group.1.contains(&t))
                .collect();
            let more: usize = remote
                .iter()
                .map(|t| sizes.get(t).copied().unwrap_or(0))
                .sum();
            if !group.0.is_empty() && states + more > FETCH_STATES {
                groups.push(std::mem::take(&mut group));
                states = 0;
                let remote: Vec<u32> = buckets[&b]
                    .targets
                    .iter()
                    .copied()
                    .filter(|&t| bucket_owner(t, ranks) != me)
                    .collect();
                states += remote
                    .iter()
                    .map(|t| sizes.get(t).copied().unwrap_or(0))
                    .sum::<usize>();
                group.1.extend(remote);
            } else {
                states += more;
                group.1.extend(remote);
            }
            group.0.push(b);
        }
        if !group.0.is_empty() {
            groups.push(group);
        }
        // This rank's buckets of the next layer, indexed.
        let own: HashMap<u32, SlotIndex> = by_layer
            .get(k + 1)
            .map_or(&[][..], |v| &v[..])
            .iter()
            .map(|&t| (t, SlotIndex::new(&buckets[&t].keys)))
            .collect();
        let rounds = ex.all_gather(vec![groups.len() as u64])?;
        let rounds = rounds.into_iter().max().unwrap_or(0) as usize;
        for r in 0..rounds {
            let (mine, wanted) = groups
                .get(r)
                .map_or((&[][..], &[][..]), |g| (&g.0[..], &g.1[..]));
            let fetched = fetch(ex, buckets, wanted)?;
            for &b in mine {
                let values = score_bucket(game, scheme, buckets, &own, &fetched, b, k, layout)?;
                if let Some(o) = buckets.get_mut(&b) {
                    o.values = values;
                }
            }
        }
        let total = ex.total()?;
        bytes[k] = total - before - bytes.iter().sum::<u64>();
        progress.status(&format!("{} exchanged", human_bytes(total)));
        progress.advance(1);
    }
    progress.finish_phase();
    Ok(bytes)
}

/// Asks the owners of the buckets `wanted` for their keys and values and
/// answers every other rank's asks from `buckets` (a collective call).
fn fetch(
    ex: &Counted<'_>,
    buckets: &HashMap<u32, Owned>,
    wanted: &[u32],
) -> Result<HashMap<u32, Fetched>, SolveError> {
    let ranks = ex.size();
    let mut asks = vec![Vec::new(); ranks];
    for &t in wanted {
        asks[bucket_owner(t, ranks)].push(u64::from(t));
    }
    let asked = ex.all_to_all(asks)?;
    let mut replies = vec![Vec::new(); ranks];
    for (r, ts) in asked.iter().enumerate() {
        for &t in ts {
            let o = u32::try_from(t)
                .ok()
                .and_then(|t| buckets.get(&t))
                .ok_or_else(|| SolveError::Exchange {
                    reason: format!("bucket {t} asked of a rank that does not hold it"),
                })?;
            let out = &mut replies[r];
            out.push(t);
            out.push(o.keys.len() as u64);
            out.extend_from_slice(&o.keys);
            out.extend(o.values.chunks(4).map(|c| {
                c.iter()
                    .rev()
                    .fold(0u64, |w, cell| w << 16 | u64::from(cell.0))
            }));
        }
    }
    let mut fetched = HashMap::default();
    for message in ex.all_to_all(replies)? {
        let mut rest = &message[..];
        while let [t, n, tail @ ..] = rest {
            let n = usize::try_from(*n).unwrap_or(usize::MAX);
            let words = n.div_ceil(4);
            let cut = || SolveError::Exchange {
                reason: "a bucket's reply is cut short".into(),
            };
            let (keys, after) = tail.split_at_checked(n).ok_or_else(cut)?;
            let (packed, after) = after.split_at_checked(words).ok_or_else(cut)?;
            let mut values: Vec<Cell> = packed
                .iter()
                .flat_map(|&w| (0..4).map(move |i| Cell((w >> (16 * i)) as u16)))
                .collect();
            values.truncate(n);
            fetched.insert(
                *t as u32,
                Fetched {
                    index: SlotIndex::new(keys),
                    keys: keys.to_vec(),
                    values,
                },
            );
            rest = after;
        }
    }
    Ok(fetched)
}

/// The values of bucket `b`'s states (layer `k`), from the next layer's
/// buckets (this rank's or fetched), class by class so that the lookups
/// of a class stay in one bucket (in cache), and, for forced passes, from
/// each other: a state whose pass leads to a state not scored yet waits
/// for the next sweep; a sweep without progress is a cycle.
#[allow(clippy::too_many_arguments)]
fn score_bucket<G: Bucketed + ?Sized>(
    game: &G,
    scheme: &BucketScheme,
    buckets: &HashMap<u32, Owned>,
    own: &HashMap<u32, SlotIndex>,
    fetched: &HashMap<u32, Fetched>,
    b: u32,
    k: usize,
    layout: &RecordLayout,
) -> Result<Vec<Cell>, SolveError> {
    let keys = &buckets[&b].keys;
    let x = expand_bucket(game, scheme.classes(), keys)?;
    let mut best = vec![i64::MIN; keys.len()];
    for c in 0..scheme.classes() {
        let run = &x.children[x.at[c]..x.at[c + 1]];
        let Some(&first) = run.first() else {
            continue;
        };
        let t = target(scheme, b, c, k, first)?;
        let (tk, tv, ti) = match (buckets.get(&t), own.get(&t)) {
            (Some(o), Some(i)) => (&o.keys[..], &o.values[..], i),
            _ => fetched
                .get(&t)
                .map(|f| (&f.keys[..], &f.values[..], &f.index))
                .ok_or(SolveError::MissingState { state: first })?,
        };
        let (reward, again) = game.class_kind(c);
        let mut next = run.iter();
        for (i, &counts) in x.counts.iter().enumerate() {
            for _ in 0..(counts >> (4 * c) & 15) {
                // No error value is built unless it is needed (its drop
                // would cost a call per edge).
                let Some(&child) = next.next() else {
                    return Err(SolveError::MissingState { state: first });
                };
                let Some(j) = ti.find(tk, child) else {
                    return Err(SolveError::MissingState { state: child });
                };
                let cell = tv[j];
                if cell == Cell::UNSET {
                    return Err(SolveError::MissingState { state: child });
                }
                best[i] = best[i].max(backward::through(reward, again, cell));
            }
        }
    }
    let mut values = vec![Cell::UNSET; keys.len()];
    // The states with forced passes wait for the passes' children.
    let mut waits = vec![false; keys.len()];
    for &(i, _) in &x.same {
        waits[i] = true;
    }
    for (i, v) in values.iter_mut().enumerate() {
        if !waits[i] {
            *v = Cell::new(backward::best_value(best[i]), layout)?;
        }
    }
    let mut waiting: Vec<usize> = (0..keys.len()).filter(|&i| waits[i]).collect();
    while !waiting.is_empty() {
        let mut still = Vec::new();
        for &i in &waiting {
            let mut ready = true;
            let mut b = best[i];
            let from = x.same.partition_point(|&(p, _)| p < i);
            for (_, e) in x.same[from..].iter().take_while(|&&(p, _)| p == i) {
                let j = keys
                    .binary_search(&e.child)
                    .map_err(|_| SolveError::MissingState { state: e.child })?;
                let cell = values[j];
                if cell == Cell::UNSET {
                    ready = false;
                    break;
                }
                b = b.max(backward::through(e.reward, e.again, cell));
            }
            if ready {
                values[i] = Cell::new(backward::best_value(b), layout)?;
            } else {
                still.push(i);
            }
        }
        if still.len() == waiting.len() {
            return Err(SolveError::SameLayerCycle { layer: k });
        }
        waiting = still;
    }
    Ok(values)
}
