//! The layered solver over ranks for games with buckets ([`Bucketed`]):
//! whole buckets, not single states, belong to ranks (a hash of the
//! bucket's number), and each rank runs the one-process bucketed solver's
//! steps ([`super::bucketed`]) on its buckets.
//!
//! A bucket holds the states of one layer with the same piece counts, so
//! every move of a class leads from a known bucket to a known bucket, and a
//! forced pass stays in its bucket. Its states are numbered by local ids
//! (`u16`) in a small hash table (`bucketed::Probe`) as they arrive:
//!
//! 1. **Forward**, layer by layer: each rank expands its buckets class by
//!    class ([`Bucketed::class_children`]). The children of a class bound
//!    for a bucket of its own are named there at once. For a bucket of
//!    another rank, the round's children are gathered without repeats in a
//!    table of their own and sent to the bucket's owner, which names them
//!    and answers with their ids (2 bytes a child). Each move keeps its
//!    child's id, as in one process. When the layer is done, each rank
//!    closes its next-layer buckets under their forced passes.
//! 2. **Backward**, last layer first: each rank fetches from their owners
//!    the values of the next-layer buckets its moves lead to (a byte a
//!    state, in a palette, once per round for every rank that reads the
//!    bucket) and scores its buckets from their moves' ids
//!    (`bucketed::score_states`): no child is generated or looked
//!    up twice.
//! 3. **Records**, as [`super::ranks`]: sent to the rank of their key range.
//!
//! Every exchange is bounded: the forward pass sends at most [`PARENTS`]
//! parents' children a round, and a backward round fetches buckets of at
//! most [`FETCH_STATES`] states in all.
//!
//! The steps are modules, `forward` and `backward`; `message` holds the
//! packing of what they send.

mod backward;
mod forward;
mod message;

use super::backward::Kind;
use super::bucketed::{close, Probe, SameEdge, Values};
use super::buckets::{BucketScheme, Bucketed, MAX_CLASSES};
use super::error::{overflow, SolveError};
use super::ranks::{finish, owner, Counted, Exchange, KeyMap as HashMap, RankSolution, ROUND};
use crate::core::layout::RecordLayout;
use crate::core::{Progress, Value};

/// The most states of fetched buckets a rank takes in one backward round.
pub(crate) const FETCH_STATES: usize = 1 << 20;

/// The most parents a rank expands in one forward round (whole buckets; a
/// bucket larger than that alone): twice [`super::ranks::ROUND`], since a
/// child sent is named once per round and British Square's 5x5 ran 8%
/// faster so, within its memory bound per rank.
pub(crate) const PARENTS: usize = 2 * ROUND;

/// One of this rank's buckets.
#[derive(Default)]
struct Owned {
    /// Its states, by local id.
    keys: Vec<u64>,
    /// Its moves within itself (forced passes), grouped by parent.
    same: Vec<SameEdge>,
    /// Its states' moves of each class, in all.
    moves: [usize; MAX_CLASSES],
    /// Per class: the kind of its moves, `None` when there are none; known
    /// once the bucket is expanded.
    kinds: Vec<Option<Kind>>,
    /// The child id (in its class's bucket) of every move, class after
    /// class, state after state; dropped once the bucket is scored.
    ids: Vec<u16>,
    /// The values, once scored.
    values: Values,
}

/// Where each class's moves start in a bucket's ids (and where the last
/// ends): the prefix sums of its `moves`.
fn class_starts(moves: &[usize; MAX_CLASSES], classes: usize) -> Vec<usize> {
    let mut at = Vec::with_capacity(classes + 1);
    let mut total = 0;
    for &n in &moves[..classes] {
        at.push(total);
        total += n;
    }
    at.push(total);
    at
}

/// The rank that owns bucket `b`.
fn bucket_owner(b: u32, ranks: usize) -> usize {
    owner(u64::from(b), ranks)
}

/// An empty naming table for about `expected` states (it grows).
fn new_probe(expected: usize) -> Probe {
    let mut p = Probe::default();
    p.reset(expected);
    p
}

/// The error of a bucket grown past local ids.
fn too_large(state: u64) -> SolveError {
    SolveError::BucketContract {
        state,
        reason: "its bucket holds more than 65,536 states",
    }
}

/// What every step of a bucketed solve on ranks reads: the game, its
/// bucket scheme and the ranks.
struct Solve<'a, G: ?Sized> {
    /// The game.
    game: &'a G,
    /// Its buckets.
    scheme: &'a BucketScheme,
    /// The ranks, counting the bytes this rank sends.
    ex: &'a Counted<'a>,
}

/// Solves a bucketed game completely on the ranks of `ex`; every rank calls
/// this with the same game. The records are those of [`super::ranks::solve`]
/// (and of the one-process solvers).
pub(crate) fn solve<G: Bucketed + ?Sized>(
    game: &G,
    ex: &dyn Exchange,
    progress: &dyn Progress,
) -> Result<RankSolution, SolveError> {
    let layout = RecordLayout::for_game(game.descriptor());
    if !layout.is_well_formed() {
        return Err(overflow(Value::TERMINAL, &layout));
    }
    let ex = &Counted::new(ex);
    let scheme = game.bucket_scheme();
    if scheme.classes() > MAX_CLASSES {
        return Err(SolveError::BucketContract {
            state: game.start(),
            reason: "its game's scheme has more than 16 classes",
        });
    }
    let key_bits = game.descriptor().key_bits;
    let start = game.canonical(game.start());
    let layers = game.layer_count();
    let first = game.bucket(start);
    if first as usize >= scheme.count() || scheme.layer(first) >= layers {
        return Err(SolveError::BucketContract {
            state: start,
            reason: "its bucket is out of range",
        });
    }
    let mut buckets: HashMap<u32, Owned> = HashMap::default();
    let mut by_layer: Vec<Vec<u32>> = vec![Vec::new(); layers];
    if bucket_owner(first, ex.size()) == ex.rank() {
        let mut probe = new_probe(1);
        probe.insert_all(&[start], &mut [0]);
        let (same, moves) = close(game, &scheme, first, key_bits, &mut probe, &mut Vec::new())?;
        buckets.insert(
            first,
            Owned {
                keys: probe.keys,
                same,
                moves,
                ..Owned::default()
            },
        );
        by_layer[scheme.layer(first)].push(first);
    }
    let solve = Solve {
        game,
        scheme: &scheme,
        ex,
    };
    let forward_bytes = forward::expand_layers(&solve, &mut buckets, &mut by_layer, progress)?;
    let mut layer_sizes = Vec::with_capacity(layers);
    for bs in &by_layer {
        let n: usize = bs.iter().map(|b| buckets[b].keys.len()).sum();
        layer_sizes.push(usize::try_from(ex.sum(n as u64)?).unwrap_or(usize::MAX));
    }
    let backward_bytes =
        backward::score_layers(&solve, &mut buckets, &by_layer, &layout, progress)?;

    // Each bucket is dropped as soon as it is packed.
    let mut records = Vec::with_capacity(buckets.values().map(|o| o.keys.len()).sum());
    for (_, o) in buckets.drain() {
        if o.values.len() != o.keys.len() {
            return Err(SolveError::MissingState {
                state: o.keys.first().copied().unwrap_or(0),
            });
        }
        for (id, &key) in o.keys.iter().enumerate() {
            records.push(layout.pack(key, o.values.get(id as u16).value())?);
        }
    }
    drop(buckets);
    crate::core::platform::release_free_memory();
    finish(
        ex,
        records,
        layout,
        start,
        layer_sizes,
        [forward_bytes, backward_bytes],
    )
}
