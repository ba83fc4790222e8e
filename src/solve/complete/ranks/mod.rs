//! The layered retrograde solver spread over ranks (processes that share
//! nothing and talk through an [`Exchange`], such as MPI's).
//!
//! Each canonical state belongs to one rank, chosen by a hash of its key, so
//! a rank holds about `1/K` of the states and values of every layer. The
//! steps are the one-process solver's, in collective rounds:
//!
//! 1. **Forward**, layer by layer: each rank expands its states of the
//!    layer, sends every canonical child to the child's owner, and keeps
//!    the children it owns in their layers. Same-layer children (forced
//!    passes) are expanded in further rounds until no rank finds a new one.
//! 2. **Backward**, last layer first: each rank generates its states'
//!    children again (no edges are stored), asks their owners for their
//!    values and scores its states. A state with a same-layer child not
//!    scored yet waits for the next round; a round without progress on any
//!    rank is a cycle of same-layer moves.
//! 3. **Records**: each rank packs its states with their values; then the
//!    records are sent to the rank owning their range of keys (bounds
//!    chosen from a sample of every rank's records), so that rank `r`'s
//!    sorted records are the `r`-th stretch of the file.
//!
//! Every exchange carries at most [`ROUND`] parents' worth of messages, so
//! a rank's buffers stay bounded however large a layer is; all ranks take
//! part in every round, with nothing to send when they are done.
//!
//! The steps are modules: `forward`, `backward` and `records`; `exchange`
//! holds the collective operations ([`Exchange`]) and what every solver on
//! ranks builds on them.

mod backward;
mod exchange;
mod forward;
mod records;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

pub use exchange::Exchange;
pub(in crate::solve) use exchange::{for_rounds, human_bytes, Counted};
pub(in crate::solve) use records::finish;

use super::error::{overflow, SolveError};
use crate::core::layout::RecordLayout;
use crate::core::{Game, Progress, Value};

/// Parents a rank expands or scores per exchange round.
pub(crate) const ROUND: usize = 1 << 16;

/// The rank that owns a state: a mix of its key, so that any run of keys
/// spreads evenly.
#[inline]
pub(crate) fn owner(key: u64, ranks: usize) -> usize {
    let mut h = key.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 32;
    // The high bits, scaled: no division, and even for any number of ranks.
    ((u128::from(h) * ranks as u128) >> 64) as usize
}

/// The hasher of the sets of keys: one multiply-xorshift mix of the key
/// (keys are already well spread; SipHash's defence against chosen keys
/// costs a third of the forward pass here). Its constants differ from
/// [`owner`]'s, whose high bits are the same for every key of a rank.
#[derive(Default)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ u64::from(b));
        }
    }

    #[inline]
    fn write_u64(&mut self, key: u64) {
        let mut h = (key ^ self.0).wrapping_mul(0xd6e8_feb8_6659_fd93);
        h ^= h >> 32;
        h = h.wrapping_mul(0xd6e8_feb8_6659_fd93);
        self.0 = h ^ h >> 29;
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A set of keys.
type KeySet = HashSet<u64, BuildHasherDefault<KeyHasher>>;

/// A map from keys or bucket numbers, hashed by [`KeyHasher`].
pub(super) type KeyMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// One rank's share of a solved game.
#[derive(Debug)]
pub struct RankSolution {
    /// This rank's stretch of the file's records, sorted; the stretches of
    /// ranks `0..K` in order are the whole file.
    pub records: Vec<u64>,
    /// The record layout.
    pub layout: RecordLayout,
    /// The canonical start state.
    pub start: u64,
    /// The number of canonical states in each layer, over all ranks.
    pub layer_sizes: Vec<usize>,
    /// The records of every rank before this one (where this stretch
    /// starts in the file, in records).
    pub records_before: u64,
    /// The records of all ranks.
    pub total_records: u64,
    /// Bytes all ranks sent each other while they expanded each layer
    /// (forward), by layer.
    pub forward_bytes: Vec<u64>,
    /// Bytes all ranks sent each other while they scored each layer
    /// (backward), by layer.
    pub backward_bytes: Vec<u64>,
    /// Bytes all ranks sent each other in all, the records' move to their
    /// ranks included.
    pub total_bytes: u64,
}

/// Solves a game completely on the ranks of `ex`; every rank calls this
/// with the same game.
pub(crate) fn solve<G: Game + ?Sized>(
    game: &G,
    ex: &dyn Exchange,
    progress: &dyn Progress,
) -> Result<RankSolution, SolveError> {
    let layout = RecordLayout::for_game(game.descriptor());
    if !layout.is_well_formed() {
        return Err(overflow(Value::TERMINAL, &layout));
    }
    let start = game.canonical(game.start());
    let ex = &Counted::new(ex);
    let (layers, forward_bytes) = forward::enumerate(game, ex, start, progress)?;
    let mut layer_sizes = Vec::with_capacity(layers.len());
    for l in &layers {
        layer_sizes.push(usize::try_from(ex.sum(l.len() as u64)?).unwrap_or(usize::MAX));
    }
    let (values, backward_bytes) = backward::score(game, ex, &layers, &layout, progress)?;
    let mut records = Vec::with_capacity(layers.iter().map(Vec::len).sum());
    for (keys, cells) in layers.iter().zip(&values) {
        for (&key, cell) in keys.iter().zip(cells) {
            records.push(layout.pack(key, cell.value())?);
        }
    }
    drop(values);
    drop(layers);
    finish(
        ex,
        records,
        layout,
        start,
        layer_sizes,
        [forward_bytes, backward_bytes],
    )
}
