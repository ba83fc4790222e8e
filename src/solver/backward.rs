//! The backward pass: the value of every state, last layer first.
//!
//! When layer `k` is scored, every later layer is, and the forward pass
//! recorded where each edge's child is. So each chunk of parents is scored by
//! reading its edges in order, in parallel over chunks, without generating any
//! child again. A layer's values are kept as one-byte codes into a small
//! palette when they allow it, so that the layer before reads each edge's
//! child as a code and the move's value from a table. A parent with a
//! same-layer child (a forced pass) waits; those are scored afterwards in
//! rounds, each scoring the states whose same-layer children are all scored;
//! a round without progress means the same-layer moves form a cycle.

use rayon::prelude::*;

use super::edges::{Chunk, Edges, Narrow};
use super::layer::Layer;
use super::{Cell, Progress, SolveError};
use crate::db::layout::RecordLayout;
use crate::value::Value;

/// Where a waiting state's child value comes from.
#[derive(Clone, Copy)]
enum Source {
    /// Known already.
    Known(Cell),
    /// The state `(partition, id)` of the same layer.
    Same(u32, u32),
}

/// A state with same-layer children, waiting for them to be scored.
struct Waiting {
    part: usize,
    id: usize,
    /// `(reward, again, child)` per edge.
    edges: Vec<(i8, bool, Source)>,
}

/// The order-preserving key of a value for the side to move: a higher key is
/// better (see [`Value::better_than`]), and equal keys are equal values, so
/// the best of several values is a branch-free maximum.
#[inline(always)]
fn preference(v: Value) -> i64 {
    let r = i64::from(v.remoteness);
    (i64::from(v.net) << 33) + if v.net < 0 { r } else { -r }
}

/// The value whose [`preference`] is `p`.
#[inline(always)]
fn from_preference(p: i64) -> Value {
    // The remoteness term lies in (-2^32, 2^32) and never reaches the next
    // net score, 2^33 away.
    let net = (p + (1 << 32)) >> 33;
    let r = p - (net << 33);
    Value {
        net: net as i32,
        remoteness: r.unsigned_abs() as u32,
    }
}

/// The preference of a move of kind `(reward, again)` to a child worth `c`.
#[inline(always)]
fn through(reward: i8, again: bool, c: Cell) -> i64 {
    let child = c.value();
    let net = i32::from(reward) + if again { child.net } else { -child.net };
    preference(Value {
        net,
        remoteness: child.remoteness + 1,
    })
}

/// The value of the best of moves with preferences folded into `best` (the
/// end of the game when there was none).
#[inline(always)]
fn best_value(best: i64) -> Value {
    if best == i64::MIN {
        Value::TERMINAL
    } else {
        from_preference(best)
    }
}

/// Scores every state; fills each layer's `values`. `edges[k]` are the
/// parents of layer `k` with their edges, as the forward pass recorded them;
/// they are freed as the layers are scored.
pub(super) fn score(
    layers: &mut [Layer],
    edges: &mut [Edges],
    layout: &RecordLayout,
    progress: &dyn Progress,
) -> Result<(), SolveError> {
    let count = layers.len();
    progress.start_phase("solve", count as u64);
    for k in (0..count).rev() {
        let (done, later) = layers.split_at_mut(k + 1);
        let layer = &mut done[k];
        let mut values: Vec<Vec<Cell>> = layer
            .parts()
            .iter()
            .map(|p| vec![Cell::UNSET; p.len()])
            .collect();
        let edges = std::mem::take(&mut edges[k]);
        let outs = chunk_outputs(&edges.chunks, &mut values);
        let later: &[Layer] = later;
        let waiting: Vec<Vec<Waiting>> = edges
            .chunks
            .par_iter()
            .zip(outs)
            .map(|(c, out)| score_chunk(k, &edges, c, out, later, layout))
            .collect::<Result<_, _>>()?;
        drop(edges);
        layer.values = values;
        settle(k, layer, waiting.into_iter().flatten().collect(), layout)?;
        layer.compress();
        progress.advance(1);
    }
    progress.finish_phase();
    Ok(())
}

/// Splits the value arrays into one slice per chunk, in chunk order.
fn chunk_outputs<'a>(chunks: &[Chunk], values: &'a mut [Vec<Cell>]) -> Vec<&'a mut [Cell]> {
    // Chunks of one partition cover disjoint id ranges; cut each partition's
    // values at them in id order.
    let mut order: Vec<usize> = (0..chunks.len()).collect();
    order.sort_unstable_by_key(|&i| (chunks[i].part, chunks[i].first));
    let mut outs: Vec<Option<&mut [Cell]>> = (0..chunks.len()).map(|_| None).collect();
    let mut rests: Vec<(usize, &mut [Cell])> = values.iter_mut().map(|v| (0, &mut v[..])).collect();
    for i in order {
        let c = &chunks[i];
        let (at, rest) = &mut rests[c.part];
        let tail = std::mem::take(rest);
        let (_, tail) = tail.split_at_mut(c.first - *at);
        let (head, tail) = tail.split_at_mut(c.len);
        outs[i] = Some(head);
        *rest = tail;
        *at = c.first + c.len;
    }
    outs.into_iter().map(Option::unwrap_or_default).collect()
}

/// Scores the parents of one chunk into `out`; returns those that wait for
/// same-layer children.
fn score_chunk(
    k: usize,
    edges: &Edges,
    c: &Chunk,
    out: &mut [Cell],
    later: &[Layer],
    layout: &RecordLayout,
) -> Result<Vec<Waiting>, SolveError> {
    let n = c.len;
    let counts = &edges.counts[c.counts..c.counts + n];
    let e: usize = counts.iter().map(|&n| usize::from(n)).sum::<usize>()
        + c.many
            .iter()
            .map(|&m| m as usize - usize::from(u8::MAX))
            .sum::<usize>();
    let (from, to) = (c.edges, c.edges + e);
    let w = Window {
        k,
        c,
        counts,
        other: edges.other,
        later,
        layout,
    };
    // One copy of the loop per width of routes and ids.
    match (&edges.routes, &edges.ids) {
        (Narrow::U8(r), Narrow::U8(i)) => score_edges(&w, &r[from..to], &i[from..to], out),
        (Narrow::U8(r), Narrow::U16(i)) => score_edges(&w, &r[from..to], &i[from..to], out),
        (Narrow::U8(r), Narrow::U32(i)) => score_edges(&w, &r[from..to], &i[from..to], out),
        (Narrow::U16(r), Narrow::U8(i)) => score_edges(&w, &r[from..to], &i[from..to], out),
        (Narrow::U16(r), Narrow::U16(i)) => score_edges(&w, &r[from..to], &i[from..to], out),
        (Narrow::U16(r), Narrow::U32(i)) => score_edges(&w, &r[from..to], &i[from..to], out),
        (Narrow::U32(r), Narrow::U8(i)) => score_edges(&w, &r[from..to], &i[from..to], out),
        (Narrow::U32(r), Narrow::U16(i)) => score_edges(&w, &r[from..to], &i[from..to], out),
        (Narrow::U32(r), Narrow::U32(i)) => score_edges(&w, &r[from..to], &i[from..to], out),
    }
}

/// What [`score_edges`] needs besides the edges.
struct Window<'a> {
    k: usize,
    c: &'a Chunk,
    counts: &'a [u8],
    other: u32,
    later: &'a [Layer],
    layout: &'a RecordLayout,
}

/// The preference of a move of a kind of the chunk (by index into the
/// chunk's distinct kinds) to a state of the next layer.
trait Prefs {
    fn pref(&self, kind: usize, part: usize, id: usize) -> i64;
}

/// For a next layer with coded values: per kind, a table by code.
struct Coded<'a> {
    codes: &'a [Vec<u8>],
    tables: Vec<[i64; 256]>,
}

impl Prefs for Coded<'_> {
    #[inline(always)]
    fn pref(&self, kind: usize, part: usize, id: usize) -> i64 {
        self.tables[kind][usize::from(self.codes[part][id])]
    }
}

/// For any next layer.
struct Plain<'a> {
    next: &'a Layer,
    kinds: &'a [(i8, bool)],
}

impl Prefs for Plain<'_> {
    #[inline(always)]
    fn pref(&self, kind: usize, part: usize, id: usize) -> i64 {
        let (reward, again) = self.kinds[kind];
        through(reward, again, self.next.value(part, id))
    }
}

fn score_edges<R: Copy + Into<u32>, I: Copy + Into<u32>>(
    w: &Window<'_>,
    routes: &[R],
    ids: &[I],
    out: &mut [Cell],
) -> Result<Vec<Waiting>, SolveError> {
    // The chunk's distinct kinds; its runs by index into them.
    let mut kinds: Vec<(i8, bool)> = Vec::new();
    let runs: Vec<(usize, u32)> =
        w.c.kinds
            .iter()
            .map(|&(r, a, n)| {
                let i = kinds.iter().position(|&k| k == (r, a)).unwrap_or_else(|| {
                    kinds.push((r, a));
                    kinds.len() - 1
                });
                (i, n)
            })
            .collect();
    match w.later.first() {
        Some(next) if !next.palette.is_empty() => {
            let tables = kinds
                .iter()
                .map(|&(reward, again)| {
                    let mut t = [i64::MIN; 256];
                    for (t, &v) in t.iter_mut().zip(&next.palette) {
                        *t = through(reward, again, v);
                    }
                    t
                })
                .collect();
            let prefs = Coded {
                codes: &next.codes,
                tables,
            };
            score_with(w, routes, ids, &runs, &kinds, &prefs, out)
        }
        next => {
            let empty = Layer::default();
            let prefs = Plain {
                next: next.unwrap_or(&empty),
                kinds: &kinds,
            };
            score_with(w, routes, ids, &runs, &kinds, &prefs, out)
        }
    }
}

/// Scores the parents of a chunk: the best preference over each parent's
/// edges, read in order; a parent with a same-layer child waits.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn score_with<R: Copy + Into<u32>, I: Copy + Into<u32>, P: Prefs>(
    w: &Window<'_>,
    routes: &[R],
    ids: &[I],
    runs: &[(usize, u32)],
    kinds: &[(i8, bool)],
    prefs: &P,
    out: &mut [Cell],
) -> Result<Vec<Waiting>, SolveError> {
    let Window {
        k,
        c,
        counts,
        other,
        later,
        layout,
    } = *w;
    let mut waiting = Vec::new();
    let (mut run, mut left) = (0, runs.first().map_or(0, |r| r.1));
    let mut others = 0;
    let mut many = c.many.iter();
    let mut e = 0;
    for (i, (slot, &count)) in out.iter_mut().zip(counts).enumerate() {
        let n = if count == u8::MAX {
            many.next().map_or(0, |&m| m as usize)
        } else {
            usize::from(count)
        };
        // Where the parent's edges start, to read them again if it waits.
        let (run0, left0, others0) = (run, left, others);
        let mut best = i64::MIN;
        let mut same = false;
        for (&r, &id) in routes[e..e + n].iter().zip(&ids[e..e + n]) {
            while left == 0 && run + 1 < runs.len() {
                run += 1;
                left = runs[run].1;
            }
            left = left.saturating_sub(1);
            let kind = runs.get(run).map_or(0, |r| r.0);
            let (r, id): (u32, u32) = (r.into(), id.into());
            if r == other {
                let (j, p, id) = c.others.get(others).copied().unwrap_or_default();
                others += 1;
                if j as usize == k {
                    same = true;
                } else {
                    let (reward, again) = kinds.get(kind).copied().unwrap_or_default();
                    let v = later[j as usize - k - 1].value(p as usize, id as usize);
                    best = best.max(through(reward, again, v));
                }
            } else {
                best = best.max(prefs.pref(kind, r as usize, id as usize));
            }
        }
        if same {
            // Rare: read the edges again, keeping where each value comes from.
            let (mut run, mut left, mut others) = (run0, left0, others0);
            let mut edges = Vec::with_capacity(n);
            for (&r, &id) in routes[e..e + n].iter().zip(&ids[e..e + n]) {
                while left == 0 && run + 1 < runs.len() {
                    run += 1;
                    left = runs[run].1;
                }
                left = left.saturating_sub(1);
                let (reward, again) = kinds
                    .get(runs.get(run).map_or(0, |r| r.0))
                    .copied()
                    .unwrap_or_default();
                let (r, id): (u32, u32) = (r.into(), id.into());
                let src = if r == other {
                    let (j, p, id) = c.others.get(others).copied().unwrap_or_default();
                    others += 1;
                    if j as usize == k {
                        Source::Same(p, id)
                    } else {
                        Source::Known(later[j as usize - k - 1].value(p as usize, id as usize))
                    }
                } else {
                    Source::Known(later[0].value(r as usize, id as usize))
                };
                edges.push((reward, again, src));
            }
            waiting.push(Waiting {
                part: c.part,
                id: c.first + i,
                edges,
            });
        } else {
            *slot = Cell::new(best_value(best), layout)?;
        }
        e += n;
    }
    Ok(waiting)
}

/// Scores the states left waiting for same-layer children, in rounds.
fn settle(
    k: usize,
    layer: &mut Layer,
    mut waiting: Vec<Waiting>,
    layout: &RecordLayout,
) -> Result<(), SolveError> {
    while !waiting.is_empty() {
        let values = &layer.values;
        let results: Vec<Option<Cell>> = waiting
            .par_iter()
            .map(|w| {
                let mut best = i64::MIN;
                for &(reward, again, src) in &w.edges {
                    let v = match src {
                        Source::Known(v) => v,
                        Source::Same(p, id) => values[p as usize][id as usize],
                    };
                    if v == Cell::UNSET {
                        return Ok(None);
                    }
                    best = best.max(through(reward, again, v));
                }
                Cell::new(best_value(best), layout).map(Some)
            })
            .collect::<Result<_, _>>()?;
        let before = waiting.len();
        let mut still = Vec::new();
        for (w, r) in waiting.into_iter().zip(results) {
            match r {
                Some(c) => layer.values[w.part][w.id] = c,
                None => still.push(w),
            }
        }
        if still.len() == before {
            return Err(SolveError::SameLayerCycle { layer: k });
        }
        waiting = still;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preference_orders_like_better_than_and_round_trips() {
        let mut vals = Vec::new();
        for net in [-100, -3, -1, 0, 1, 2, 50] {
            for remoteness in [0, 1, 7, 200, u32::MAX >> 1] {
                vals.push(Value { net, remoteness });
            }
        }
        for &a in &vals {
            assert_eq!(from_preference(preference(a)), a);
            for &b in &vals {
                assert_eq!(
                    preference(a) > preference(b),
                    a.better_than(b),
                    "{a:?} {b:?}"
                );
            }
        }
    }
}
