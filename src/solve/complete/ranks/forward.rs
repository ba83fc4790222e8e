//! The forward step on ranks: each rank's states of every layer, its
//! parents' children sent to their owners round by round.

use super::{human_bytes, owner, Counted, Exchange, KeySet};
use crate::core::{Game, Progress};
use crate::solve::complete::error::SolveError;
use crate::solve::complete::forward;

/// The forward pass: this rank's states of every layer, each layer sorted,
/// and the bytes all ranks sent while expanding each layer.
pub(super) fn enumerate<G: Game + ?Sized>(
    game: &G,
    ex: &Counted<'_>,
    start: u64,
    progress: &dyn Progress,
) -> Result<(Vec<Vec<u64>>, Vec<u64>), SolveError> {
    let k_count = game.layer_count();
    let key_bits = game.descriptor().key_bits;
    let ranks = ex.size();
    let me = ex.rank();
    let mut sets: Vec<KeySet> = (0..k_count).map(|_| KeySet::default()).collect();
    let first = forward::child_layer(game, key_bits, 0, start)?;
    if owner(start, ranks) == me {
        sets[first].insert(start);
    }
    let mut layers = Vec::with_capacity(k_count);
    let mut bytes = Vec::with_capacity(k_count);
    let mut children = Vec::new();
    progress.start_phase("forward", k_count as u64);
    for k in 0..k_count {
        // The layer's parents known now; same-layer children found while
        // expanding them are expanded in the next pass.
        let mut frontier: Vec<u64> = sets[k].iter().copied().collect();
        frontier.sort_unstable();
        loop {
            let mut found = Vec::new();
            super::for_rounds(ex, &frontier, |parents| {
                let mut outgoing = vec![Vec::new(); ranks];
                for &s in parents {
                    children.clear();
                    game.canonical_children(s, &mut children);
                    for e in &children {
                        forward::child_layer(game, key_bits, k, e.child)?;
                        outgoing[owner(e.child, ranks)].push(e.child);
                    }
                }
                for key in ex.all_to_all(outgoing)?.into_iter().flatten() {
                    let j = forward::child_layer(game, key_bits, k, key)?;
                    if sets[j].insert(key) && j == k {
                        found.push(key);
                    }
                }
                Ok(())
            })?;
            if ex.sum(found.len() as u64)? == 0 {
                break;
            }
            found.sort_unstable();
            frontier = found;
        }
        let mut layer: Vec<u64> = std::mem::take(&mut sets[k]).into_iter().collect();
        layer.sort_unstable();
        layers.push(layer);
        let total = ex.total()?;
        bytes.push(total - bytes.iter().sum::<u64>());
        progress.status(&format!("{} exchanged", human_bytes(total)));
        progress.advance(1);
    }
    progress.finish_phase();
    Ok((layers, bytes))
}
