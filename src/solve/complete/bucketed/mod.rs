//! The bucketed solver: the layered retrograde solver of [`super::solve`]
//! for games whose states split into small buckets ([`Bucketed`]), working
//! one bucket at a time so that the tables it probes stay in cache.
//!
//! Layer `k + 1` is built from layer `k` in two parallel steps:
//!
//! 1. *expand*, per bucket of layer `k`: generate the canonical children of
//!    its states, class by class ([`Bucketed::class_children`] into a
//!    [`ClassSink`](super::buckets::ClassSink)); the children of one class
//!    all lie in one bucket of layer `k + 1`. Where they go is known from
//!    each bucket's moves per class, summed when its states were named; each
//!    state's number of children of each class is recomputed by the
//!    backward pass, not stored.
//! 2. *name*, per bucket of layer `k + 1`: insert the children of every
//!    (bucket, class) that leads there into one small hash table, which gives
//!    each distinct state its local id (its index in the bucket) and each
//!    edge its child's id; close the bucket under its same-bucket moves
//!    (forced passes), and sum the bucket's moves of each class.
//!
//! The game's side of the contract ([`Bucketed`]) is checked state by
//! state in debug builds, which the test suite runs: each state's bucket
//! and layer, and each state's children of each class against its class
//! counts. Release builds check what costs nothing per state: every
//! class's run of children filled exactly, no state named in two buckets
//! (a repeated key when the records are sorted), keys within their width.
//! Either way `query verify` re-derives every value of the file.
//!
//! The backward pass scores the buckets of a layer in parallel, last layer
//! first, reading each child's value by local id from its bucket's values,
//! a small array. The records are then packed and sorted; they are
//! identical to the plain solver's records (a test checks).
//!
//! The phases are modules: `forward` (expand, and `name` with its hash
//! table, `probe`), `backward` (with the values of a bucket, `values`) and
//! `sort`; `arena` holds the large buffers they share.

mod arena;
mod backward;
mod forward;
mod name;
mod probe;
mod sort;
#[cfg(test)]
mod tests;
mod values;

pub(super) use backward::{score_states, ClassEdges};
pub(super) use forward::expand;
pub(super) use name::close;
pub(super) use probe::Probe;
pub(super) use values::Values;

use super::backward::Kind;
use super::buckets::{BucketScheme, Bucketed, MAX_CLASSES};
use super::error::{overflow, SolveError};
use crate::core::layout::RecordLayout;
use crate::core::{Progress, Solution, Value};

/// The most states a bucket may hold: local ids are `u16`.
pub(super) const MAX_BUCKET: usize = 1 << 16;

/// A move within a bucket.
#[derive(Clone, Copy)]
pub(super) struct SameEdge {
    /// The parent's local id.
    parent: u16,
    /// The child's local id.
    child: u16,
    /// What the move is.
    kind: Kind,
}

/// One bucket's states and edges.
#[derive(Default)]
struct Bucket {
    /// The states, by local id: where they are in the solve's key chunks.
    keys: KeysAt,
    /// Where the child ids of the edges into this bucket start in the
    /// solve's id arena: visit after visit (a visit: the edges of one class
    /// from one bucket of the layer before).
    ids_at: usize,
    /// The moves within the bucket, grouped by parent.
    same: Vec<SameEdge>,
    /// Per class: the kind of its edges, `None` when there are none.
    kinds: Vec<Option<Kind>>,
    /// Per class: its moves from all the bucket's states (the sum of their
    /// [`Bucketed::class_counts`]), found when the states were named.
    moves: [usize; MAX_CLASSES],
    /// The values, once scored.
    values: Values,
}

/// Where a bucket's states are: a range of one of the key chunks.
#[derive(Default, Clone)]
struct KeysAt {
    chunk: usize,
    range: std::ops::Range<usize>,
}

impl KeysAt {
    /// The states, in `chunks`.
    fn get<'a>(&self, chunks: &'a [Vec<u64>]) -> &'a [u64] {
        chunks
            .get(self.chunk)
            .and_then(|c| c.get(self.range.clone()))
            .unwrap_or(&[])
    }

    fn len(&self) -> usize {
        self.range.len()
    }
}

/// What every phase of a solve reads: the game, its bucket scheme and the
/// records' layout.
struct Solve<'a, G: ?Sized> {
    /// The game.
    game: &'a G,
    /// Its buckets.
    scheme: BucketScheme,
    /// The scheme's classes of moves.
    classes: usize,
    /// The game's layers.
    layers: usize,
    /// The width of its keys.
    key_bits: u32,
    /// The records' layout.
    layout: RecordLayout,
}

/// Solves a bucketed game completely. The records are those
/// [`super::solve`] gives.
pub fn solve<G: Bucketed + ?Sized>(
    game: &G,
    progress: &dyn Progress,
) -> Result<Solution, SolveError> {
    let layout = RecordLayout::for_game(game.descriptor());
    if !layout.is_well_formed() {
        return Err(overflow(Value::TERMINAL, &layout));
    }
    let scheme = game.bucket_scheme();
    let solve = Solve {
        game,
        classes: scheme.classes(),
        scheme,
        layers: game.layer_count(),
        key_bits: game.descriptor().key_bits,
        layout,
    };
    let mut found = forward::enumerate(&solve, progress)?;
    backward::score_layers(&solve, &mut found, progress)?;
    let start = found.start;
    let (records, layer_sizes) = sort::sort(&solve, found, progress)?;
    Ok(Solution {
        records,
        layout,
        start,
        layer_sizes,
        complete: true,
    })
}
