//! The last step on ranks: every record sent to the rank of its range of
//! keys, and what every rank knows of the whole.

use super::{Counted, Exchange, RankSolution};
use crate::core::layout::RecordLayout;
use crate::solve::complete::error::SolveError;

/// Records sent to each rank per round when they go to the rank of their
/// key range.
const RECORDS_PER_ROUND: usize = 1 << 18;

/// The end of a solve on ranks: this rank's `records` (packed, in any
/// order) sent to the ranks of their key ranges, and what every rank
/// knows of the whole.
pub(in crate::solve) fn finish(
    ex: &Counted<'_>,
    records: Vec<u64>,
    layout: RecordLayout,
    start: u64,
    layer_sizes: Vec<usize>,
    [forward_bytes, backward_bytes]: [Vec<u64>; 2],
) -> Result<RankSolution, SolveError> {
    let records = by_range(ex, records, layout.key_shift)?;
    let counts = ex.all_gather(vec![records.len() as u64])?;
    let records_before = counts[..ex.rank()].iter().sum();
    Ok(RankSolution {
        records,
        layout,
        start,
        layer_sizes,
        records_before,
        total_records: counts.iter().sum(),
        forward_bytes,
        backward_bytes,
        total_bytes: ex.total()?,
    })
}

/// Sends every record to the rank of its range of keys and sorts each
/// rank's: rank `r` ends with the `r`-th stretch of all records in order.
fn by_range(
    ex: &dyn Exchange,
    mut records: Vec<u64>,
    key_shift: u32,
) -> Result<Vec<u64>, SolveError> {
    let ranks = ex.size();
    if ranks == 1 {
        crate::solve::complete::radix::sort(&mut records, key_shift);
        return Ok(records);
    }
    // A sample of every rank's keys, evenly spaced in its (unsorted)
    // records; the bounds are the sample's quantiles.
    const SAMPLE: usize = 1024;
    let step = records.len().div_ceil(SAMPLE).max(1);
    let sample: Vec<u64> = records
        .iter()
        .step_by(step)
        .map(|&r| r >> key_shift)
        .collect();
    let mut all = ex.all_gather(sample)?;
    all.sort_unstable();
    let bounds: Vec<u64> = (1..ranks)
        .map(|r| all.get(r * all.len() / ranks).copied().unwrap_or(u64::MAX))
        .collect();
    let mut outgoing = vec![Vec::new(); ranks];
    for r in records {
        let to = bounds.partition_point(|&b| b <= r >> key_shift);
        outgoing[to].push(r);
    }
    crate::core::platform::release_free_memory();
    // In rounds of at most RECORDS_PER_ROUND words to each rank, so that
    // the exchange's own copies stay small.
    let longest = outgoing.iter().map(Vec::len).max().unwrap_or(0);
    let rounds = ex
        .all_gather(vec![longest.div_ceil(RECORDS_PER_ROUND) as u64])?
        .into_iter()
        .max()
        .unwrap_or(0) as usize;
    let mut mine: Vec<u64> = Vec::new();
    for round in 0..rounds {
        let part = outgoing
            .iter()
            .map(|o| {
                let from = (round * RECORDS_PER_ROUND).min(o.len());
                let to = ((round + 1) * RECORDS_PER_ROUND).min(o.len());
                o[from..to].to_vec()
            })
            .collect();
        for got in ex.all_to_all(part)? {
            mine.extend_from_slice(&got);
        }
    }
    drop(outgoing);
    crate::core::platform::release_free_memory();
    crate::solve::complete::radix::sort(&mut mine, key_shift);
    Ok(mine)
}
