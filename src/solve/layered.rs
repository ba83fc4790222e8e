//! The layered retrograde solver's entry point and its errors (the steps
//! are in the sibling modules; the parent module describes them).

use super::{backward, forward, radix, table};
use crate::core::layout::{LayoutOverflow, RecordLayout};
use crate::core::platform::advise_huge_pages;
use crate::core::{Game, Progress, Solution, Value};

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
    /// Keys are too wide for the solver's state tables.
    #[error("keys of {bits} bits are too wide for the solver (at most 54)")]
    KeyBits {
        /// The declared key width.
        bits: u32,
    },
    /// A value does not fit the record layout.
    #[error(transparent)]
    Overflow(#[from] LayoutOverflow),
    /// A dense game's move does not set exactly one more key bit.
    #[error("move from state {state:#x} to {child:#x} does not set exactly one more key bit")]
    DenseMove {
        /// The parent state.
        state: u64,
        /// The child state.
        child: u64,
    },
    /// A dense game's state has no move although some key bit is unset.
    #[error("state {state:#x} has no move, but a dense game only ends when every key bit is set")]
    DenseEnd {
        /// The state.
        state: u64,
    },
    /// The game is too large to be solved completely.
    #[error("{reason}")]
    TooLarge {
        /// Why, and what to do instead.
        reason: String,
    },
    /// A bucketed game's state breaks its bucket scheme
    /// ([`Bucketed`](super::buckets::Bucketed)).
    #[error("state {state:#x} breaks the game's bucket scheme: {reason}")]
    BucketContract {
        /// The state.
        state: u64,
        /// What is wrong.
        reason: &'static str,
    },
    /// A child was not found among the states of the rank that owns it
    /// (the game's canonical form or layers are not deterministic).
    #[error("state {state:#x} is missing on the rank that owns it")]
    MissingState {
        /// The state.
        state: u64,
    },
    /// The ranks could not exchange their messages.
    #[error("exchange between ranks failed: {reason}")]
    Exchange {
        /// What went wrong.
        reason: String,
    },
    /// The table's blocks could not be written where they go.
    #[error("writing the table: {reason}")]
    Output {
        /// What went wrong.
        reason: String,
    },
    /// The table could not be allocated.
    #[error("cannot allocate {bytes} bytes for the table: {error}")]
    Memory {
        /// The size asked for.
        bytes: u64,
        /// The system's answer.
        error: std::io::Error,
    },
}

/// Parents per parallel work item.
pub(super) const CHUNK: usize = 2048;

/// A state's value cell: net score and remoteness, packed into 16 bits so a
/// layer's values stay cache-friendly. `UNSET` marks a state not scored yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Cell(pub(super) u16);

impl Cell {
    pub(super) const UNSET: Cell = Cell(u16::MAX);

    pub(super) fn new(v: Value, layout: &RecordLayout) -> Result<Cell, SolveError> {
        // Net scores fit in an i8 and remoteness below 255 for every layout a
        // game may declare with 13 or fewer value bits; check rather than trust.
        let net = i8::try_from(v.net).map_err(|_| overflow(v, layout))?;
        let rem = u8::try_from(v.remoteness)
            .ok()
            .filter(|&r| r != u8::MAX)
            .ok_or_else(|| overflow(v, layout))?;
        Ok(Cell(u16::from(net as u8) << 8 | u16::from(rem)))
    }

    #[inline]
    pub(super) fn value(self) -> Value {
        Value {
            net: i32::from((self.0 >> 8) as u8 as i8),
            remoteness: u32::from(self.0 as u8),
        }
    }
}

pub(super) fn overflow(value: Value, layout: &RecordLayout) -> SolveError {
    SolveError::Overflow(LayoutOverflow {
        value,
        layout: *layout,
    })
}

/// Every state with its value packed into a record (checked against the
/// layout), the records sorted: the last step of the layered solver and of
/// the book builder. `count` is the number of pairs.
pub(super) fn sorted_records(
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
