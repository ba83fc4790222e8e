//! The exact solver: alpha-beta over one number that orders outcomes and,
//! among equal outcomes, remoteness, with a transposition table under the
//! 8 symmetries and null-window narrowing at the root.
//!
//! # The number searched
//! From the dandelions' side, `D` is `8 - flowers` when they win (1 to 7)
//! and `-gaps` when the wind wins (never 0). The search orders
//! `S = 16 D + sign(D) (15 - remoteness)`: a higher `D` is always better for
//! the dandelions; among equal `D` the winner prefers to finish sooner and
//! the loser later, the engine's tie-break ([`crate::Value::preference`]).
//! Remoteness is at most 14, so `S` stays within `D`'s band and `|S| >= 17`.
//! One ply up, `S` moves one step toward zero.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::field::{Field, Geometry, TURNS};
use crate::core::Cancel;
use crate::solve::memory::{zeroed_words, TableError};

/// `S` of a finished state with outcome `d`.
#[inline]
fn final_s(d: i32) -> i32 {
    16 * d + d.signum() * 15
}

/// `S` one ply further from the end.
#[inline]
fn shrink(s: i32) -> i32 {
    s - s.signum()
}

/// The outcome and remoteness of `S`.
pub fn decode(s: i32) -> (i32, u32) {
    // |S| = 16 |D| + 15 - rem, with 1 <= 15 - rem <= 15.
    let d = s.signum() * ((s.abs() - 1) / 16);
    let rem = 15 - (s.abs() - 16 * d.abs());
    (d, rem.max(0) as u32)
}

/// An exact solver with its transposition table.
pub struct Solver {
    geo: Geometry,
    /// Two words an entry: the key plus one (0: empty), and the bounds.
    table: Box<[u64]>,
    mask: usize,
    nodes: u64,
    /// States with at most this many turns left are not stored.
    shallow: u32,
    /// Where the search adds its nodes as it goes, in steps of
    /// [`NODE_REPORT`], for progress displays.
    counter: Option<Arc<AtomicU64>>,
    /// What stops a search, looked at every [`STOP_CHECK`] nodes.
    cancel: Option<Cancel>,
    /// Set once the cancel flag is seen set: the search unwinds and stores
    /// nothing more.
    stopped: bool,
}

/// Nodes between two reports to a solver's node counter.
pub(crate) const NODE_REPORT: u64 = 1 << 16;

/// Nodes between two looks at the solver's [`Cancel`] (a node four turns
/// from the end searches the last turns in one loop, so nodes are not
/// cheap here).
pub(crate) const STOP_CHECK: u64 = 1 << 10;

const _: () = assert!(NODE_REPORT.is_multiple_of(STOP_CHECK));

/// Entries with at most this many turns left are not stored: they are
/// cheaper to search again than to look up.
const SHALLOW: u32 = 2;
const OFFSET: i32 = 1 << 15;
/// States with at most this many turns left are searched by
/// [`Solver::solve_endgame`] when a book is built.
pub(crate) const ENDGAME_TURNS: u32 = 5;

impl Solver {
    /// A solver on `geo` with a table of `2^bits` entries (16 bytes each;
    /// `bits` is clamped to 10..=30). The table is mapped as it fills.
    ///
    /// # Panics
    /// When the allocator refuses the table, as a `Vec` would
    /// ([`Solver::try_new`] fails instead).
    pub fn new(geo: Geometry, bits: u32) -> Solver {
        match Solver::try_new(geo, bits) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    /// [`Solver::new`], failing when the allocator refuses the table.
    pub(crate) fn try_new(geo: Geometry, bits: u32) -> Result<Solver, TableError> {
        let bits = bits.clamp(10, 30);
        Ok(Solver {
            geo,
            table: zeroed_words(2usize << bits, bits)?,
            mask: (1usize << bits) - 1,
            nodes: 0,
            shallow: SHALLOW,
            counter: None,
            cancel: None,
            stopped: false,
        })
    }

    /// Maps every page of the table now (it is allocated zeroed, and
    /// mapped as searches write it), leaving its entries as they are.
    pub(crate) fn prefault(&mut self) {
        crate::solve::memory::map_pages(&mut self.table);
    }

    /// The bytes of the table of a solver made with `bits`.
    pub(crate) fn table_bytes(bits: u32) -> u64 {
        16u64 << bits.clamp(10, 30)
    }

    /// Lets `cancel` stop the searches (or none): once it is set, a search
    /// unwinds within a few thousand nodes and returns a meaningless
    /// answer ([`Solver::stopped`] says so). The table keeps only what was
    /// proved before.
    pub(crate) fn set_cancel(&mut self, cancel: Option<Cancel>) {
        self.cancel = cancel;
    }

    /// Lets searches add their nodes to `counter` while they run (see
    /// [`NODE_REPORT`]).
    pub(crate) fn set_node_counter(&mut self, counter: Option<Arc<AtomicU64>>) {
        self.counter = counter;
    }

    /// Nodes searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The exact outcome `D` (dandelions' side) and remoteness of a state.
    pub fn solve(&mut self, f: &Field) -> (i32, u32) {
        self.stopped = false;
        if self.geo.is_over(f) {
            return (self.geo.final_score(f), 0);
        }
        // Invariant: lo <= S <= hi. Null windows, bisecting.
        let (mut lo, mut hi) = (final_s(-(self.geo.cells() as i32)), final_s(7));
        while lo < hi {
            let mid = lo + (hi - lo).div_euclid(2);
            let v = self.search(f, mid, mid + 1);
            if self.stopped {
                return (0, 0);
            }
            if v <= mid {
                hi = v.min(mid);
            } else {
                lo = v.max(mid + 1);
            }
        }
        decode(lo)
    }

    /// The exact outcome and remoteness of a late state by one full-window
    /// search that stores nothing in the table: for states with few turns
    /// left (at most [`ENDGAME_TURNS`]), faster than [`Solver::solve`]'s
    /// bisection, and with the same answer.
    pub(crate) fn solve_endgame(&mut self, f: &Field) -> (i32, u32) {
        self.stopped = false;
        if self.geo.is_over(f) {
            return (self.geo.final_score(f), 0);
        }
        let saved = self.shallow;
        self.shallow = TURNS;
        let (lo, hi) = (final_s(-(self.geo.cells() as i32)), final_s(7));
        let v = self.search(f, lo - 1, hi + 1);
        self.shallow = saved;
        if self.stopped {
            return (0, 0);
        }
        decode(v)
    }

    /// True when the dandelions win from the state (`D > 0`): one null
    /// window around zero.
    pub fn dandelions_win(&mut self, f: &Field) -> bool {
        self.stopped = false;
        if self.geo.is_over(f) {
            return self.geo.final_score(f) > 0;
        }
        self.search(f, 0, 1) > 0
    }

    /// Every [`STOP_CHECK`] nodes: reports the nodes (every
    /// [`NODE_REPORT`]) and looks at the cancel flag. True when the search
    /// is to stop.
    #[cold]
    #[inline(never)]
    fn checkpoint(&mut self) -> bool {
        if self.nodes.is_multiple_of(NODE_REPORT) {
            if let Some(c) = &self.counter {
                c.fetch_add(NODE_REPORT, Ordering::Relaxed);
            }
        }
        if self.cancel.as_ref().is_some_and(Cancel::is_cancelled) {
            self.stopped = true;
        }
        self.stopped
    }

    fn canonical(&self, f: &Field) -> u64 {
        (0..8)
            .map(|s| {
                let t = self.geo.transform(f, s);
                u64::from(t.seeds) | u64::from(t.flowers) << 25 | u64::from(t.dirs) << 50
            })
            .min()
            .unwrap_or(0)
    }

    fn slot(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 24) as usize & self.mask
    }

    fn get(&self, key: u64) -> Option<(i32, i32)> {
        let i = 2 * self.slot(key);
        if self.table[i] == key + 1 {
            let b = self.table[i + 1];
            Some(((b >> 16) as i32 - OFFSET, (b & 0xffff) as i32 - OFFSET))
        } else {
            None
        }
    }

    fn put(&mut self, key: u64, mut lo: i32, mut hi: i32) {
        let i = 2 * self.slot(key);
        if self.table[i] == key + 1 {
            let b = self.table[i + 1];
            lo = lo.max((b >> 16) as i32 - OFFSET);
            hi = hi.min((b & 0xffff) as i32 - OFFSET);
        }
        self.table[i] = key + 1;
        self.table[i + 1] = ((lo + OFFSET) as u64) << 16 | (hi + OFFSET) as u64;
    }

    /// The `S` of a state with the dandelions to move and two turns left
    /// (a flower, then the wind's last gust): exact, or a lower bound
    /// `>= beta` (fail-soft). `None` when no cell is free (only on fields
    /// too small to get here).
    fn last_two(&self, f: &Field, beta: i32) -> Option<i32> {
        let (gusts, n) = self.gusts(f);
        self.two(f.covered(), f.flowers, &gusts[..n], beta)
    }

    /// [`Solver::last_two`] on the coverage and flowers of a state, given
    /// the wind's gusts left with the seeds each spreads from the flowers
    /// already planted: in one loop, without child states. The coverage
    /// after a flower on `q` and a gust `d` is the coverage after `d`
    /// alone, plus `q` and `q`'s ray along `d`.
    fn two(&self, covered: u32, flowers: u32, gusts: &[(usize, u32)], beta: i32) -> Option<i32> {
        let geo = &self.geo;
        let full = geo.full();
        let win = final_s(8 - (flowers.count_ones() as i32 + 1));
        if (full & !covered).count_ones() == 1 {
            // The last open cell takes the flower: nothing is better.
            return Some(shrink(win));
        }
        // Otherwise the best is a cover by the last gust.
        let top = shrink(shrink(win));
        let mut best = None;
        let mut free = full & !flowers;
        while free != 0 {
            let q = free.trailing_zeros() as usize;
            free &= free - 1;
            let bit = 1u32 << q;
            // The wind's best gust: the most gaps left.
            let mut gaps = 0;
            for &(d, seeds) in gusts {
                gaps =
                    gaps.max((full & !(covered | seeds | bit | geo.ray(d, q))).count_ones() as i32);
            }
            let v = if gaps == 0 {
                top
            } else {
                shrink(shrink(final_s(-gaps)))
            };
            if best.is_none_or(|b| v > b) {
                best = Some(v);
                if v >= top || v >= beta {
                    break;
                }
            }
        }
        best
    }

    /// The gusts the wind has left, each with the seeds it spreads from
    /// `flowers`; how many.
    fn gusts(&self, f: &Field) -> ([(usize, u32); 8], usize) {
        let mut gusts = [(0usize, 0u32); 8];
        let mut n = 0;
        for d in 0..8 {
            if f.dirs >> d & 1 == 0 {
                gusts[n] = (d, self.geo.spread(f.flowers, d));
                n += 1;
            }
        }
        (gusts, n)
    }

    /// The `S` of a state with the wind to move and three turns left (a
    /// gust, a flower, the last gust): exact, or an upper bound `<= alpha`
    /// (fail-soft); `None` on fields too small to get here.
    fn last_three(&self, f: &Field, alpha: i32, beta: i32) -> Option<i32> {
        let (gusts, n) = self.gusts(f);
        self.three(f.covered(), f.flowers, &gusts[..n], alpha, beta)
    }

    /// [`Solver::last_three`] on the coverage and flowers of a state and
    /// the gusts left with their seeds (each gust's seeds are spread once
    /// for the three turns).
    fn three(
        &self,
        covered: u32,
        flowers: u32,
        gusts: &[(usize, u32)],
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        let full = self.geo.full();
        let mut order = [(0u32, 0usize); 8];
        for (i, &(_, seeds)) in gusts.iter().enumerate() {
            // Gusts that cover least first.
            order[i] = ((covered | seeds).count_ones(), i);
        }
        let order = &mut order[..gusts.len()];
        order.sort_unstable();
        let mut best = i32::MAX;
        let mut rest = [(0usize, 0u32); 8];
        for &(_, i) in order.iter() {
            let after = covered | gusts[i].1;
            let v = if after == full {
                final_s(8 - flowers.count_ones() as i32)
            } else {
                let mut m = 0;
                for (j, &g) in gusts.iter().enumerate() {
                    if j != i {
                        rest[m] = g;
                        m += 1;
                    }
                }
                self.two(after, flowers, &rest[..m], beta.min(best) + 1)?
            };
            best = best.min(shrink(v));
            if best <= alpha {
                break;
            }
        }
        (best != i32::MAX).then_some(best)
    }

    /// The `S` of a state with the dandelions to move and four turns left:
    /// exact, or a bound outside the window (fail-soft); `None` on fields
    /// too small to get here. The seeds of each gust after a flower on `c`
    /// are the gust's seeds before it plus `c`'s ray.
    fn last_four(&self, f: &Field, mut alpha: i32, beta: i32) -> Option<i32> {
        let geo = &self.geo;
        let full = geo.full();
        let covered = f.covered();
        let (gusts, n) = self.gusts(f);
        let gusts = &gusts[..n];
        let mut moves = [(0i32, 0usize); 25];
        let mut m = 0;
        let mut free = full & !f.flowers;
        while free != 0 {
            let c = free.trailing_zeros() as usize;
            free &= free - 1;
            // Cells that cover most of what is still open first.
            let mut gain = if covered >> c & 1 == 0 { 4 } else { 0 };
            for &(d, _) in gusts {
                gain += (geo.ray(d, c) & !covered).count_ones() as i32;
            }
            moves[m] = (-gain, c);
            m += 1;
        }
        let moves = &mut moves[..m];
        moves.sort_unstable();
        let planted = f.flowers.count_ones() as i32 + 1;
        let mut best = None;
        let mut child = [(0usize, 0u32); 8];
        for &(_, c) in moves.iter() {
            let bit = 1u32 << c;
            let (cov, flowers) = (covered | bit, f.flowers | bit);
            let v = if cov == full {
                final_s(8 - planted)
            } else {
                for (k, &(d, seeds)) in gusts.iter().enumerate() {
                    child[k] = (d, seeds | geo.ray(d, c));
                }
                self.three(cov, flowers, &child[..n], alpha - 1, beta + 1)?
            };
            let v = shrink(v);
            if best.is_none_or(|b| v > b) {
                best = Some(v);
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// Fail-soft alpha-beta on `S`: a value `<= alpha` is an upper bound, a
    /// value `>= beta` a lower bound, anything between exact.
    fn search(&mut self, f: &Field, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(STOP_CHECK) && self.checkpoint() {
            return 0;
        }
        let geo = &self.geo;
        let covered = f.covered();
        if covered == geo.full() {
            return final_s(8 - f.flowers.count_ones() as i32);
        }
        let turn = f.turns();
        if turn >= TURNS {
            return final_s(-((geo.full() & !covered).count_ones() as i32));
        }
        let dandelions = f.dandelions_to_move();
        let planted = f.flowers.count_ones() as i32;
        // The best the dandelions can hope for: covering everything with
        // the next move, one ply away.
        let best_d = if dandelions {
            8 - planted - 1
        } else {
            8 - planted
        };
        let upper = shrink(final_s(best_d));
        // The worst: every cell uncovered now stays so, as late as can be.
        let lower = final_s(-((geo.full() & !covered).count_ones() as i32)) + (TURNS - turn) as i32;
        if upper <= alpha {
            return upper;
        }
        if lower >= beta {
            return lower;
        }
        if TURNS - turn == 2 && dandelions {
            if let Some(v) = self.last_two(f, beta) {
                return v;
            }
        }
        if TURNS - turn == 3 && !dandelions {
            if let Some(v) = self.last_three(f, alpha, beta) {
                return v;
            }
        }
        if TURNS - turn == 4 && dandelions {
            if let Some(v) = self.last_four(f, alpha, beta) {
                return v;
            }
        }
        let stored = TURNS - turn > self.shallow;
        let key = if stored { self.canonical(f) } else { 0 };
        if stored {
            if let Some((lo, hi)) = self.get(key) {
                if lo >= beta {
                    return lo;
                }
                if hi <= alpha {
                    return hi;
                }
                alpha = alpha.max(lo);
                beta = beta.min(hi);
                if alpha >= beta {
                    // The bounds meet inside the window: the value is known.
                    return alpha;
                }
            }
        }
        let (a0, b0) = (alpha, beta);
        // Children searched with the window widened by one: one ply up, a
        // value moves one step toward zero.
        let best = if dandelions {
            let mut moves = [(0i32, 0u32); 25];
            let mut n = 0;
            let mut free = geo.full() & !f.flowers;
            while free != 0 {
                let c = free.trailing_zeros();
                free &= free - 1;
                // Cells that cover most of what is still open first.
                let mut gain = if covered >> c & 1 == 0 { 4 } else { 0 };
                for d in 0..8 {
                    if f.dirs >> d & 1 == 0 {
                        gain += (geo.ray(d, c as usize) & !covered).count_ones() as i32;
                    }
                }
                moves[n] = (-gain, c);
                n += 1;
            }
            moves[..n].sort_unstable();
            let mut best = i32::MIN;
            for &(_, c) in &moves[..n] {
                let child = Field {
                    seeds: f.seeds & !(1 << c),
                    flowers: f.flowers | 1 << c,
                    dirs: f.dirs,
                };
                let v = shrink(self.search(&child, alpha - 1, beta + 1));
                if self.stopped {
                    // Unwinding: what this node saw proves nothing.
                    return 0;
                }
                best = best.max(v);
                alpha = alpha.max(v);
                if alpha >= beta {
                    break;
                }
            }
            best
        } else {
            let mut moves = [(0i32, 0usize, 0u32); 8];
            let mut n = 0;
            for d in 0..8 {
                if f.dirs >> d & 1 == 0 {
                    let seeds = geo.spread(f.flowers, d) & !f.flowers;
                    // Winds that cover least first.
                    moves[n] = ((seeds | covered).count_ones() as i32, d, seeds);
                    n += 1;
                }
            }
            moves[..n].sort_unstable();
            let mut best = i32::MAX;
            for &(_, d, seeds) in &moves[..n] {
                let child = Field {
                    seeds: f.seeds | seeds,
                    flowers: f.flowers,
                    dirs: f.dirs | 1 << d,
                };
                let v = shrink(self.search(&child, alpha - 1, beta + 1));
                if self.stopped {
                    return 0;
                }
                best = best.min(v);
                beta = beta.min(v);
                if alpha >= beta {
                    break;
                }
            }
            best
        };
        if stored {
            if best <= a0 {
                self.put(key, -OFFSET + 1, best);
            } else if best >= b0 {
                self.put(key, best, OFFSET - 1);
            } else {
                self.put(key, best, best);
            }
        }
        best
    }
}
