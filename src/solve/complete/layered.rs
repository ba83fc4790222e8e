//! The layered retrograde solver's entry point and its last step, the
//! sorted records (the other steps are in the sibling modules; the parent
//! module describes them).

use super::error::{overflow, SolveError};
use super::{backward, forward, radix, table};
use crate::core::layout::{LayoutOverflow, RecordLayout};
use crate::core::platform::advise_huge_pages;
use crate::core::{Game, Progress, Solution, Value};

/// Every state with its value packed into a record (checked against the
/// layout), the records sorted: the last step of the layered solver and of
/// the book builder. `count` is the number of pairs.
pub(crate) fn sorted_records(
    pairs: impl Iterator<Item = (u64, Value)>,
    count: usize,
    layout: &RecordLayout,
    progress: &dyn Progress,
) -> Result<Vec<u64>, LayoutOverflow> {
    progress.start_phase("sort", 1);
    let mut records = Vec::with_capacity(count);
    advise_huge_pages(&records);
    for (key, value) in pairs {
        records.push(layout.pack(key, value)?);
    }
    radix::sort(&mut records, layout.key_shift);
    progress.advance(1);
    progress.finish_phase();
    Ok(records)
}

/// Solves a game completely.
pub fn solve<G: Game + ?Sized>(game: &G, progress: &dyn Progress) -> Result<Solution, SolveError> {
    let layout = RecordLayout::for_game(game.descriptor());
    // Records must fit a `u64`, and keys the state tables.
    if !layout.is_well_formed() {
        return Err(overflow(Value::TERMINAL, &layout));
    }
    let key_bits = game.descriptor().key_bits;
    if key_bits > table::MAX_KEY_BITS {
        return Err(SolveError::KeyBits { bits: key_bits });
    }
    let start = game.canonical(game.start());
    let forward::Enumerated { keys, mut edges } = forward::enumerate(game, start, progress)?;
    let layer_sizes: Vec<usize> = keys.iter().map(Vec::len).collect();
    let values = backward::score(&layer_sizes, &mut edges, &layout, progress)?;
    drop(edges);
    let pairs = keys.iter().zip(&values).flat_map(|(keys, values)| {
        keys.iter()
            .enumerate()
            .map(|(id, &key)| (key, values.get(id as u32).value()))
    });
    let records = sorted_records(pairs, layer_sizes.iter().sum(), &layout, progress)?;
    Ok(Solution {
        records,
        layout,
        start,
        layer_sizes,
        complete: true,
    })
}
