//! Why a solve fails: [`SolveError`], the error of every solver (layered,
//! bucketed, dense, over ranks).

use crate::core::layout::{LayoutOverflow, RecordLayout};
use crate::core::Value;

/// Why a solve failed. Each variant is a broken
/// [`Game`](crate::core::Game) contract or a value too large for the record
/// layout, never a user error.
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

/// The error of a value that does not fit `layout`.
pub(super) fn overflow(value: Value, layout: &RecordLayout) -> SolveError {
    SolveError::Overflow(LayoutOverflow {
        value,
        layout: *layout,
    })
}
