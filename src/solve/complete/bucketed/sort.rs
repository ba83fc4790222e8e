//! The last phase: every state packed with its value into a record, the
//! records sorted.

use rayon::prelude::*;

use super::forward::Enumerated;
use super::{Bucket, Solve};
use crate::core::layout::RecordLayout;
use crate::core::platform::advise_huge_pages;
use crate::core::Progress;
use crate::solve::complete::error::SolveError;

/// The records of every state `found` holds, scored, sorted (their array
/// the id arena's memory); the number of states of each layer.
pub(super) fn sort<G: ?Sized>(
    solve: &Solve<'_, G>,
    found: Enumerated,
    progress: &dyn Progress,
) -> Result<(Vec<u64>, Vec<usize>), SolveError> {
    progress.start_phase("sort", 1);
    let Enumerated {
        buckets,
        chunks,
        by_layer,
        arena,
        ..
    } = found;
    let layer_sizes: Vec<usize> = by_layer
        .iter()
        .map(|bs| bs.iter().map(|&b| buckets[b as usize].keys.len()).sum())
        .collect();
    let total = layer_sizes.iter().sum();
    let order: Vec<u32> = by_layer.into_iter().flatten().collect();
    let records = pack_sorted(
        buckets,
        chunks,
        &order,
        arena,
        total,
        &solve.layout,
        solve.key_bits,
    )?;
    progress.advance(1);
    progress.finish_phase();
    Ok((records, layer_sizes))
}

/// Packs every state with its value into a record and sorts the records
/// into `records` (whose old contents are overwritten): scattered by their
/// top 16 key bits into place, then each group sorted alone by a radix sort (the
/// groups are uneven, up to a tenth of the records: canonical keys crowd
/// their top bits).
fn pack_sorted(
    buckets: Vec<Bucket>,
    chunks: Vec<Vec<u64>>,
    order: &[u32],
    mut records: Vec<u64>,
    total: usize,
    layout: &RecordLayout,
    key_bits: u32,
) -> Result<Vec<u64>, SolveError> {
    const TOP: u32 = 16;
    let shift = key_bits.saturating_sub(TOP);
    let groups = 1usize << key_bits.min(TOP);
    let mut at = vec![0usize; groups + 1];
    for &b in order {
        for &key in buckets[b as usize].keys.get(&chunks) {
            at[(key >> shift) as usize + 1] += 1;
        }
    }
    for g in 0..groups {
        at[g + 1] += at[g];
    }
    // Every slot is written below: what `records` held does not matter.
    if total > records.capacity() {
        records.reserve_exact(total - records.len());
        advise_huge_pages(&records);
    }
    records.resize(total, 0);
    let mut next = at.clone();
    for &b in order {
        let bucket = &buckets[b as usize];
        for (id, &key) in bucket.keys.get(&chunks).iter().enumerate() {
            let slot = &mut next[(key >> shift) as usize];
            records[*slot] = layout.pack(key, bucket.values.get(id as u16).value())?;
            *slot += 1;
        }
    }
    drop(buckets);
    drop(chunks);
    let mut parts = Vec::with_capacity(groups);
    let mut rest: &mut [u64] = &mut records;
    for g in 0..groups {
        let (head, tail) = rest.split_at_mut(at[g + 1] - at[g]);
        parts.push(head);
        rest = tail;
    }
    // Sorted, each group's keys must be distinct: a state named in two
    // buckets (a game breaking its bucket contract) is caught here, where
    // the group is in cache.
    let repeated = parts
        .into_par_iter()
        .map_init(Vec::new, |scratch, p| {
            crate::solve::complete::radix::sort_in_place(p, scratch);
            p.windows(2)
                .find(|w| layout.key(w[0]) == layout.key(w[1]))
                .map(|w| layout.key(w[0]))
        })
        .find_any(Option::is_some)
        .flatten();
    if let Some(state) = repeated {
        return Err(SolveError::BucketContract {
            state,
            reason: "it was named in two buckets",
        });
    }
    Ok(records)
}
