//! The layered solver over ranks for games with buckets ([`Bucketed`]):
//! whole buckets, not single states, belong to ranks (a hash of the
//! bucket's number), and each rank runs the one-process bucketed solver's
//! steps ([`super::bucketed`]) on its buckets.
//!
//! A bucket holds the states of one layer with the same piece counts, so
//! every move of a class leads from a known bucket to a known bucket, and a
//! forced pass stays in its bucket. Its states are numbered by local ids
//! (`u16`) in a small hash table (`bucketed::Probe`) as they arrive:
//!
//! 1. **Forward**, layer by layer: each rank expands its buckets class by
//!    class ([`Bucketed::class_children`]). The children of a class bound
//!    for a bucket of its own are named there at once. For a bucket of
//!    another rank, the round's children are gathered without repeats in a
//!    table of their own and sent to the bucket's owner, which names them
//!    and answers with their ids (2 bytes a child). Each move keeps its
//!    child's id, as in one process. When the layer is done, each rank
//!    closes its next-layer buckets under their forced passes.
//! 2. **Backward**, last layer first: each rank fetches from their owners
//!    the values of the next-layer buckets its moves lead to (a byte a
//!    state, in a palette, once per round for every rank that reads the
//!    bucket) and scores its buckets from their moves' ids
//!    (`bucketed::score_states`): no child is generated or looked
//!    up twice.
//! 3. **Records**, as [`super::ranks`]: sent to the rank of their key range.
//!
//! Every exchange is bounded: the forward pass sends at most [`PARENTS`]
//! parents' children a round, and a backward round fetches buckets of at
//! most [`FETCH_STATES`] states in all.

use std::ops::Range;

use super::backward::Kind;
use super::bucketed::MAX_BUCKET;
use super::bucketed::{close, expand, score_states, ClassEdges, Probe, SameEdge, Values};
use super::buckets::{BucketScheme, Bucketed, MAX_CLASSES, NO_BUCKET};
use super::layered::{overflow, Cell, SolveError};
use super::ranks::{
    finish, human_bytes, owner, Counted, Exchange, KeyMap as HashMap, RankSolution, ROUND,
};
use crate::core::layout::RecordLayout;
use crate::core::{Edge, Progress, Value};

/// The most states of fetched buckets a rank takes in one backward round.
pub const FETCH_STATES: usize = 1 << 20;

/// The most parents a rank expands in one forward round (whole buckets; a
/// bucket larger than that alone): twice [`super::ranks::ROUND`], since a
/// child sent is named once per round and British Square's 5x5 ran 8%
/// faster so, within its memory bound per rank.
pub const PARENTS: usize = 2 * ROUND;

/// One of this rank's buckets.
#[derive(Default)]
struct Owned {
    /// Its states, by local id.
    keys: Vec<u64>,
    /// Its moves within itself (forced passes), grouped by parent.
    same: Vec<SameEdge>,
    /// Its states' moves of each class, in all.
    moves: [usize; MAX_CLASSES],
    /// Per class: the kind of its moves, `None` when there are none; known
    /// once the bucket is expanded.
    kinds: Vec<Option<Kind>>,
    /// The child id (in its class's bucket) of every move, class after
    /// class, state after state; dropped once the bucket is scored.
    ids: Vec<u16>,
    /// The values, once scored.
    values: Values,
}

/// Where each class's moves start in a bucket's ids (and where the last
/// ends): the prefix sums of its `moves`.
fn class_starts(moves: &[usize; MAX_CLASSES], classes: usize) -> Vec<usize> {
    let mut at = Vec::with_capacity(classes + 1);
    let mut total = 0;
    for &n in &moves[..classes] {
        at.push(total);
        total += n;
    }
    at.push(total);
    at
}

/// The rank that owns bucket `b`.
fn bucket_owner(b: u32, ranks: usize) -> usize {
    owner(u64::from(b), ranks)
}

/// An empty naming table for about `expected` states (it grows).
fn new_probe(expected: usize) -> Probe {
    let mut p = Probe::default();
    p.reset(expected);
    p
}

/// The error of a bucket grown past local ids.
fn too_large(state: u64) -> SolveError {
    SolveError::BucketContract {
        state,
        reason: "its bucket holds more than 65,536 states",
    }
}

/// The error of a message that does not parse.
fn garbled(reason: &str) -> SolveError {
    SolveError::Exchange {
        reason: reason.into(),
    }
}

/// `n` 16-bit values, four to a word.
fn pack16(out: &mut Vec<u64>, items: impl ExactSizeIterator<Item = u16>) {
    let mut word = 0u64;
    let mut i = 0;
    for x in items {
        word |= u64::from(x) << (16 * (i % 4));
        i += 1;
        if i % 4 == 0 {
            out.push(word);
            word = 0;
        }
    }
    if i % 4 != 0 {
        out.push(word);
    }
}

/// The first `n` 16-bit values of `words` (four to a word), and the words
/// after them.
fn unpack16(words: &[u64], n: usize) -> Result<(Vec<u16>, &[u64]), SolveError> {
    let (head, rest) = words
        .split_at_checked(n.div_ceil(4))
        .ok_or_else(|| garbled("a message is cut short"))?;
    let mut items: Vec<u16> = head
        .iter()
        .flat_map(|&w| (0..4).map(move |i| (w >> (16 * i)) as u16))
        .collect();
    items.truncate(n);
    Ok((items, rest))
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
    if scheme.classes() > MAX_CLASSES {
        return Err(SolveError::BucketContract {
            state: game.start(),
            reason: "its game's scheme has more than 16 classes",
        });
    }
    let key_bits = game.descriptor().key_bits;
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
        let mut probe = new_probe(1);
        probe.insert_all(&[start], &mut [0]);
        let (same, moves) = close(game, &scheme, first, key_bits, &mut probe, &mut Vec::new())?;
        buckets.insert(
            first,
            Owned {
                keys: probe.keys,
                same,
                moves,
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
        if o.values.len() != o.keys.len() {
            return Err(SolveError::MissingState {
                state: o.keys.first().copied().unwrap_or(0),
            });
        }
        for (id, &key) in o.keys.iter().enumerate() {
            records.push(layout.pack(key, o.values.get(id as u16).value())?);
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

/// The forward pass: fills `buckets` and `by_layer` (this rank's buckets of
/// each layer) from the start's; the bytes all ranks sent while expanding
/// each layer.
fn expand_layers<G: Bucketed + ?Sized>(
    game: &G,
    scheme: &BucketScheme,
    ex: &Counted<'_>,
    buckets: &mut HashMap<u32, Owned>,
    by_layer: &mut [Vec<u32>],
    progress: &dyn Progress,
) -> Result<Vec<u64>, SolveError> {
    let key_bits = game.descriptor().key_bits;
    let layers = by_layer.len();
    let mut bytes = Vec::with_capacity(layers);
    let mut edges: Vec<Edge> = Vec::new();
    progress.start_phase("forward", layers as u64);
    for k in 0..layers {
        by_layer[k].sort_unstable();
        // This rank's buckets of the next layer, named as children arrive.
        let mut named: HashMap<u32, Probe> = HashMap::default();
        let mut pool = Vec::new();
        let rounds = rounds_of(ex, &by_layer[k], |b| buckets[&b].keys.len(), PARENTS)?;
        for round in rounds {
            expand_round(game, scheme, ex, buckets, &mut named, &mut pool, &round, k)?;
        }
        if k + 1 < layers {
            for (t, mut probe) in named {
                let (same, moves) = close(game, scheme, t, key_bits, &mut probe, &mut edges)?;
                let mut keys = probe.keys;
                keys.shrink_to_fit();
                buckets.insert(
                    t,
                    Owned {
                        keys,
                        same,
                        moves,
                        ..Owned::default()
                    },
                );
                by_layer[k + 1].push(t);
            }
        } else if !named.is_empty() {
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

/// The children of another rank's bucket from one round: without repeats,
/// by their ids here, and the moves (a bucket and a range of its ids) that
/// lead there.
struct Outbound {
    bucket: u32,
    probe: Probe,
    moves: Vec<(u32, Range<usize>)>,
}

/// A naming table for about `expected` states, from `pool` if it has one.
fn probe_for(pool: &mut Vec<Probe>, expected: usize) -> Probe {
    let mut p = pool.pop().unwrap_or_default();
    p.reset(expected);
    p
}

/// Expands this rank's buckets `round` of layer `k` (a collective call):
/// names their children in `named` (this rank's next-layer buckets) or
/// sends them to their buckets' owners to be named there, and gives every
/// move its child's id. `pool` keeps the tables of other ranks' buckets
/// from round to round.
#[allow(clippy::too_many_arguments)]
fn expand_round<G: Bucketed + ?Sized>(
    game: &G,
    scheme: &BucketScheme,
    ex: &Counted<'_>,
    buckets: &mut HashMap<u32, Owned>,
    named: &mut HashMap<u32, Probe>,
    pool: &mut Vec<Probe>,
    round: &[u32],
    k: usize,
) -> Result<(), SolveError> {
    let ranks = ex.size();
    let me = ex.rank();
    let classes = scheme.classes();
    // The round's children, bucket after bucket, class after class, and
    // for each next-layer bucket the moves that lead there: the bucket
    // they leave, where its children start, the range of its ids.
    let mut children = Vec::new();
    let mut visits: HashMap<u32, Vec<(u32, usize, Range<usize>)>> = HashMap::default();
    for &b in round {
        let o = buckets
            .get_mut(&b)
            .ok_or(SolveError::MissingState { state: 0 })?;
        let at = class_starts(&o.moves, classes);
        let base = children.len();
        children.resize(base + at[classes], 0);
        o.kinds = expand(game, &o.keys, &at, &mut children[base..])?;
        o.ids = vec![0; at[classes]];
        for c in 0..classes {
            if at[c] == at[c + 1] {
                continue;
            }
            let t = target(scheme, b, c, k, children[base + at[c]])?;
            visits
                .entry(t)
                .or_default()
                .push((b, base, at[c]..at[c + 1]));
        }
    }
    // Named one next-layer bucket at a time, so that its table stays in
    // cache while its children go in.
    let mut outbound: Vec<Outbound> = Vec::new();
    for (t, moves) in visits {
        // British Square's states have about 5 parents each.
        let expected = moves.iter().map(|m| m.2.len()).sum::<usize>() / 4 + 1;
        let mine = bucket_owner(t, ranks) == me;
        let mut out = Outbound {
            bucket: t,
            probe: if mine {
                named.remove(&t).unwrap_or_else(|| new_probe(expected))
            } else {
                probe_for(pool, expected)
            },
            moves: Vec::new(),
        };
        for (b, base, range) in moves {
            let o = buckets
                .get_mut(&b)
                .ok_or(SolveError::MissingState { state: 0 })?;
            let run = &children[base + range.start..base + range.end];
            out.probe.insert_all(run, &mut o.ids[range.clone()]);
            if out.probe.keys.len() > MAX_BUCKET {
                return Err(too_large(run[0]));
            }
            out.moves.push((b, range));
        }
        if mine {
            named.insert(t, out.probe);
        } else {
            outbound.push(out);
        }
    }
    drop(children);
    // The distinct children for each bucket of another rank, to its owner.
    let mut outgoing = vec![Vec::new(); ranks];
    let mut order: Vec<Vec<usize>> = vec![Vec::new(); ranks];
    for (i, out) in outbound.iter().enumerate() {
        let r = bucket_owner(out.bucket, ranks);
        outgoing[r].push(u64::from(out.bucket));
        outgoing[r].push(out.probe.keys.len() as u64);
        outgoing[r].extend_from_slice(&out.probe.keys);
        order[r].push(i);
    }
    // Named here, answered with their ids.
    let mut replies = vec![Vec::new(); ranks];
    let mut ids = Vec::new();
    for (r, message) in ex.all_to_all(outgoing)?.into_iter().enumerate() {
        let mut rest = &message[..];
        while let [t, n, tail @ ..] = rest {
            let n = usize::try_from(*n).unwrap_or(usize::MAX);
            let (keys, after) = tail
                .split_at_checked(n)
                .ok_or_else(|| garbled("a bucket's children are cut short"))?;
            let t = u32::try_from(*t)
                .ok()
                .filter(|&t| bucket_owner(t, ranks) == me)
                .ok_or_else(|| garbled("children sent for a bucket of another rank"))?;
            let probe = named.entry(t).or_insert_with(|| new_probe(n));
            ids.clear();
            ids.resize(n, 0);
            probe.insert_all(keys, &mut ids);
            if probe.keys.len() > MAX_BUCKET {
                return Err(too_large(keys.first().copied().unwrap_or(0)));
            }
            replies[r].push(u64::from(t));
            replies[r].push(n as u64);
            pack16(&mut replies[r], ids.iter().copied());
            rest = after;
        }
    }
    // Every move to another rank's bucket: from the id of its child here
    // to the id there.
    for (r, message) in ex.all_to_all(replies)?.into_iter().enumerate() {
        let mut rest = &message[..];
        for &i in &order[r] {
            let [answered, n, tail @ ..] = rest else {
                return Err(garbled("a rank answered fewer buckets than it was sent"));
            };
            let out = &outbound[i];
            if *answered != u64::from(out.bucket) || *n != out.probe.keys.len() as u64 {
                return Err(garbled("a rank answered another bucket than it was sent"));
            }
            let (there, after) = unpack16(tail, out.probe.keys.len())?;
            for (b, range) in &out.moves {
                let o = buckets
                    .get_mut(b)
                    .ok_or(SolveError::MissingState { state: 0 })?;
                for id in &mut o.ids[range.clone()] {
                    *id = there[usize::from(*id)];
                }
            }
            rest = after;
        }
    }
    pool.extend(outbound.into_iter().map(|out| out.probe));
    Ok(())
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
    let classes = scheme.classes();
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
        // This rank's buckets of layer k in groups whose other ranks'
        // targets hold at most FETCH_STATES states (a bucket alone may
        // need more).
        let mut groups: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
        let mut group: (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
        let mut states = 0usize;
        for &b in &by_layer[k] {
            let kinds = &buckets[&b].kinds;
            let remote = (0..classes)
                .filter(|&c| matches!(kinds.get(c), Some(Some(_))))
                .map(|c| scheme.next(b, c))
                .filter(|&t| bucket_owner(t, ranks) != me);
            let mut more = Vec::new();
            for t in remote {
                if !group.1.contains(&t) && !more.contains(&t) {
                    more.push(t);
                }
            }
            let weight: usize = more
                .iter()
                .map(|t| sizes.get(t).copied().unwrap_or(0))
                .sum();
            if !group.0.is_empty() && states + weight > FETCH_STATES {
                groups.push(std::mem::take(&mut group));
                states = 0;
            }
            states += weight;
            group.1.extend(more);
            group.0.push(b);
        }
        if !group.0.is_empty() {
            groups.push(group);
        }
        let rounds = ex.all_gather(vec![groups.len() as u64])?;
        let rounds = rounds.into_iter().max().unwrap_or(0) as usize;
        for r in 0..rounds {
            let (mine, wanted) = groups
                .get(r)
                .map_or((&[][..], &[][..]), |g| (&g.0[..], &g.1[..]));
            let fetched = fetch(ex, buckets, wanted)?;
            for &b in mine {
                let o = &buckets[&b];
                let at = class_starts(&o.moves, classes);
                let values = score_states(
                    game,
                    &o.keys,
                    &o.same,
                    |c| {
                        let Some(&Some(kind)) = o.kinds.get(c) else {
                            return Ok(None);
                        };
                        let t = scheme.next(b, c);
                        let target = match buckets.get(&t) {
                            Some(own) => &own.values,
                            None => fetched.get(&t).ok_or(SolveError::MissingState {
                                state: o.keys.first().copied().unwrap_or(0),
                            })?,
                        };
                        Ok(Some(ClassEdges {
                            ids: &o.ids[at[c]..at[c + 1]],
                            target,
                            kind,
                        }))
                    },
                    classes,
                    k,
                    layout,
                )?;
                if let Some(o) = buckets.get_mut(&b) {
                    o.values = values;
                    o.ids = Vec::new();
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

/// Asks the owners of the buckets `wanted` for their values and answers
/// every other rank's asks from `buckets` (a collective call). A bucket's
/// values go as its palette and a byte a state, or as two bytes a state
/// when they do not fit a palette.
fn fetch(
    ex: &Counted<'_>,
    buckets: &HashMap<u32, Owned>,
    wanted: &[u32],
) -> Result<HashMap<u32, Values>, SolveError> {
    let ranks = ex.size();
    let mut asks = vec![Vec::new(); ranks];
    for &t in wanted {
        asks[bucket_owner(t, ranks)].push(u64::from(t));
    }
    let asked = ex.all_to_all(asks)?;
    let mut replies = vec![Vec::new(); ranks];
    for (r, ts) in asked.iter().enumerate() {
        for &t in ts {
            let v = u32::try_from(t)
                .ok()
                .and_then(|t| buckets.get(&t))
                .map(|o| &o.values)
                .ok_or_else(|| {
                    garbled(&format!("bucket {t} asked of a rank that does not hold it"))
                })?;
            let out = &mut replies[r];
            out.push(t);
            out.push(v.len() as u64);
            out.push(v.palette.len() as u64);
            if v.plain.is_empty() {
                pack16(out, v.palette.iter().map(|c| c.0));
                out.extend(v.codes.chunks(8).map(|c| {
                    c.iter()
                        .rev()
                        .fold(0u64, |w, &code| w << 8 | u64::from(code))
                }));
            } else {
                pack16(out, v.plain.iter().map(|c| c.0));
            }
        }
    }
    let mut fetched = HashMap::default();
    for message in ex.all_to_all(replies)? {
        let mut rest = &message[..];
        while let [t, n, p, tail @ ..] = rest {
            let n = usize::try_from(*n).unwrap_or(usize::MAX);
            let p = usize::try_from(*p).unwrap_or(usize::MAX);
            let values = if p == 0 && n > 0 {
                let (plain, after) = unpack16(tail, n)?;
                rest = after;
                Values {
                    plain: plain.into_iter().map(Cell).collect(),
                    ..Values::default()
                }
            } else {
                let (palette, after) = unpack16(tail, p)?;
                let (words, after) = after
                    .split_at_checked(n.div_ceil(8))
                    .ok_or_else(|| garbled("a bucket's values are cut short"))?;
                rest = after;
                let mut codes: Vec<u8> = words
                    .iter()
                    .flat_map(|&w| (0..8).map(move |i| (w >> (8 * i)) as u8))
                    .collect();
                codes.truncate(n);
                if codes.iter().any(|&c| usize::from(c) >= palette.len()) {
                    return Err(garbled("a bucket's values are not in its palette"));
                }
                Values {
                    codes,
                    palette: palette.into_iter().map(Cell).collect(),
                    plain: Vec::new(),
                }
            };
            fetched.insert(*t as u32, values);
        }
    }
    Ok(fetched)
}
