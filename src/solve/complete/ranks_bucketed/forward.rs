//! The forward step of the bucketed solver on ranks: each rank expands its
//! buckets of a layer round by round; the children bound for its own
//! buckets are named at once, the others sent to their buckets' owners,
//! which name them and answer with their ids.

use std::ops::Range;

use super::message::{garbled, pack16, unpack16};
use super::{bucket_owner, class_starts, new_probe, too_large, HashMap, Owned, Solve, PARENTS};
use crate::core::{Edge, Progress};
use crate::solve::bucketed::{close, expand, Probe, MAX_BUCKET};
use crate::solve::complete::buckets::{BucketScheme, Bucketed, NO_BUCKET};
use crate::solve::complete::error::SolveError;
use crate::solve::ranks::{human_bytes, Counted, Exchange};

/// The forward pass: fills `buckets` and `by_layer` (this rank's buckets of
/// each layer) from the start's; the bytes all ranks sent while expanding
/// each layer.
pub(super) fn expand_layers<G: Bucketed + ?Sized>(
    solve: &Solve<'_, G>,
    buckets: &mut HashMap<u32, Owned>,
    by_layer: &mut [Vec<u32>],
    progress: &dyn Progress,
) -> Result<Vec<u64>, SolveError> {
    let Solve { game, scheme, ex } = *solve;
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
            expand_round(solve, buckets, &mut named, &mut pool, &round, k)?;
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

/// The moves of a round's buckets that lead to one next-layer bucket: the
/// bucket they leave, where its children start in the round's children,
/// the range of its ids.
type Visits = Vec<(u32, usize, Range<usize>)>;

/// Expands this rank's buckets `round` of layer `k` (a collective call):
/// names their children in `named` (this rank's next-layer buckets) or
/// sends them to their buckets' owners to be named there, and gives every
/// move its child's id. `pool` keeps the tables of other ranks' buckets
/// from round to round.
fn expand_round<G: Bucketed + ?Sized>(
    solve: &Solve<'_, G>,
    buckets: &mut HashMap<u32, Owned>,
    named: &mut HashMap<u32, Probe>,
    pool: &mut Vec<Probe>,
    round: &[u32],
    k: usize,
) -> Result<(), SolveError> {
    let (children, visits) = expand_buckets(solve, buckets, round, k)?;
    let outbound = name_visits(solve, buckets, named, pool, &children, visits)?;
    drop(children);
    let answers = name_for_others(solve.ex, named, &outbound)?;
    take_ids(buckets, &outbound, answers)?;
    pool.extend(outbound.into_iter().map(|out| out.probe));
    Ok(())
}

/// The children of the buckets `round` of layer `k`, bucket after bucket,
/// class after class, and for each next-layer bucket the moves that lead
/// there; each bucket's kinds of moves set, and its ids made room for.
fn expand_buckets<G: Bucketed + ?Sized>(
    solve: &Solve<'_, G>,
    buckets: &mut HashMap<u32, Owned>,
    round: &[u32],
    k: usize,
) -> Result<(Vec<u64>, HashMap<u32, Visits>), SolveError> {
    let Solve { game, scheme, .. } = *solve;
    let classes = scheme.classes();
    let mut children = Vec::new();
    let mut visits: HashMap<u32, Visits> = HashMap::default();
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
    Ok((children, visits))
}

/// Names the children of `visits` one next-layer bucket at a time, so that
/// its table stays in cache while its children go in: this rank's buckets
/// in `named`, the others' in tables of their own (from `pool`), returned
/// to be sent. Every move gets the id of its child in the table it went to.
fn name_visits<G: ?Sized>(
    solve: &Solve<'_, G>,
    buckets: &mut HashMap<u32, Owned>,
    named: &mut HashMap<u32, Probe>,
    pool: &mut Vec<Probe>,
    children: &[u64],
    visits: HashMap<u32, Visits>,
) -> Result<Vec<Outbound>, SolveError> {
    let ranks = solve.ex.size();
    let me = solve.ex.rank();
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
    Ok(outbound)
}

/// What the other ranks answered for the buckets sent them.
struct Answers {
    /// Each rank's answer: per bucket sent it, the bucket, its number of
    /// children and their ids there.
    by_rank: Vec<Vec<u64>>,
    /// Per rank: the places in the outbound tables of the buckets sent it,
    /// in the order sent.
    order: Vec<Vec<usize>>,
}

/// Sends the children of `outbound` to their buckets' owners and names
/// what the other ranks sent here in `named`, answering with the ids (a
/// collective call); the answers to what this rank sent.
fn name_for_others(
    ex: &Counted<'_>,
    named: &mut HashMap<u32, Probe>,
    outbound: &[Outbound],
) -> Result<Answers, SolveError> {
    let ranks = ex.size();
    let me = ex.rank();
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
    Ok(Answers {
        by_rank: ex.all_to_all(replies)?,
        order,
    })
}

/// Every move to another rank's bucket: from the id of its child here
/// (in its `outbound` table) to the id there, from the `answers`.
fn take_ids(
    buckets: &mut HashMap<u32, Owned>,
    outbound: &[Outbound],
    answers: Answers,
) -> Result<(), SolveError> {
    let Answers { by_rank, order } = answers;
    for (r, message) in by_rank.into_iter().enumerate() {
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
