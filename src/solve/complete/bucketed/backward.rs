//! The backward pass of the bucketed solver: the buckets of a layer are
//! scored in parallel, last layer first, each state's moves of a class read
//! by their children's local ids from the values of the bucket they lead
//! to, a small array ([`score_states`], which the solver on ranks shares).

use std::cell::RefCell;

use rayon::prelude::*;

use super::forward::Enumerated;
use super::values::Values;
use super::{Bucket, SameEdge, Solve};
use crate::core::layout::RecordLayout;
use crate::core::Progress;
use crate::solve::complete::backward::{best_value, through, Kind};
use crate::solve::complete::buckets::Bucketed;
use crate::solve::complete::cell::Cell;
use crate::solve::complete::error::SolveError;

thread_local! {
    /// The score step's buffers: class counts per state, and the state of
    /// each edge of a class.
    static SCORE: RefCell<(Vec<u64>, Vec<u16>)> = RefCell::default();
}

/// What the scoring of every bucket of a layer reads: the solve, and what
/// the forward pass found.
struct Scoring<'a, G: ?Sized> {
    /// The game and its scheme.
    solve: &'a Solve<'a, G>,
    /// Every bucket, those of later layers scored.
    buckets: &'a [Bucket],
    /// The buckets' keys.
    chunks: &'a [Vec<u64>],
    /// The child id of every edge, bucket by bucket.
    ids: &'a [u16],
    /// Per bucket and class: where its visit starts in its target's ids.
    visit_at: &'a [u32],
}

impl<G: Bucketed + ?Sized> Scoring<'_, G> {
    /// Scores the states of bucket `b` (layer `k`), whose children in the
    /// next layer are scored.
    fn score(&self, b: u32, k: usize) -> Result<Values, SolveError> {
        let Solve {
            game,
            ref scheme,
            classes,
            ref layout,
            ..
        } = *self.solve;
        let bucket = &self.buckets[b as usize];
        score_states(
            game,
            bucket.keys.get(self.chunks),
            &bucket.same,
            |c| {
                let Some(&Some(kind)) = bucket.kinds.get(c) else {
                    return Ok(None);
                };
                let target = &self.buckets[scheme.next(b, c) as usize];
                let at = target.ids_at + self.visit_at[b as usize * classes + c] as usize;
                Ok(Some(ClassEdges {
                    ids: self.ids.get(at..).unwrap_or(&[]),
                    target: &target.values,
                    kind,
                }))
            },
            classes,
            k,
            layout,
        )
    }
}

/// The backward pass: scores every bucket `found` holds, last layer first.
pub(super) fn score_layers<G: Bucketed + ?Sized>(
    solve: &Solve<'_, G>,
    found: &mut Enumerated,
    progress: &dyn Progress,
) -> Result<(), SolveError> {
    progress.start_phase("solve", solve.layers as u64);
    let ids: &[u16] = &bytemuck::cast_slice(&found.arena)[..found.ids_len];
    for k in (0..solve.layers).rev() {
        let scoring = Scoring {
            solve,
            buckets: &found.buckets,
            chunks: &found.chunks,
            ids,
            visit_at: &found.visit_at,
        };
        let scored: Vec<Values> = found.by_layer[k]
            .par_iter()
            .map(|&b| scoring.score(b, k))
            .collect::<Result<_, _>>()?;
        for (&b, values) in found.by_layer[k].iter().zip(scored) {
            found.buckets[b as usize].values = values;
        }
        progress.advance(1);
    }
    progress.finish_phase();
    Ok(())
}

/// The moves of one class of a bucket's states, as the backward pass
/// reads them.
pub(in crate::solve) struct ClassEdges<'a> {
    /// The child ids of the class's moves, state after state (what follows
    /// them is not read).
    pub(in crate::solve) ids: &'a [u16],
    /// The values of the bucket they lead to.
    pub(in crate::solve) target: &'a Values,
    /// What each of the moves is.
    pub(in crate::solve) kind: Kind,
}

/// Scores the states `keys` of a bucket of layer `k`, whose moves of class
/// `c` are `class(c)` (for each of the scheme's `classes`; `None` when
/// there are none, an error when they cannot be read) and whose moves within the bucket are `same`.
pub(in crate::solve) fn score_states<'a, G: Bucketed + ?Sized>(
    game: &G,
    keys: &[u64],
    same: &[SameEdge],
    class: impl Fn(usize) -> Result<Option<ClassEdges<'a>>, SolveError>,
    classes: usize,
    k: usize,
    layout: &RecordLayout,
) -> Result<Values, SolveError> {
    let n = keys.len();
    let mut best = vec![i64::MIN; n];
    SCORE.with(|scratch| {
        let (packed, parents) = &mut *scratch.borrow_mut();
        packed.clear();
        packed.extend(keys.iter().map(|&key| game.class_counts(key)));
        for c in 0..classes {
            let Some(view) = class(c)? else {
                continue;
            };
            let mut table = [i64::MIN; 256];
            for (t, &v) in table.iter_mut().zip(&view.target.palette) {
                *t = through(view.kind.0, view.kind.1, v);
            }
            // The state of each edge, without a branch per state: write 16
            // copies (no state has more than 15 edges of a class; the
            // rest are overwritten), move on by its count.
            if parents.len() < 16 * n + 16 {
                parents.resize(16 * n + 16, 0);
            }
            let out: &mut [u16] = parents;
            let shift = 4 * c;
            let mut len = 0;
            for (i, &p) in packed.iter().enumerate() {
                out[len..len + 16].copy_from_slice(&[i as u16; 16]);
                len += (p >> shift & 15) as usize;
            }
            if view.ids.len() < len {
                return Err(SolveError::BucketContract {
                    state: keys.first().copied().unwrap_or(0),
                    reason: "its bucket's moves of a class are not its class counts",
                });
            }
            let coded = view.target.plain.is_empty();
            // The best edge of each state, in one pass without branches:
            // the edges of a state are in a row, so a running maximum that
            // starts from the state's best of the classes before, stored
            // after every edge, leaves its best in `best` (the expansion
            // checked the counts, so every state index is in range).
            let mut running = i64::MIN;
            let mut prev = u16::MAX;
            for (&parent, &id) in parents[..len].iter().zip(view.ids) {
                let v = if coded {
                    table[usize::from(view.target.codes[usize::from(id)])]
                } else {
                    through(view.kind.0, view.kind.1, view.target.get(id))
                };
                let slot = &mut best[usize::from(parent)];
                let base = if parent == prev { running } else { *slot };
                running = base.max(v);
                prev = parent;
                *slot = running;
            }
        }
        Ok(())
    })?;
    let mut cells = vec![Cell::UNSET; n];
    let mut waits = vec![false; n];
    for e in same {
        waits[usize::from(e.parent)] = true;
    }
    for ((cell, &best), &wait) in cells.iter_mut().zip(&best).zip(&waits) {
        if !wait {
            *cell = Cell::new(best_value(best), layout)?;
        }
    }
    // The parents of moves within the bucket, in rounds: each scores those
    // whose children are all scored.
    let mut pending: Vec<&[SameEdge]> = same.chunk_by(|a, b| a.parent == b.parent).collect();
    while !pending.is_empty() {
        let mut still = Vec::new();
        for &edges in &pending {
            let parent = usize::from(edges[0].parent);
            let mut b = best[parent];
            let mut ready = true;
            for e in edges {
                let child = cells[usize::from(e.child)];
                if child == Cell::UNSET {
                    ready = false;
                    break;
                }
                b = b.max(through(e.kind.0, e.kind.1, child));
            }
            if ready {
                cells[parent] = Cell::new(best_value(b), layout)?;
            } else {
                still.push(edges);
            }
        }
        if still.len() == pending.len() {
            return Err(SolveError::SameLayerCycle { layer: k });
        }
        pending = still;
    }
    Ok(Values::new(cells))
}
