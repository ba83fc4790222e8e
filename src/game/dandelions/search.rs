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

use super::field::{Field, Geometry, TURNS};

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
    table: Vec<u64>,
    mask: usize,
    nodes: u64,
}

/// Entries with at most this many turns left are not stored: they are
/// cheaper to search again than to look up.
const SHALLOW: u32 = 2;
const OFFSET: i32 = 1 << 15;

impl Solver {
    /// A solver on `geo` with a table of `2^bits` entries (16 bytes each;
    /// `bits` is clamped to 10..=30). The table is mapped as it fills.
    pub fn new(geo: Geometry, bits: u32) -> Solver {
        let bits = bits.clamp(10, 30);
        Solver {
            geo,
            table: vec![0; 2usize << bits],
            mask: (1usize << bits) - 1,
            nodes: 0,
        }
    }

    /// The geometry.
    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// Nodes searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The exact outcome `D` (dandelions' side) and remoteness of a state.
    pub fn solve(&mut self, f: &Field) -> (i32, u32) {
        if self.geo.is_over(f) {
            return (self.geo.final_score(f), 0);
        }
        // Invariant: lo <= S <= hi. Null windows, bisecting.
        let (mut lo, mut hi) = (final_s(-(self.geo.cells() as i32)), final_s(7));
        while lo < hi {
            let mid = lo + (hi - lo).div_euclid(2);
            let v = self.search(f, mid, mid + 1);
            if v <= mid {
                hi = v.min(mid);
            } else {
                lo = v.max(mid + 1);
            }
        }
        decode(lo)
    }

    /// True when the dandelions win from the state (`D > 0`): one null
    /// window around zero.
    pub fn dandelions_win(&mut self, f: &Field) -> bool {
        if self.geo.is_over(f) {
            return self.geo.final_score(f) > 0;
        }
        self.search(f, 0, 1) > 0
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

    /// Fail-soft alpha-beta on `S`: a value `<= alpha` is an upper bound, a
    /// value `>= beta` a lower bound, anything between exact.
    fn search(&mut self, f: &Field, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
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
        let stored = TURNS - turn > SHALLOW;
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
