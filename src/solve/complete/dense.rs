//! The dense retrograde solver, for games whose key is itself a dense index.
//!
//! Contract of a [`DenseGame`] (checked by the generic kernel): every key
//! below `2^key_bits` is a state, every move sets exactly one more key bit,
//! and the game ends exactly when every bit is set. Then a child's key is
//! always larger than its parent's, the remoteness of key `k` is
//! `key_bits - popcount(k)`, and the values fit a table of one signed byte per
//! key, filled from the top key down: no enumeration, no hash table, no
//! canonicalisation (symmetric keys simply get equal values).
//!
//! The table is cut into blocks of `2^BLOCK_BITS` consecutive keys (64 KiB,
//! cache-sized), named by their high key bits `h`. A move sets a low bit
//! (child in the same block, further up) or a high bit `j` (child in block
//! `h | 1 << j`). Blocks whose `h` have the same number of bits set never
//! depend on each other, so they are solved in parallel, in waves from the
//! most bits set to the fewest. The game solves one block at a time
//! ([`DenseGame::solve_block`]); its default is a plain kernel over
//! [`Game::moves`], and a game may override it with a vectorised one (Dots
//! and Boxes does), checked against the plain one by the tests.

use rayon::prelude::*;

use memmap2::MmapMut;

use super::SolveError;
use crate::core::layout::{RecordLayout, MAX_DENSE_KEY_BITS};
use crate::core::platform::advise_huge_pages_raw;
use crate::core::Value;
use crate::core::{DenseSolution, Progress};
use crate::core::{Edge, Game};

/// Key bits per block: 64 KiB of values.
pub(crate) const BLOCK_BITS: u32 = 16;

/// One block of the table to fill, with the finished blocks it depends on.
pub struct Block<'a> {
    /// Key bits inside the block: it holds keys `high << bits ..
    /// (high + 1) << bits`.
    pub bits: u32,
    /// The block's high key bits.
    pub high: u64,
    /// The block's values, to fill (entry `i` is key `high << bits | i`).
    pub values: &'a mut [i8],
    /// For each high bit `j` (key bit `bits + j`): the finished block
    /// `high | 1 << j`, or `None` when bit `j` is set in `high`.
    pub above: Vec<Option<&'a [i8]>>,
}

/// A game solved by the dense solver (see the module documentation for the
/// contract its keys and moves keep).
pub trait DenseGame: Game {
    /// Fills `block.values`, from the values of the keys above it. The
    /// default runs [`solve_block_generic`]; a game may override it with a
    /// faster kernel that computes the same values.
    fn solve_block(&self, block: &mut Block<'_>) -> Result<(), SolveError> {
        solve_block_generic(self, block)
    }
}

/// The plain kernel: every key of the block from the top down, every move by
/// [`Game::moves`], the best of `reward ± child` (remoteness needs no
/// tie-break: it is fixed by the key).
pub(crate) fn solve_block_generic<G: Game + ?Sized>(
    game: &G,
    block: &mut Block<'_>,
) -> Result<(), SolveError> {
    let low_mask = (1u64 << block.bits) - 1;
    let base = block.high << block.bits;
    let mut edges: Vec<Edge> = Vec::with_capacity(64);
    for i in (0..block.values.len()).rev() {
        let key = base | i as u64;
        edges.clear();
        game.moves(key, &mut edges);
        let mut best: Option<i32> = None;
        for e in &edges {
            let bit = e.child ^ key;
            if e.child & key != key || bit.count_ones() != 1 {
                return Err(SolveError::DenseMove {
                    state: key,
                    child: e.child,
                });
            }
            let at = (e.child & low_mask) as usize;
            let child = if bit <= low_mask {
                block.values[at]
            } else {
                let j = (bit.trailing_zeros() - block.bits) as usize;
                match block.above.get(j).copied().flatten() {
                    Some(b) => b[at],
                    None => {
                        return Err(SolveError::KeyTooWide {
                            state: e.child,
                            bits: block.bits + block.above.len() as u32,
                        })
                    }
                }
            };
            let child = i32::from(child);
            let v = i32::from(e.reward) + if e.again { child } else { -child };
            best = Some(best.map_or(v, |b| b.max(v)));
        }
        let v = match best {
            Some(v) => v,
            None if key == base | low_mask && block.above.iter().all(Option::is_none) => 0,
            None => return Err(SolveError::DenseEnd { state: key }),
        };
        block.values[i] = i8::try_from(v).map_err(|_| {
            SolveError::Overflow(crate::core::layout::LayoutOverflow {
                value: Value {
                    net: v,
                    remoteness: 0,
                },
                layout: RecordLayout::dense(block.bits + block.above.len() as u32),
            })
        })?;
    }
    Ok(())
}

/// A raw pointer to the table, shared by the workers of one wave.
#[derive(Clone, Copy)]
struct Table(*mut i8);
// SAFETY: the workers of a wave write disjoint blocks and only read blocks of
// earlier waves, which nobody writes any more (see `solve_dense`): sending
// the pointer to a worker races with nothing.
unsafe impl Send for Table {}
// SAFETY: as for `Send`: the workers sharing the pointer write disjoint
// blocks and read only finished ones.
unsafe impl Sync for Table {}

/// Solves a dense game completely.
pub fn solve_dense<G: DenseGame + ?Sized>(
    game: &G,
    progress: &dyn Progress,
) -> Result<DenseSolution, SolveError> {
    solve_dense_with(game, progress, &|block: &mut Block<'_>| {
        game.solve_block(block)
    })
}

/// [`solve_dense`] with the given block kernel (tests compare kernels).
pub(crate) fn solve_dense_with<G: Game + ?Sized>(
    game: &G,
    progress: &dyn Progress,
    kernel: &(dyn Fn(&mut Block<'_>) -> Result<(), SolveError> + Sync),
) -> Result<DenseSolution, SolveError> {
    let desc = game.descriptor();
    let layout = RecordLayout::dense(desc.key_bits);
    let n = desc.key_bits;
    if !desc.dense || !(1..=MAX_DENSE_KEY_BITS).contains(&n) || usize::BITS <= n {
        return Err(SolveError::KeyBits { bits: n });
    }
    let bits = n.min(BLOCK_BITS);
    let high_bits = n - bits;
    let mut map = MmapMut::map_anon(1usize << n).map_err(|error| SolveError::Memory {
        bytes: 1u64 << n,
        error,
    })?;
    advise_huge_pages_raw(map.as_mut_ptr(), map.len());
    let table = Table(map.as_mut_ptr().cast());
    let block_len = 1usize << bits;
    progress.start_phase("solve", 1u64 << high_bits);
    for wave in (0..=high_bits).rev() {
        let highs: Vec<u64> = (0..1u64 << high_bits)
            .filter(|h| h.count_ones() == wave)
            .collect();
        highs.par_iter().try_for_each(|&high| {
            let t = table;
            // SAFETY: block `high` lies inside the table (high < 2^high_bits)
            // and no other worker of this wave touches it: each has its own
            // `high`. The blocks read, `high | 1 << j`, have one more bit set,
            // so they belong to an earlier, finished wave and are not written
            // while these shared views live.
            let values = unsafe {
                std::slice::from_raw_parts_mut(t.0.add(high as usize * block_len), block_len)
            };
            let above = (0..high_bits)
                .map(|j| {
                    (high >> j & 1 == 0).then(|| {
                        let up = (high | 1 << j) as usize;
                        // SAFETY: block `up` lies inside the table (`up`
                        // is below 2^high_bits: bit j of `high` is clear)
                        // and belongs to an earlier wave (one more bit
                        // set), finished: no worker writes it while this
                        // shared view lives.
                        unsafe {
                            std::slice::from_raw_parts(
                                t.0.add(up * block_len).cast_const(),
                                block_len,
                            )
                        }
                    })
                })
                .collect();
            let mut block = Block {
                bits,
                high,
                values,
                above,
            };
            kernel(&mut block)?;
            progress.advance(1);
            Ok::<(), SolveError>(())
        })?;
    }
    progress.finish_phase();
    Ok(DenseSolution::new(
        map,
        layout,
        game.canonical(game.start()),
    ))
}

/// Where rank 0 keeps the table while the ranks solve it: the file being
/// written, whose finished waves survive a job that dies.
pub trait DenseOutput {
    /// How many waves, from the first (the most high bits set), an earlier
    /// run finished and kept: they are not solved again.
    fn waves_done(&self) -> u32;
    /// Keeps the entries of keys `first .. first + values.len()`.
    fn write_block(&mut self, first: u64, values: &[i8]) -> Result<(), SolveError>;
    /// Reads back entries kept by this run or an earlier one.
    fn read_block(&mut self, first: u64, values: &mut [i8]) -> Result<(), SolveError>;
    /// The first `waves` waves are all written: make them durable, so that
    /// a run that dies from now on resumes after them.
    fn wave_done(&mut self, waves: u32) -> Result<(), SolveError>;
}

/// What every rank knows when [`solve_dense_on_ranks`] returns.
#[derive(Debug)]
pub struct DenseRankSummary {
    /// The record layout ([`RecordLayout::dense`]).
    pub layout: RecordLayout,
    /// The canonical start state.
    pub start: u64,
    /// Bytes all ranks sent each other (the blocks, 8 bytes a word).
    pub bytes_sent: u64,
    /// The waves an earlier run had finished, which this one took up from.
    pub waves_resumed: u32,
    /// The waves in all.
    pub waves: u32,
}

/// Blocks a rank sends per exchange round, at most (each is `2^BLOCK_BITS`
/// bytes, so a round's buffers stay under 4 MiB a rank).
const BLOCKS_PER_ROUND: usize = 64;

/// Solves a dense game on the ranks of `ex` (every rank calls it; rank 0
/// with the `output`, the others with `None`). The blocks of each wave are
/// dealt out in turn to the ranks; a finished block is sent to the ranks
/// whose next-wave blocks read it, and to rank 0, which writes it to the
/// output, in no particular order. So a rank holds only the blocks it solves
/// and those they read, and rank 0 writes the table as it comes. After each
/// wave rank 0 marks it done; a run whose output has waves done takes up
/// after them, rank 0 reading back the last one's blocks for the ranks that
/// read them.
pub(crate) fn solve_dense_on_ranks<G: DenseGame + ?Sized>(
    game: &G,
    ex: &dyn super::ranks::Exchange,
    progress: &dyn Progress,
    mut output: Option<&mut dyn DenseOutput>,
) -> Result<DenseRankSummary, SolveError> {
    use std::collections::HashMap;

    let desc = game.descriptor();
    let n = desc.key_bits;
    if !desc.dense || !(1..=MAX_DENSE_KEY_BITS).contains(&n) || usize::BITS <= n {
        return Err(SolveError::KeyBits { bits: n });
    }
    let (rank, ranks) = (ex.rank(), ex.size().max(1));
    let bits = n.min(BLOCK_BITS);
    let high_bits = n - bits;
    let block_len = 1usize << bits;
    let words = block_len.div_ceil(8);
    // Each wave's blocks in order; block `h` goes to rank (its place in its
    // wave) mod K, so every rank gets its share of every wave.
    let mut place = vec![0u32; 1 << high_bits];
    let mut waves: Vec<Vec<u64>> = vec![Vec::new(); high_bits as usize + 1];
    for h in 0..1u64 << high_bits {
        let wave = &mut waves[h.count_ones() as usize];
        place[h as usize] = wave.len() as u32;
        wave.push(h);
    }
    let owner = |h: u64| place[h as usize] as usize % ranks;
    // The ranks whose next-wave blocks read block `h`.
    let readers = |h: u64| -> Vec<usize> {
        let mut to: Vec<usize> = (0..high_bits)
            .filter(|j| h >> j & 1 == 1)
            .map(|j| owner(h ^ 1 << j))
            .collect();
        to.sort_unstable();
        to.dedup();
        to
    };
    let total_waves = high_bits + 1;
    let mine_done = output.as_ref().map_or(0, |o| o.waves_done());
    let done = ex
        .all_gather(vec![u64::from(mine_done)])?
        .into_iter()
        .max()
        .unwrap_or(0)
        .min(u64::from(total_waves)) as u32;

    let bytes_sent = std::cell::Cell::new(0u64);
    // Sends blocks (in rounds of at most BLOCKS_PER_ROUND a rank) to the
    // ranks `to` names for each; returns the blocks received or kept that
    // this rank reads next, and writes every block rank 0 gets when
    // `write` is set.
    let exchange = |blocks: &[(u64, Vec<i8>)],
                    to: &dyn Fn(u64) -> Vec<usize>,
                    write: bool,
                    output: &mut Option<&mut dyn DenseOutput>|
     -> Result<HashMap<u64, Vec<i8>>, SolveError> {
        let mut queue: Vec<(usize, Vec<usize>)> = blocks
            .iter()
            .enumerate()
            .map(|(i, &(high, _))| (i, to(high)))
            .collect();
        let mut held: HashMap<u64, Vec<i8>> = HashMap::new();
        loop {
            let take = queue.len().min(BLOCKS_PER_ROUND);
            let mut outgoing = vec![Vec::new(); ranks];
            for (i, to) in queue.drain(..take) {
                let (high, values) = &blocks[i];
                for r in to {
                    if r == rank {
                        held.insert(*high, values.clone());
                    } else {
                        let out = &mut outgoing[r];
                        out.push(*high);
                        out.extend(values.chunks(8).map(|c| {
                            c.iter()
                                .rev()
                                .fold(0u64, |w, &v| w << 8 | u64::from(v as u8))
                        }));
                    }
                }
            }
            bytes_sent
                .set(bytes_sent.get() + outgoing.iter().map(|o| 8 * o.len() as u64).sum::<u64>());
            for message in ex.all_to_all(outgoing)? {
                for block in message.chunks(words + 1) {
                    let (&high, body) = block.split_first().ok_or(SolveError::Exchange {
                        reason: "an empty block".into(),
                    })?;
                    let mut values: Vec<i8> = body
                        .iter()
                        .flat_map(|w| w.to_le_bytes())
                        .map(|b| b as i8)
                        .collect();
                    values.truncate(block_len);
                    if let (true, Some(out)) = (write, output.as_deref_mut()) {
                        out.write_block(high << bits, &values)?;
                    }
                    // Rank 0 gets every block, but keeps only those it reads.
                    if readers(high).contains(&rank) {
                        held.insert(high, values);
                    }
                }
            }
            if ex.sum(queue.len() as u64)? == 0 {
                break;
            }
        }
        Ok(held)
    };

    // The finished blocks of the last wave that this rank's blocks read.
    let mut held: HashMap<u64, Vec<i8>> = HashMap::new();
    progress.start_phase("solve", 1u64 << high_bits);
    if done > 0 {
        let resumed: usize = waves[(high_bits + 1 - done) as usize..]
            .iter()
            .map(Vec::len)
            .sum();
        progress.advance(resumed as u64);
        if done < total_waves {
            // Rank 0 reads the last finished wave back for its readers.
            let last = &waves[(high_bits + 1 - done) as usize];
            let mut blocks = Vec::new();
            if let Some(out) = output.as_deref_mut() {
                for &high in last {
                    let mut values = vec![0i8; block_len];
                    out.read_block(high << bits, &mut values)?;
                    blocks.push((high, values));
                }
            }
            held = exchange(&blocks, &readers, false, &mut output)?;
        }
    }
    for wave in (0..total_waves.saturating_sub(done)).rev() {
        let mine: Vec<u64> = waves[wave as usize]
            .iter()
            .copied()
            .filter(|&h| owner(h) == rank)
            .collect();
        let mut solved: Vec<(u64, Vec<i8>)> = Vec::with_capacity(mine.len());
        for &high in &mine {
            let mut values = vec![0i8; block_len];
            let above = (0..high_bits)
                .map(|j| {
                    if high >> j & 1 == 1 {
                        return Ok(None);
                    }
                    let up = high | 1 << j;
                    held.get(&up)
                        .map(|b| Some(&b[..]))
                        .ok_or(SolveError::MissingState { state: up << bits })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let mut block = Block {
                bits,
                high,
                values: &mut values,
                above,
            };
            game.solve_block(&mut block)?;
            solved.push((high, values));
        }
        if let Some(out) = output.as_deref_mut() {
            for (high, values) in &solved {
                out.write_block(high << bits, values)?;
            }
        }
        // Each block to the ranks that read it next, and to rank 0.
        let to = |h: u64| {
            let mut to = readers(h);
            if !to.contains(&0) {
                to.push(0);
            }
            to
        };
        held = exchange(&solved, &to, true, &mut output)?;
        // Rank 0 receives every block: it keeps only those it reads.
        held.retain(|&high, _| readers(high).contains(&rank));
        if let Some(out) = output.as_deref_mut() {
            out.wave_done(high_bits + 1 - wave)?;
        }
        progress.advance(waves[wave as usize].len() as u64);
        let all = ex.sum(bytes_sent.get())?;
        progress.status(&format!("{} exchanged", super::ranks::human_bytes(all)));
    }
    progress.finish_phase();
    Ok(DenseRankSummary {
        layout: RecordLayout::dense(n),
        start: game.canonical(game.start()),
        bytes_sent: ex.sum(bytes_sent.get())?,
        waves_resumed: done,
        waves: total_waves,
    })
}
