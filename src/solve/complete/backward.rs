//! The backward pass: the value of every state, last layer first.
//!
//! When layer `k` is scored, every later layer is, and the forward pass
//! recorded each edge's child by layer and id. So the parents of a layer are
//! scored by streaming through their edges, in parallel over the chunks the
//! forward pass made, reading each child's value from a small array: no
//! child is generated or looked up again. A parent with a same-layer child
//! (a forced pass) waits; those are scored afterwards in rounds, each scoring
//! the states whose same-layer children are all scored; a round without
//! progress means the same-layer moves form a cycle.

use rayon::prelude::*;

use super::cell::Cell;
use super::edges::LayerEdges;
use super::error::SolveError;
use crate::core::layout::RecordLayout;
use crate::core::Progress;
use crate::core::Value;

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
pub(super) fn through(reward: i8, again: bool, c: Cell) -> i64 {
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
pub(super) fn best_value(best: i64) -> Value {
    if best == i64::MIN {
        Value::TERMINAL
    } else {
        from_preference(best)
    }
}

/// Walks the edges of a layer from a given edge on: their kinds and where
/// their children are.
struct Cursor<'a> {
    edges: &'a LayerEdges,
    k: usize,
    kind: usize,
    other: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at edge `e` of `edges`, the edges of layer `k`.
    fn new(edges: &'a LayerEdges, k: usize, e: u64) -> Cursor<'a> {
        Cursor {
            edges,
            k,
            kind: edges.kinds.partition_point(|&(f, _, _)| f <= e).max(1) - 1,
            other: edges.others.partition_point(|&(f, _)| f < e),
        }
    }

    /// Edge `e` (the cursor moves forward one edge at a time): its kind,
    /// and its child's layer and id.
    #[inline(always)]
    fn edge(&mut self, e: u64) -> (i8, bool, usize, u32) {
        let kinds = &self.edges.kinds;
        if let Some(&(f, _, _)) = kinds.get(self.kind + 1) {
            if f == e {
                self.kind += 1;
            }
        }
        let (_, reward, again) = kinds[self.kind];
        let mut layer = self.k + 1;
        if let Some(&(f, j)) = self.edges.others.get(self.other) {
            if f == e {
                layer = j as usize;
                self.other += 1;
            }
        }
        (reward, again, layer, self.edges.id(e))
    }
}

/// The values of a scored layer by id: one-byte codes into a palette when
/// the layer has few distinct values (British Square has fewer than 70), so
/// that the layer before, which reads them at random, finds them in cache.
pub(super) enum Values {
    /// Codes and their palette.
    Coded(Vec<u8>, Vec<Cell>),
    /// The values themselves.
    Plain(Vec<Cell>),
}

impl Values {
    /// Codes the values when they allow it.
    fn new(cells: Vec<Cell>) -> Values {
        // Per possible cell: its code + 1, or 0.
        let mut index = vec![0u16; 1 << 16];
        let mut palette = Vec::new();
        let mut codes = Vec::with_capacity(cells.len());
        for &c in &cells {
            let slot = &mut index[usize::from(c.0)];
            if *slot == 0 {
                if palette.len() == 256 {
                    return Values::Plain(cells);
                }
                palette.push(c);
                *slot = palette.len() as u16;
            }
            codes.push((*slot - 1) as u8);
        }
        Values::Coded(codes, palette)
    }

    /// The value of `id`.
    #[inline(always)]
    pub(super) fn get(&self, id: u32) -> Cell {
        match self {
            Values::Coded(codes, palette) => palette[usize::from(codes[id as usize])],
            Values::Plain(cells) => cells[id as usize],
        }
    }
}

impl Cursor<'_> {
    /// The first edge from the cursor on that changes kind or leads
    /// elsewhere than the next layer: up to it, edges are plain.
    #[inline]
    fn next_exception(&self) -> u64 {
        let kind = self
            .edges
            .kinds
            .get(self.kind + 1)
            .map_or(u64::MAX, |k| k.0);
        let other = self.edges.others.get(self.other).map_or(u64::MAX, |o| o.0);
        kind.min(other)
    }

    /// The kind of the plain edges ahead.
    #[inline]
    fn kind(&self) -> Kind {
        // A layer without edges has no kinds.
        self.edges
            .kinds
            .get(self.kind)
            .map_or((0, false), |&(_, reward, again)| (reward, again))
    }
}

/// The preference of a move of each kind into a child of each code, per
/// kind met so far: a plain edge then costs a code read and a table read.
struct Preferences<'a> {
    palette: &'a [Cell],
    tables: Vec<(Kind, Box<[i64; 256]>)>,
}

/// The kind of an edge: the reward of its move, and whether the mover moves
/// again.
pub(super) type Kind = (i8, bool);

impl<'a> Preferences<'a> {
    fn new(palette: &'a [Cell]) -> Preferences<'a> {
        Preferences {
            palette,
            tables: Vec::new(),
        }
    }

    /// The table of moves of kind `kind`.
    fn table(&mut self, kind: Kind) -> &[i64; 256] {
        let i = match self.tables.iter().position(|t| t.0 == kind) {
            Some(i) => i,
            None => {
                let mut t = Box::new([i64::MIN; 256]);
                for (p, &c) in t.iter_mut().zip(self.palette) {
                    *p = through(kind.0, kind.1, c);
                }
                self.tables.push((kind, t));
                self.tables.len() - 1
            }
        };
        &self.tables[i].1
    }
}

/// A parent with a same-layer child, waiting for it to be scored.
struct Waiting {
    id: u32,
    first_edge: u64,
}

/// What the scoring of one layer shares: every chunk of its parents, and
/// the parents that wait for same-layer children, read these.
struct Layer<'a> {
    /// The layer's number.
    k: usize,
    /// Its edges, as the forward pass recorded them.
    edges: &'a LayerEdges,
    /// The values of every later layer, layer `k + 1` first.
    later: &'a [Values],
    /// The records' layout, which every value must fit.
    layout: &'a RecordLayout,
}

/// Scores every state of layers of `sizes` states: returns per layer the
/// value of each id. `edges[k]` are freed as the layers are scored.
pub(super) fn score(
    sizes: &[usize],
    edges: &mut [LayerEdges],
    layout: &RecordLayout,
    progress: &dyn Progress,
) -> Result<Vec<Values>, SolveError> {
    let count = sizes.len();
    progress.start_phase("solve", count as u64);
    let mut values: Vec<Values> = (0..count).map(|_| Values::Plain(Vec::new())).collect();
    for k in (0..count).rev() {
        let layer_edges = std::mem::take(&mut edges[k]);
        let mut vals = vec![Cell::UNSET; sizes[k]];
        let (_, later) = values.split_at(k + 1);
        let starts = &layer_edges.starts;
        // Each chunk's share of the values.
        let mut outs = Vec::with_capacity(starts.len());
        let mut rest: &mut [Cell] = &mut vals;
        for (i, &(first, _)) in starts.iter().enumerate() {
            let end = starts.get(i + 1).map_or(sizes[k], |s| s.0 as usize);
            let (head, tail) = rest.split_at_mut(end - first as usize);
            outs.push(head);
            rest = tail;
        }
        let layer = Layer {
            k,
            edges: &layer_edges,
            later,
            layout,
        };
        let waiting: Vec<Vec<Waiting>> = starts
            .par_iter()
            .zip(outs)
            .map(|(&(first, e), out)| score_chunk(&layer, first, e, out))
            .collect::<Result<_, _>>()?;
        let waiting: Vec<Waiting> = waiting.into_iter().flatten().collect();
        settle(&layer, &mut vals, waiting)?;
        values[k] = Values::new(vals);
        progress.advance(1);
    }
    progress.finish_phase();
    Ok(values)
}

/// Scores the parents `first..` of `layer` whose edges start at edge `e`,
/// writing their values to `out`; returns those with same-layer children.
fn score_chunk(
    layer: &Layer<'_>,
    first: u32,
    mut e: u64,
    out: &mut [Cell],
) -> Result<Vec<Waiting>, SolveError> {
    let Layer {
        k,
        edges,
        later,
        layout,
    } = *layer;
    let mut cursor = Cursor::new(edges, k, e);
    let mut waiting = Vec::new();
    let empty = Values::Plain(Vec::new());
    let next = later.first().unwrap_or(&empty);
    // The fast path: a parent whose edges are all plain, into a coded layer.
    let (codes, mut prefs): (&[u8], _) = match next {
        Values::Coded(codes, palette) => (codes, Some(Preferences::new(palette))),
        Values::Plain(_) => (&[], None),
    };
    let mut plain_until = cursor.next_exception();
    let mut table = match prefs.as_mut() {
        Some(p) => *p.table(cursor.kind()),
        None => [i64::MIN; 256],
    };
    for (i, out) in out.iter_mut().enumerate() {
        let id = first + i as u32;
        let n = edges.count(id) as u64;
        if prefs.is_some() && e + n <= plain_until {
            let mut best = i64::MIN;
            for e in e..e + n {
                best = best.max(table[usize::from(codes[edges.id(e) as usize])]);
            }
            *out = Cell::new(best_value(best), layout)?;
            e += n;
            continue;
        }
        let mut best = i64::MIN;
        let mut wait = false;
        for e in e..e + n {
            let (reward, again, layer, child) = cursor.edge(e);
            let cell = if layer == k + 1 {
                next.get(child)
            } else if layer == k {
                wait = true;
                continue;
            } else {
                later[layer - k - 1].get(child)
            };
            best = best.max(through(reward, again, cell));
        }
        if wait {
            waiting.push(Waiting { id, first_edge: e });
        } else {
            *out = Cell::new(best_value(best), layout)?;
        }
        e += n;
        plain_until = cursor.next_exception();
        if let Some(p) = prefs.as_mut() {
            table = *p.table(cursor.kind());
        }
    }
    Ok(waiting)
}

/// Scores the parents of `layer` that wait for same-layer children,
/// writing their values to `vals` (the layer's).
fn settle(
    layer: &Layer<'_>,
    vals: &mut [Cell],
    mut waiting: Vec<Waiting>,
) -> Result<(), SolveError> {
    let Layer {
        k,
        edges,
        later,
        layout,
    } = *layer;
    while !waiting.is_empty() {
        let before = waiting.len();
        let mut still = Vec::new();
        for w in waiting {
            let mut cursor = Cursor::new(edges, k, w.first_edge);
            let n = edges.count(w.id) as u64;
            let mut best = i64::MIN;
            let mut ready = true;
            for e in w.first_edge..w.first_edge + n {
                let (reward, again, layer, child) = cursor.edge(e);
                let cell = if layer == k {
                    vals[child as usize]
                } else {
                    later[layer - k - 1].get(child)
                };
                if cell == Cell::UNSET {
                    ready = false;
                    break;
                }
                best = best.max(through(reward, again, cell));
            }
            if ready {
                vals[w.id as usize] = Cell::new(best_value(best), layout)?;
            } else {
                still.push(w);
            }
        }
        if still.len() == before {
            return Err(SolveError::SameLayerCycle { layer: k });
        }
        waiting = still;
    }
    Ok(())
}
