//! The layered retrograde solver.
//!
//! Every move leads to the same layer or a later one (British Square: a
//! placement adds a piece, a pass keeps the pieces). So the solver
//!
//! 1. enumerates the reachable canonical states forward, one layer at a time
//!    (each layer a sorted, deduplicated `Vec<u64>`), closing each layer under
//!    its same-layer moves before expanding it into later layers;
//! 2. scores them backward, last layer first: a state's children are already
//!    scored, except same-layer children, which are scored in a second sweep
//!    over the layer;
//! 3. packs every state with its value into a record and sorts the records.
//!
//! Both sweeps run in parallel over chunks of a layer (rayon).

use rayon::prelude::*;

use crate::db::layout::{LayoutOverflow, RecordLayout};
use crate::game::{Edge, Game};
use crate::value::Value;

/// Receives progress reports from long-running work. All methods default to
/// doing nothing.
pub trait Progress: Sync {
    /// A new phase starts, with `total` units of work.
    fn start_phase(&self, _name: &str, _total: u64) {}
    /// `n` more units of the current phase are done.
    fn advance(&self, _n: u64) {}
    /// The current phase is over.
    fn finish_phase(&self) {}
}

/// A [`Progress`] that reports nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// Why a solve failed. Each variant is a broken [`Game`] contract or a value
/// too large for the record layout, never a user error.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// A move led to an earlier layer.
    #[error("move from state {state:#x} (layer {from}) leads to an earlier layer {to}")]
    LayerOrder {
        /// The parent state.
        state: u64,
        /// The parent's layer.
        from: usize,
        /// The child's layer.
        to: usize,
    },
    /// A state's layer is out of range.
    #[error("state {state:#x} has layer {layer}, but the game has {count} layers")]
    LayerRange {
        /// The state.
        state: u64,
        /// Its layer.
        layer: usize,
        /// The number of layers.
        count: usize,
    },
    /// A key uses bits beyond the declared key width.
    #[error("state {state:#x} does not fit in {bits} key bits")]
    KeyTooWide {
        /// The state.
        state: u64,
        /// The declared key width.
        bits: u32,
    },
    /// Same-layer moves form a cycle.
    #[error("same-layer moves in layer {layer} form a cycle")]
    SameLayerCycle {
        /// The layer.
        layer: usize,
    },
    /// A value does not fit the record layout.
    #[error(transparent)]
    Overflow(#[from] LayoutOverflow),
}

/// The solved game: every reachable canonical state with its value.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The records, strictly ascending, packed with [`Solution::layout`].
    pub records: Vec<u64>,
    /// The record layout.
    pub layout: RecordLayout,
    /// The canonical start state.
    pub start: u64,
    /// The number of canonical states in each layer.
    pub layer_sizes: Vec<usize>,
}

impl Solution {
    /// The value of a canonical state, if it is reachable.
    pub fn get(&self, key: u64) -> Option<Value> {
        let first = self.layout.first_record(key);
        let i = self.records.partition_point(|&r| r < first);
        let r = *self.records.get(i)?;
        (self.layout.key(r) == key).then(|| self.layout.value(r))
    }
}

/// States per parallel work item.
const CHUNK: usize = 2048;

/// A layer's value cell: net score and remoteness, packed into 16 bits so a
/// layer's values stay cache-friendly. `UNSET` marks a state not scored yet.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Cell(u16);

impl Cell {
    const UNSET: Cell = Cell(u16::MAX);

    fn new(v: Value, layout: &RecordLayout) -> Result<Cell, SolveError> {
        // Net scores fit in an i8 and remoteness below 255 for every layout a
        // game may declare with 13 or fewer value bits; check rather than trust.
        let net = i8::try_from(v.net).map_err(|_| overflow(v, layout))?;
        let rem = u8::try_from(v.remoteness)
            .ok()
            .filter(|&r| r != u8::MAX)
            .ok_or_else(|| overflow(v, layout))?;
        Ok(Cell(u16::from(net as u8) << 8 | u16::from(rem)))
    }

    fn value(self) -> Value {
        Value {
            net: i32::from((self.0 >> 8) as u8 as i8),
            remoteness: u32::from(self.0 as u8),
        }
    }
}

fn overflow(value: Value, layout: &RecordLayout) -> SolveError {
    SolveError::Overflow(LayoutOverflow {
        value,
        layout: *layout,
    })
}

/// Solves a game completely.
pub fn solve<G: Game + ?Sized>(game: &G, progress: &dyn Progress) -> Result<Solution, SolveError> {
    let desc = game.descriptor();
    let layout = RecordLayout::for_game(desc);
    let layers = enumerate(game, progress)?;
    let values = score(game, &layers, &layout, progress)?;

    progress.start_phase("pack", layers.len() as u64);
    let total: usize = layers.iter().map(Vec::len).sum();
    let mut records = Vec::with_capacity(total);
    for (keys, vals) in layers.iter().zip(&values) {
        let start = records.len();
        records.resize(start + keys.len(), 0);
        records[start..]
            .par_chunks_mut(CHUNK)
            .zip(keys.par_chunks(CHUNK))
            .zip(vals.par_chunks(CHUNK))
            .try_for_each(|((out, ks), vs)| -> Result<(), SolveError> {
                for ((o, &k), &c) in out.iter_mut().zip(ks).zip(vs) {
                    *o = layout.pack(k, c.value())?;
                }
                Ok(())
            })?;
        progress.advance(1);
    }
    progress.finish_phase();
    progress.start_phase("sort", 1);
    records.par_sort_unstable();
    progress.advance(1);
    progress.finish_phase();

    Ok(Solution {
        records,
        layout,
        start: game.canonical(game.start()),
        layer_sizes: layers.iter().map(Vec::len).collect(),
    })
}

fn sort_dedup(v: &mut Vec<u64>) {
    v.par_sort_unstable();
    v.dedup();
}

fn check_key<G: Game + ?Sized>(game: &G, state: u64) -> Result<usize, SolveError> {
    let bits = game.descriptor().key_bits;
    if bits < 64 && state >> bits != 0 {
        return Err(SolveError::KeyTooWide { state, bits });
    }
    let layer = game.layer(state);
    let count = game.layer_count();
    if layer >= count {
        return Err(SolveError::LayerRange {
            state,
            layer,
            count,
        });
    }
    Ok(layer)
}

/// Forward pass: the sorted canonical states of every layer.
fn enumerate<G: Game + ?Sized>(
    game: &G,
    progress: &dyn Progress,
) -> Result<Vec<Vec<u64>>, SolveError> {
    let count = game.layer_count();
    progress.start_phase("enumerate", count as u64);
    let mut layers: Vec<Vec<u64>> = vec![Vec::new(); count];
    let start = game.canonical(game.start());
    layers[check_key(game, start)?].push(start);

    for k in 0..count {
        sort_dedup(&mut layers[k]);
        let mut frontier = layers[k].clone();
        while !frontier.is_empty() {
            // Expand the frontier in parallel; each chunk returns its children.
            let children: Vec<Vec<u64>> = frontier
                .par_chunks(CHUNK)
                .map(|chunk| {
                    let mut edges = Vec::with_capacity(32);
                    let mut out = Vec::with_capacity(chunk.len() * 16);
                    for &s in chunk {
                        edges.clear();
                        game.canonical_children(s, &mut edges);
                        out.extend(edges.iter().map(|e| e.child));
                    }
                    out
                })
                .collect();
            let mut same = Vec::new();
            for chunk in children {
                for c in chunk {
                    let j = check_key(game, c)?;
                    match j.cmp(&k) {
                        std::cmp::Ordering::Less => {
                            return Err(SolveError::LayerOrder {
                                state: c,
                                from: k,
                                to: j,
                            })
                        }
                        std::cmp::Ordering::Equal => same.push(c),
                        std::cmp::Ordering::Greater => layers[j].push(c),
                    }
                }
            }
            // Same-layer children not seen yet form the next frontier.
            sort_dedup(&mut same);
            let known = &layers[k];
            same.retain(|s| known.binary_search(s).is_err());
            if !same.is_empty() {
                let mut merged = Vec::with_capacity(known.len() + same.len());
                merged.extend_from_slice(known);
                merged.extend_from_slice(&same);
                merged.par_sort_unstable();
                layers[k] = merged;
            }
            frontier = same;
        }
        progress.advance(1);
    }
    progress.finish_phase();
    Ok(layers)
}

/// Looks up the value of a canonical state of a later layer.
#[inline]
fn lookup(layers: &[Vec<u64>], values: &[Vec<Cell>], layer: usize, key: u64) -> Option<Value> {
    let i = layers[layer].binary_search(&key).ok()?;
    let c = values[layer][i];
    (c != Cell::UNSET).then(|| c.value())
}

/// Best value over a state's edges, or `None` if some child is not scored.
#[inline]
fn best_of(edges: &[Edge], child_value: impl Fn(&Edge) -> Option<Value>) -> Option<Value> {
    let mut best: Option<Value> = None;
    for e in edges {
        let v = Value::through(e, child_value(e)?);
        if best.is_none_or(|b| v.better_than(b)) {
            best = Some(v);
        }
    }
    Some(best.unwrap_or(Value::TERMINAL))
}

/// Backward pass: the value of every state, layer by layer from the last.
fn score<G: Game + ?Sized>(
    game: &G,
    layers: &[Vec<u64>],
    layout: &RecordLayout,
    progress: &dyn Progress,
) -> Result<Vec<Vec<Cell>>, SolveError> {
    let count = layers.len();
    progress.start_phase("solve", count as u64);
    let mut values: Vec<Vec<Cell>> = vec![Vec::new(); count];
    for k in (0..count).rev() {
        let keys = &layers[k];
        let mut vals = vec![Cell::UNSET; keys.len()];
        // Sweep 1: states whose children all lie in later layers.
        vals.par_chunks_mut(CHUNK)
            .zip(keys.par_chunks(CHUNK))
            .try_for_each(|(vs, ks)| -> Result<(), SolveError> {
                let mut edges = Vec::with_capacity(32);
                for (v, &s) in vs.iter_mut().zip(ks) {
                    edges.clear();
                    game.canonical_children(s, &mut edges);
                    if edges.iter().any(|e| game.layer(e.child) == k) {
                        continue;
                    }
                    let best = best_of(&edges, |e| {
                        lookup(layers, &values, game.layer(e.child), e.child)
                    });
                    // Every later-layer child was enumerated and scored.
                    let best = best.expect("children of later layers are scored");
                    *v = Cell::new(best, layout)?;
                }
                Ok(())
            })?;
        // Sweep 2: states with same-layer children (forced passes), repeated
        // until every state is scored; the same-layer graph is acyclic.
        let mut pending: Vec<usize> = (0..keys.len())
            .filter(|&i| vals[i] == Cell::UNSET)
            .collect();
        let mut edges = Vec::new();
        while !pending.is_empty() {
            let before = pending.len();
            let mut still = Vec::new();
            for i in pending {
                edges.clear();
                game.canonical_children(keys[i], &mut edges);
                let best = best_of(&edges, |e| {
                    let j = game.layer(e.child);
                    if j == k {
                        let idx = keys.binary_search(&e.child).ok()?;
                        let c = vals[idx];
                        (c != Cell::UNSET).then(|| c.value())
                    } else {
                        lookup(layers, &values, j, e.child)
                    }
                });
                match best {
                    Some(b) => vals[i] = Cell::new(b, layout)?,
                    None => still.push(i),
                }
            }
            if still.len() == before {
                return Err(SolveError::SameLayerCycle { layer: k });
            }
            pending = still;
        }
        values[k] = vals;
        progress.advance(1);
    }
    progress.finish_phase();
    Ok(values)
}
