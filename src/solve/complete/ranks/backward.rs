//! The backward step on ranks: each rank's states scored, last layer
//! first, their children's values asked of the children's owners.

use super::{for_rounds, human_bytes, owner, Counted, Exchange};
use crate::core::layout::RecordLayout;
use crate::core::{Edge, Game, Progress};
use crate::solve::complete::backward;
use crate::solve::complete::cell::Cell;
use crate::solve::complete::error::SolveError;
use crate::solve::complete::index::SortedIndex;

/// A value in a reply: the packed [`Cell`], or this for "not scored yet".
const PENDING: u64 = u64::MAX;

/// The value of `key` (a state this rank owns, in layer `j >= k`), packed
/// for a reply: [`PENDING`] when it is in layer `k` and not scored yet.
fn packed_value(
    indices: &[SortedIndex<'_>],
    values: &[Vec<Cell>],
    j: usize,
    key: u64,
) -> Option<u64> {
    let i = indices.get(j)?.find(key)?;
    let cell = values[j][i];
    Some(if cell == Cell::UNSET {
        PENDING
    } else {
        u64::from(cell.0)
    })
}

/// What every round of the backward pass reads.
struct Scoring<'a, G: ?Sized> {
    /// The game.
    game: &'a G,
    /// The ranks, counting the bytes this rank sends.
    ex: &'a Counted<'a>,
    /// This rank's states of every layer, each layer sorted.
    layers: &'a [Vec<u64>],
    /// An index of each layer.
    indices: &'a [SortedIndex<'a>],
    /// The records' layout, which every value must fit.
    layout: &'a RecordLayout,
}

/// The backward pass: the values of this rank's states, by layer, and the
/// bytes all ranks sent while scoring each layer.
pub(super) fn score<G: Game + ?Sized>(
    game: &G,
    ex: &Counted<'_>,
    layers: &[Vec<u64>],
    layout: &RecordLayout,
    progress: &dyn Progress,
) -> Result<(Vec<Vec<Cell>>, Vec<u64>), SolveError> {
    let before = ex.total()?;
    let mut bytes = vec![0u64; layers.len()];
    let mut values: Vec<Vec<Cell>> = layers.iter().map(|l| vec![Cell::UNSET; l.len()]).collect();
    let indices: Vec<SortedIndex<'_>> = layers.iter().map(|l| SortedIndex::new(l)).collect();
    let scoring = Scoring {
        game,
        ex,
        layers,
        indices: &indices,
        layout,
    };
    let mut edges: Vec<Edge> = Vec::new();
    progress.start_phase("backward", layers.len() as u64);
    for k in (0..layers.len()).rev() {
        // Indices (in layer k) of the states not scored yet.
        let mut waiting: Vec<usize> = (0..layers[k].len()).collect();
        loop {
            let mut still = Vec::new();
            for_rounds(ex, &waiting, |ids| {
                score_round(&scoring, &mut values, k, ids, &mut still, &mut edges)
            })?;
            let left = ex.sum(still.len() as u64)?;
            if left == 0 {
                break;
            }
            if left == ex.sum(waiting.len() as u64)? {
                return Err(SolveError::SameLayerCycle { layer: k });
            }
            waiting = still;
        }
        let total = ex.total()?;
        bytes[k] = total - before - bytes.iter().sum::<u64>();
        progress.status(&format!("{} exchanged", human_bytes(total)));
        progress.advance(1);
    }
    progress.finish_phase();
    Ok((values, bytes))
}

/// One round of layer `k` (a collective call): each state `ids` names (by
/// its index in the layer) asks its children's owners for their values,
/// and gets its own in `values` if they are all scored; the others go to
/// `still`. `edges` is a buffer.
fn score_round<G: Game + ?Sized>(
    scoring: &Scoring<'_, G>,
    values: &mut [Vec<Cell>],
    k: usize,
    ids: &[usize],
    still: &mut Vec<usize>,
    edges: &mut Vec<Edge>,
) -> Result<(), SolveError> {
    let Scoring {
        game,
        ex,
        layers,
        indices,
        layout,
    } = *scoring;
    let ranks = ex.size();
    // Ask each child's owner for its value, in a known order.
    let mut outgoing = vec![Vec::new(); ranks];
    let mut asked: Vec<(usize, usize)> = Vec::new(); // (rank, index in its list)
    let mut kinds: Vec<(i8, bool)> = Vec::new();
    let mut per_parent: Vec<usize> = Vec::with_capacity(ids.len());
    for &i in ids {
        edges.clear();
        game.canonical_children(layers[k][i], edges);
        per_parent.push(edges.len());
        for e in edges.iter() {
            let r = owner(e.child, ranks);
            asked.push((r, outgoing[r].len()));
            outgoing[r].push(e.child);
            kinds.push((e.reward, e.again));
        }
    }
    let questions = ex.all_to_all(outgoing)?;
    let answers = questions
        .iter()
        .map(|keys| {
            keys.iter()
                .map(|&key| {
                    let j = game.layer(key);
                    packed_value(indices, values, j, key)
                        .ok_or(SolveError::MissingState { state: key })
                })
                .collect::<Result<Vec<u64>, SolveError>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    let replies = ex.all_to_all(answers)?;
    let mut e = 0;
    for (&i, &n) in ids.iter().zip(&per_parent) {
        let mut best = i64::MIN;
        let mut ready = true;
        for _ in 0..n {
            let (r, at) = asked[e];
            let (reward, again) = kinds[e];
            e += 1;
            match replies[r][at] {
                PENDING => ready = false,
                v => {
                    let cell = Cell(v as u16);
                    best = best.max(backward::through(reward, again, cell));
                }
            }
        }
        if ready {
            values[k][i] = Cell::new(backward::best_value(best), layout)?;
        } else {
            still.push(i);
        }
    }
    Ok(())
}
