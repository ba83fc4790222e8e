//! The exact value of a Dots and Boxes position by search, position by
//! position and without the table (the game's side of [`BookGame`]): an
//! alpha-beta search of the net boxes for the side to move, over the drawn edges alone (the boxes taken so far do not
//! change the rest of the game), with a transposition table of two bounds
//! keyed by the canonical edge set (the board's symmetries), and moves
//! tried in the order most likely to cut: captures first, then the moves
//! that give the opponent no box, then the rest.
//!
//! The value of a set of edges `s` is
//! `max over undrawn e of  boxes(e) + v(s + e)` when `e` closes a box (the
//! mover moves again) and `-v(s + e)` otherwise, and `v(all) = 0`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::DotsAndBoxes;
use crate::core::{Game, Value};
use crate::solve::book::{BookError, BookGame};

/// One entry of the table: a canonical edge set and the bounds of its
/// value (for its side to move).
#[derive(Clone, Copy, Default)]
struct Entry {
    /// The edge set + 1 (0: empty).
    tag: u64,
    lower: i8,
    upper: i8,
}

/// The nodes a solver counts before it adds them to a shared counter.
const COUNT_EVERY: u64 = 1 << 14;

/// A searcher: its transposition table and node counts.
pub struct Solver {
    table: Vec<Entry>,
    mask: usize,
    nodes: u64,
    counted: u64,
    counter: Option<Arc<AtomicU64>>,
}

impl Solver {
    /// A solver with a table of `2^bits` entries (16 bytes each).
    pub fn new(bits: u32) -> Solver {
        let size = 1usize << bits;
        Solver {
            table: vec![Entry::default(); size],
            mask: size - 1,
            nodes: 0,
            counted: 0,
            counter: None,
        }
    }

    /// The nodes searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Adds this solver's nodes to `counter` as it goes.
    pub fn set_node_counter(&mut self, counter: Option<Arc<AtomicU64>>) {
        self.counter = counter;
    }

    fn slot(&self, key: u64) -> usize {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 20) as usize & self.mask
    }

    /// The net boxes for the side to move from the edge set `state` on
    /// `game`'s board, exactly.
    pub fn value(&mut self, game: &DotsAndBoxes, state: u64) -> i32 {
        let most = game.box_masks().len() as i32;
        self.search(game, state, -most - 1, most + 1)
    }

    /// The value of `state` if it lies in `(alpha, beta)`; otherwise a
    /// bound on the same side of the window (fail-soft).
    fn search(&mut self, game: &DotsAndBoxes, state: u64, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes - self.counted >= COUNT_EVERY {
            if let Some(c) = &self.counter {
                c.fetch_add(self.nodes - self.counted, Ordering::Relaxed);
            }
            self.counted = self.nodes;
        }
        let free = game.all() & !state;
        if free == 0 {
            return 0;
        }
        // The table, keyed by the canonical edge set.
        let key = game.canonical(state);
        let at = self.slot(key);
        let e = self.table[at];
        if e.tag == key + 1 {
            let (lo, hi) = (i32::from(e.lower), i32::from(e.upper));
            if lo == hi {
                return lo;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
            if alpha >= beta {
                return if lo >= beta { lo } else { hi };
            }
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut best = i32::MIN;
        // Captures, then moves that give nothing away, then the rest.
        let (captures, safe, rest) = game.split_moves(state, free);
        'moves: for group in [captures, safe, rest] {
            let mut left = group;
            while left != 0 {
                let e = left.trailing_zeros();
                left &= left - 1;
                let child = state | 1 << e;
                let closed = game.closed_by(child, e);
                let v = if closed > 0 {
                    closed + self.search(game, child, alpha - closed, beta - closed)
                } else {
                    -self.search(game, child, -beta, -alpha)
                };
                if v > best {
                    best = v;
                    if v > alpha {
                        alpha = v;
                        if alpha >= beta {
                            break 'moves;
                        }
                    }
                }
            }
        }
        // What the search proved: the value if inside the window, else a
        // bound.
        let (lower, upper) = if best <= alpha0 {
            (-127, best)
        } else if best >= beta0 {
            (best, 127)
        } else {
            (best, best)
        };
        let mut entry = Entry {
            tag: key + 1,
            lower: lower.clamp(-127, 127) as i8,
            upper: upper.clamp(-127, 127) as i8,
        };
        // Bounds already known of the same state narrow the new ones.
        if e.tag == key + 1 {
            entry.lower = entry.lower.max(e.lower);
            entry.upper = entry.upper.min(e.upper);
        }
        self.table[at] = entry;
        best
    }
}

impl DotsAndBoxes {
    /// The boxes that drawing edge `e` (drawn in `state`) completes.
    fn closed_by(&self, state: u64, e: u32) -> i32 {
        self.beside[e as usize]
            .iter()
            .filter(|&&b| state & b == b)
            .count() as i32
    }

    /// The undrawn edges `free` of `state`, as three masks: those that
    /// complete a box, those after which no box has three sides drawn
    /// (nothing given away), and the rest.
    fn split_moves(&self, state: u64, free: u64) -> (u64, u64, u64) {
        let (mut captures, mut safe, mut rest) = (0, 0, 0);
        let mut left = free;
        while left != 0 {
            let e = left.trailing_zeros();
            left &= left - 1;
            let child = state | 1 << e;
            let beside = &self.beside[e as usize];
            if beside.iter().any(|&b| b & !child == 0) {
                captures |= 1 << e;
            } else if beside.iter().all(|&b| (child & b).count_ones() < 3) {
                safe |= 1 << e;
            } else {
                rest |= 1 << e;
            }
        }
        (captures, safe, rest)
    }
}

impl BookGame for DotsAndBoxes {
    type Searcher = Solver;

    /// Entries are 16 bytes: the table has half as many entries as the
    /// words asked for.
    fn table_bits_range(&self) -> std::ops::RangeInclusive<u32> {
        11..=31
    }

    fn searchers(&self, n: usize, table_bits: u32) -> Result<Vec<Solver>, BookError> {
        if !self.table_bits_range().contains(&table_bits) {
            return Err(BookError::Searcher(format!(
                "a table of 2^{table_bits} words: the size must be 2^11 to 2^31 words"
            )));
        }
        Ok((0..n.max(1)).map(|_| Solver::new(table_bits - 1)).collect())
    }

    fn count_nodes(&self, solver: &mut Solver, counter: Arc<AtomicU64>) {
        solver.set_node_counter(Some(counter));
    }

    fn search(&self, solver: &mut Solver, state: u64) -> Value {
        Value {
            net: solver.value(self, state),
            remoteness: (self.all() & !state).count_ones(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::NoProgress;

    /// The table's value of every reachable edge set against the search's,
    /// on a sample of each number of drawn edges.
    fn search_agrees_with_the_table(variant: &str, per_layer: usize) {
        let game = DotsAndBoxes::from_variant(variant).unwrap();
        let table = crate::solve::dense::solve_dense(&game, &NoProgress).unwrap();
        let mut solver = Solver::new(20);
        let edges = game.edge_count();
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut checked = 0;
        for drawn in 0..=edges {
            for _ in 0..per_layer {
                // A random set of `drawn` edges.
                let mut state = 0u64;
                while state.count_ones() < drawn {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    state |= 1 << (seed % u64::from(edges));
                }
                let want = i32::from(table.values()[state as usize]);
                assert_eq!(
                    solver.value(&game, state),
                    want,
                    "{variant}: {}",
                    game.format_position(state)
                );
                checked += 1;
            }
        }
        assert!(checked > 0);
    }

    #[test]
    fn search_agrees_with_the_table_on_small_boards() {
        search_agrees_with_the_table("2x2", 8);
        search_agrees_with_the_table("2x3", 40);
        search_agrees_with_the_table("2x4", 40);
        // 2,500 positions of the standard board.
        search_agrees_with_the_table("3x3", 100);
    }

    #[test]
    fn the_empty_boards_have_their_published_values() {
        let mut solver = Solver::new(20);
        // 3x3: a win by 3 boxes for the second player.
        let game = DotsAndBoxes::from_variant("3x3").unwrap();
        assert_eq!(solver.value(&game, 0), -3);
    }
}
