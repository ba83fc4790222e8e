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

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use super::index::SortedIndex;
use super::layered::{overflow, Cell, SolveError};
use super::{backward, forward};
use crate::core::layout::RecordLayout;
use crate::core::{Edge, Game, Progress, Value};

/// Parents a rank expands or scores per exchange round.
pub const ROUND: usize = 1 << 16;

/// Records sent to each rank per round when they go to the rank of their
/// key range.
const RECORDS_PER_ROUND: usize = 1 << 18;

/// A value in a reply: the packed [`Cell`], or this for "not scored yet".
const PENDING: u64 = u64::MAX;

/// The collective operations the ranks need. Every rank calls each method
/// the same number of times, in the same order.
pub trait Exchange {
    /// This rank's number, `0..size()`.
    fn rank(&self) -> usize;

    /// The number of ranks.
    fn size(&self) -> usize;

    /// Sends `outgoing[r]` to rank `r` (one list per rank) and returns what
    /// every rank sent to this one, by sender.
    fn all_to_all(&self, outgoing: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, SolveError>;

    /// The sum of `x` over the ranks, on every rank.
    fn sum(&self, x: u64) -> Result<u64, SolveError>;

    /// Every rank's `items`, concatenated in rank order, on every rank.
    fn all_gather(&self, items: Vec<u64>) -> Result<Vec<u64>, SolveError>;
}

/// The rank that owns a state: a mix of its key, so that any run of keys
/// spreads evenly.
#[inline]
pub fn owner(key: u64, ranks: usize) -> usize {
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

/// An [`Exchange`] that counts the bytes this rank sends to the others.
pub(super) struct Counted<'a> {
    ex: &'a dyn Exchange,
    sent: std::cell::Cell<u64>,
}

impl Counted<'_> {
    /// Counts what `ex` sends from now on.
    pub(super) fn new(ex: &dyn Exchange) -> Counted<'_> {
        Counted {
            ex,
            sent: std::cell::Cell::new(0),
        }
    }

    /// The bytes all ranks have sent so far (a collective call).
    pub(super) fn total(&self) -> Result<u64, SolveError> {
        self.ex.sum(self.sent.get())
    }
}

impl Exchange for Counted<'_> {
    fn rank(&self) -> usize {
        self.ex.rank()
    }
    fn size(&self) -> usize {
        self.ex.size()
    }
    fn all_to_all(&self, outgoing: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, SolveError> {
        let me = self.ex.rank();
        let words: usize = outgoing
            .iter()
            .enumerate()
            .filter(|&(r, _)| r != me)
            .map(|(_, o)| o.len())
            .sum();
        self.sent.set(self.sent.get() + 8 * words as u64);
        self.ex.all_to_all(outgoing)
    }
    fn sum(&self, x: u64) -> Result<u64, SolveError> {
        self.sent
            .set(self.sent.get() + 8 * (self.ex.size() as u64 - 1));
        self.ex.sum(x)
    }
    fn all_gather(&self, items: Vec<u64>) -> Result<Vec<u64>, SolveError> {
        let words = items.len() * (self.ex.size() - 1);
        self.sent.set(self.sent.get() + 8 * words as u64);
        self.ex.all_gather(items)
    }
}

/// Bytes as people read them: `512 B`, `3.4 MB`, `1.2 GB`.
pub(super) fn human_bytes(n: u64) -> String {
    match n {
        0..=9_999 => format!("{n} B"),
        10_000..=9_999_999 => format!("{:.1} kB", n as f64 / 1e3),
        10_000_000..=9_999_999_999 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}

/// Solves a game completely on the ranks of `ex`; every rank calls this
/// with the same game.
pub fn solve<G: Game + ?Sized>(
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
    let (layers, forward_bytes) = enumerate(game, ex, start, progress)?;
    let mut layer_sizes = Vec::with_capacity(layers.len());
    for l in &layers {
        layer_sizes.push(usize::try_from(ex.sum(l.len() as u64)?).unwrap_or(usize::MAX));
    }
    let (values, backward_bytes) = score(game, ex, &layers, &layout, progress)?;
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

/// The end of a solve on ranks: this rank's `records` (packed, in any
/// order) sent to the ranks of their key ranges, and what every rank
/// knows of the whole.
pub(super) fn finish(
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

/// The forward pass: this rank's states of every layer, each layer sorted,
/// and the bytes all ranks sent while expanding each layer.
fn enumerate<G: Game + ?Sized>(
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
            for_rounds(ex, &frontier, |parents| {
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

/// Runs `f` over `items` in slices of at most [`ROUND`], as many times on
/// every rank (the most any rank needs; the others pass empty slices).
pub(super) fn for_rounds<T>(
    ex: &dyn Exchange,
    items: &[T],
    mut f: impl FnMut(&[T]) -> Result<(), SolveError>,
) -> Result<(), SolveError> {
    let rounds = items.len().div_ceil(ROUND) as u64;
    let most = ex.all_gather(vec![rounds])?.into_iter().max().unwrap_or(0);
    for r in 0..most as usize {
        let from = (r * ROUND).min(items.len());
        let to = ((r + 1) * ROUND).min(items.len());
        f(&items[from..to])?;
    }
    Ok(())
}

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

/// The backward pass: the values of this rank's states, by layer, and the
/// bytes all ranks sent while scoring each layer.
fn score<G: Game + ?Sized>(
    game: &G,
    ex: &Counted<'_>,
    layers: &[Vec<u64>],
    layout: &RecordLayout,
    progress: &dyn Progress,
) -> Result<(Vec<Vec<Cell>>, Vec<u64>), SolveError> {
    let before = ex.total()?;
    let mut bytes = vec![0u64; layers.len()];
    let ranks = ex.size();
    let mut values: Vec<Vec<Cell>> = layers.iter().map(|l| vec![Cell::UNSET; l.len()]).collect();
    let indices: Vec<SortedIndex<'_>> = layers.iter().map(|l| SortedIndex::new(l)).collect();
    let mut edges: Vec<Edge> = Vec::new();
    progress.start_phase("backward", layers.len() as u64);
    for k in (0..layers.len()).rev() {
        // Indices (in layer k) of the states not scored yet.
        let mut waiting: Vec<usize> = (0..layers[k].len()).collect();
        loop {
            let mut still = Vec::new();
            for_rounds(ex, &waiting, |ids| {
                // Ask each child's owner for its value, in a known order.
                let mut outgoing = vec![Vec::new(); ranks];
                let mut asked: Vec<(usize, usize)> = Vec::new(); // (rank, index in its list)
                let mut kinds: Vec<(i8, bool)> = Vec::new();
                let mut per_parent: Vec<usize> = Vec::with_capacity(ids.len());
                for &i in ids {
                    edges.clear();
                    game.canonical_children(layers[k][i], &mut edges);
                    per_parent.push(edges.len());
                    for e in &edges {
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
                                packed_value(&indices, &values, j, key)
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

/// Sends every record to the rank of its range of keys and sorts each
/// rank's: rank `r` ends with the `r`-th stretch of all records in order.
pub(super) fn by_range(
    ex: &dyn Exchange,
    mut records: Vec<u64>,
    key_shift: u32,
) -> Result<Vec<u64>, SolveError> {
    let ranks = ex.size();
    if ranks == 1 {
        super::radix::sort(&mut records, key_shift);
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
    super::radix::sort(&mut mine, key_shift);
    Ok(mine)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::NoProgress;
    use crate::games::british_square::BritishSquare;
    use crate::solve::threads::Threads;

    fn on_threads(game: &BritishSquare, ranks: usize) -> Vec<RankSolution> {
        on_threads_with(game, ranks, &|g, ex| solve(g, ex, &NoProgress).unwrap())
    }

    fn on_threads_with(
        game: &BritishSquare,
        ranks: usize,
        solver: &(dyn Fn(&BritishSquare, &Threads) -> RankSolution + Sync),
    ) -> Vec<RankSolution> {
        crate::solve::threads::on_threads(ranks, |ex| solver(game, ex))
    }

    #[test]
    fn ranks_give_the_one_process_records() {
        let bucketed = |g: &BritishSquare, ex: &Threads| {
            crate::solve::ranks_bucketed::solve(g, ex, &NoProgress).unwrap()
        };
        for variant in ["3x3", "4x4", "4x4,center-allowed"] {
            let game = BritishSquare::from_variant(variant).unwrap();
            let one = crate::solve::solve(&game, &NoProgress).unwrap();
            for (ranks, by_bucket) in [
                (1, false),
                (2, false),
                (3, false),
                (1, true),
                (2, true),
                (3, true),
            ] {
                let parts = if by_bucket {
                    on_threads_with(&game, ranks, &bucketed)
                } else {
                    on_threads(&game, ranks)
                };
                let mut before = 0;
                let mut records = Vec::new();
                for p in &parts {
                    assert_eq!(p.records_before, before);
                    assert_eq!(p.total_records, one.records.len() as u64);
                    assert_eq!(p.layer_sizes, one.layer_sizes);
                    assert_eq!(p.start, one.start);
                    before += p.records.len() as u64;
                    records.extend_from_slice(&p.records);
                }
                assert_eq!(
                    records, one.records,
                    "{variant} on {ranks} ranks, {by_bucket}"
                );
            }
        }
    }

    /// A dense table in memory, as rank 0's output.
    struct TableOutput {
        table: Vec<i8>,
        written: usize,
        done: u32,
        marked: Vec<u32>,
    }

    impl crate::solve::dense::DenseOutput for TableOutput {
        fn waves_done(&self) -> u32 {
            self.done
        }
        fn write_block(&mut self, first: u64, values: &[i8]) -> Result<(), SolveError> {
            let at = first as usize;
            self.table[at..at + values.len()].copy_from_slice(values);
            self.written += values.len();
            Ok(())
        }
        fn read_block(&mut self, first: u64, values: &mut [i8]) -> Result<(), SolveError> {
            let at = first as usize;
            values.copy_from_slice(&self.table[at..at + values.len()]);
            Ok(())
        }
        fn wave_done(&mut self, waves: u32) -> Result<(), SolveError> {
            self.marked.push(waves);
            Ok(())
        }
    }

    #[test]
    fn dense_ranks_give_the_one_process_table_and_resume_after_any_wave() {
        use crate::games::dots_and_boxes::DotsAndBoxes;
        use crate::solve::dense::{solve_dense, solve_dense_on_ranks};
        for variant in ["2x2", "2x3", "3x3"] {
            let game = DotsAndBoxes::from_variant(variant).unwrap();
            let one = solve_dense(&game, &NoProgress).unwrap();
            let n = game.descriptor().key_bits;
            let waves = n.saturating_sub(crate::solve::dense::BLOCK_BITS) + 1;
            for ranks in [1, 2, 3] {
                // A fresh run, then runs that find some waves done: the
                // entries of keys with at least `high_bits + 1 - done` high
                // bits set are the finished ones, the rest is garbage.
                for done in [0, 1, waves / 2, waves] {
                    let bits = n.min(crate::solve::dense::BLOCK_BITS);
                    let table: Vec<i8> = one
                        .values()
                        .iter()
                        .enumerate()
                        .map(|(k, &v)| {
                            let high = (k as u64 >> bits).count_ones();
                            if high + done > waves - 1 {
                                v
                            } else {
                                0x55
                            }
                        })
                        .collect();
                    let out = std::sync::Mutex::new(TableOutput {
                        table,
                        written: 0,
                        done,
                        marked: Vec::new(),
                    });
                    let summaries = crate::solve::threads::on_threads(ranks, |ex| {
                        if ex.rank() == 0 {
                            let mut out = out.lock().unwrap();
                            solve_dense_on_ranks(&game, ex, &NoProgress, Some(&mut *out)).unwrap()
                        } else {
                            solve_dense_on_ranks(&game, ex, &NoProgress, None).unwrap()
                        }
                    });
                    let summary = &summaries[0];
                    assert_eq!(summary.start, one.start);
                    assert_eq!(summary.layout, one.layout);
                    assert_eq!((summary.waves_resumed, summary.waves), (done, waves));
                    // Blocks move between ranks once there are several.
                    if done == 0 && (ranks == 1 || variant == "3x3") {
                        assert_eq!(summary.bytes_sent == 0, ranks == 1);
                    }
                    let out = out.into_inner().unwrap();
                    let what = format!("{variant} on {ranks} ranks after {done} waves");
                    assert!(out.table == one.values(), "{what}");
                    assert_eq!(out.marked, (done + 1..=waves).collect::<Vec<_>>(), "{what}");
                    if done == 0 {
                        assert_eq!(out.written, out.table.len(), "{what}");
                    }
                }
            }
        }
    }

    #[test]
    fn owners_spread_keys_evenly() {
        for ranks in [2, 3, 7] {
            let mut counts = vec![0usize; ranks];
            for key in 0..30_000u64 {
                counts[owner(key << 3, ranks)] += 1;
            }
            let even = 30_000 / ranks;
            assert!(
                counts.iter().all(|&c| c.abs_diff(even) < even / 10),
                "{counts:?}"
            );
        }
    }
}
