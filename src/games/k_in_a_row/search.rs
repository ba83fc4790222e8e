//! The exact solver: negamax with alpha-beta over bitboards, a
//! transposition table keyed by the two bitboards, threat pruning and
//! null-window narrowing at the root; and the game's side of the
//! opening-book builder and the live search ([`BookGame`]).
//!
//! # The number searched
//! For the side to move, the score is `cells + 1 - e` when it wins and
//! the game ends with `e` stones on the board, the negative when it loses,
//! and 0 for a draw. It depends on the stones at the end, not on the ply,
//! so a position's score is exactly the negative of its best child's
//! (plain negamax), and ordering scores orders outcomes and then
//! remoteness as the engine does ([`crate::Value::preference`]): the winner
//! prefers the earlier end, the loser the later.
//!
//! # Pruning, all exact
//! * a move that completes a line ends the search of its node (nothing
//!   scores more);
//! * when the opponent threatens to complete two lines at different cells,
//!   the side to move loses on the next ply; with one threat, blocking it
//!   is the only move that can do better than losing at once;
//! * a player without an open line (one holding none of the other's
//!   stones) cannot win, and a player needing `j` more stones wins no
//!   sooner than its `j`-th move: bounds that narrow the window or cut;
//! * moves are tried best first: the table's move, then by the lines each
//!   cell helps or blocks, weighted by how full they are, and a history of
//!   moves that cut.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::board::{Geometry, Stones};
use super::KInARow;
use crate::core::{Cancel, Value};
use crate::solve::book::{BookError, BookGame};
use crate::solve::memory::{zeroed_words, TableError};

/// Nodes between two reports to a solver's node counter.
const NODE_REPORT: u64 = 1 << 16;

/// Nodes between two looks at the solver's [`Cancel`].
const STOP_CHECK: u64 = 1 << 12;

const _: () = assert!(NODE_REPORT.is_multiple_of(STOP_CHECK));

/// The `log2` of the table entries a solver takes (16 bytes each).
pub(crate) const TABLE_BITS: std::ops::RangeInclusive<u32> = 10..=30;

/// An exact solver with its transposition table.
pub struct Solver {
    geo: Geometry,
    k: u32,
    /// Two words an entry: the low word of the position plus one (0:
    /// empty), and the bounds and best move with the high word above them
    /// ([`Solver::position_words`]).
    table: Box<[u64]>,
    bits: u32,
    /// Per cell, how often a move there cut: the order among equals.
    history: Vec<u32>,
    nodes: u64,
    counter: Option<Arc<AtomicU64>>,
    cancel: Option<Cancel>,
    stopped: bool,
}

/// Bits of a table entry's second word that [`pack`] uses: the high word
/// of the position sits above them.
const DATA_BITS: u32 = 24;

/// Bounds and best move of a table entry, packed: low byte the lower
/// bound, next the upper bound (both as `i8`), then the best cell plus
/// one (0: none).
fn pack(lo: i32, hi: i32, best: Option<u32>) -> u64 {
    u64::from(lo as i8 as u8)
        | u64::from(hi as i8 as u8) << 8
        | u64::from(best.map_or(0, |c| c + 1)) << 16
}

fn unpack(data: u64) -> (i32, i32, Option<u32>) {
    let lo = i32::from(data as u8 as i8);
    let hi = i32::from((data >> 8) as u8 as i8);
    let best = ((data >> 16) as u32 & 0xff).checked_sub(1);
    (lo, hi, best)
}

/// What a node knows of its lines.
struct LineScan {
    /// Cells where the side to move completes a line.
    wins: u64,
    /// Cells where the opponent completes a line.
    threats: u64,
    /// Most stones of the side to move on a line open to it (`None`: no
    /// open line).
    mine: Option<u32>,
    /// The same for the opponent.
    theirs: Option<u32>,
}

impl Solver {
    /// A solver for `game` with a table of `2^bits` entries of 16 bytes
    /// (`bits` in [`TABLE_BITS`]); fails when the allocator refuses it.
    pub(crate) fn new(game: &KInARow, bits: u32) -> Result<Solver, TableError> {
        if !TABLE_BITS.contains(&bits) {
            return Err(TableError::OutOfRange {
                bits,
                game: format!("{} {}", super::NAME, game.variant()),
                min: *TABLE_BITS.start(),
                max: *TABLE_BITS.end(),
            });
        }
        Ok(Solver {
            geo: game.geometry().clone(),
            k: game.variant().k(),
            table: zeroed_words(2usize << bits, bits)?,
            bits,
            history: vec![0; game.geometry().cells() as usize],
            nodes: 0,
            counter: None,
            cancel: None,
            stopped: false,
        })
    }

    /// The bytes of the table of a solver made with `bits`.
    pub(crate) fn table_bytes(bits: u32) -> u64 {
        16u64 << bits
    }

    /// Lets `cancel` stop the searches (or none): once it is set, a search
    /// unwinds within a few thousand nodes and returns a meaningless
    /// answer ([`Solver::stopped`] says so). The table keeps only what was
    /// proved before.
    pub(crate) fn set_cancel(&mut self, cancel: Option<Cancel>) {
        self.cancel = cancel;
    }

    /// Lets searches add their nodes to `counter` while they run.
    pub(crate) fn set_node_counter(&mut self, counter: Option<Arc<AtomicU64>>) {
        self.counter = counter;
    }

    /// The exact score of `s` (see the module documentation); 0 for a
    /// finished position.
    pub(crate) fn solve(&mut self, s: Stones) -> i32 {
        self.stopped = false;
        let cells = self.geo.cells() as i32;
        let (mut lo, mut hi) = (-(cells + 1), cells + 1);
        // Null windows, the first ones around a draw (most positions of
        // the larger boards are draws), then bisection.
        while lo < hi && !self.stopped {
            let mut med = lo + (hi - lo) / 2;
            if med <= 0 && lo / 2 < med {
                med = lo / 2;
            } else if med >= 0 && hi / 2 > med {
                med = hi / 2;
            }
            let r = self.root(s, med, med + 1);
            if r <= med {
                hi = r;
            } else {
                lo = r;
            }
        }
        lo
    }

    /// The sign of `s`'s score: 1 a win, 0 a draw, -1 a loss.
    pub(crate) fn solve_outcome(&mut self, s: Stones) -> i32 {
        self.stopped = false;
        if self.root(s, 0, 1) > 0 {
            return 1;
        }
        if self.root(s, -1, 0) < 0 {
            -1
        } else {
            0
        }
    }

    fn root(&mut self, s: Stones, alpha: i32, beta: i32) -> i32 {
        let (me, opp) = match s.to_move() {
            crate::core::Player::First => (s.x, s.o),
            crate::core::Player::Second => (s.o, s.x),
        };
        if self.geo.has_line(s.x) || self.geo.has_line(s.o) {
            return 0;
        }
        self.negamax(me, opp, s.count(), alpha, beta)
    }

    /// The position where the side to move has `me` and its opponent
    /// `opp` (`n` stones) as two words, exactly: `X`'s stones in the low
    /// `cells` bits of the first, `O`'s above them, and what of `O`'s does
    /// not fit in the second (at most `2 * 49 - 64 = 34` bits, below
    /// `64 - DATA_BITS`).
    #[inline]
    fn position_words(&self, me: u64, opp: u64, n: u32) -> (u64, u64) {
        let (x, o) = if n.is_multiple_of(2) {
            (me, opp)
        } else {
            (opp, me)
        };
        let cells = self.geo.cells();
        let high = if cells > 32 { o >> (64 - cells) } else { 0 };
        (x | o << cells, high)
    }

    fn scan(&self, me: u64, opp: u64, empty: u64) -> LineScan {
        let mut scan = LineScan {
            wins: 0,
            threats: 0,
            mine: None,
            theirs: None,
        };
        let need = self.k - 1;
        for &l in self.geo.lines() {
            let (a, b) = (l & me, l & opp);
            if b == 0 {
                let c = a.count_ones();
                if c == need {
                    scan.wins |= l & empty;
                }
                scan.mine = Some(scan.mine.map_or(c, |m| m.max(c)));
            }
            if a == 0 {
                let c = b.count_ones();
                if c == need {
                    scan.threats |= l & empty;
                }
                scan.theirs = Some(scan.theirs.map_or(c, |m| m.max(c)));
            }
        }
        scan
    }

    /// How promising a move on `cell` looks: the lines through it that it
    /// extends or blocks, more for fuller ones.
    fn move_weight(&self, me: u64, opp: u64, cell: u32) -> u32 {
        let lines = self.geo.lines();
        let mut w = 0;
        for &i in self.geo.lines_through(cell) {
            let l = lines[usize::from(i)];
            let (a, b) = (l & me, l & opp);
            if b == 0 {
                w += 1 << (2 * a.count_ones()).min(24);
            }
            if a == 0 {
                w += 1 << (2 * b.count_ones()).min(24);
            }
        }
        w
    }

    fn slot(&self, low: u64, high: u64) -> usize {
        let h =
            (low ^ high.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> (64 - self.bits)) as usize * 2
    }

    /// The score of the position where the side to move has `me` and its
    /// opponent `opp` (`n` stones, no line on the board), within the
    /// window `(alpha, beta)`: fail-soft.
    fn negamax(&mut self, me: u64, opp: u64, n: u32, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(STOP_CHECK) {
            if self.nodes.is_multiple_of(NODE_REPORT) {
                if let Some(c) = &self.counter {
                    c.fetch_add(NODE_REPORT, Ordering::Relaxed);
                }
            }
            if self.cancel.as_ref().is_some_and(Cancel::is_cancelled) {
                self.stopped = true;
            }
        }
        if self.stopped {
            return 0;
        }
        let cells = self.geo.cells() as i32;
        let empty = self.geo.full() & !(me | opp);
        if empty == 0 {
            return 0;
        }
        let n_i = n as i32;
        let scan = self.scan(me, opp, empty);
        if scan.wins != 0 {
            return cells - n_i;
        }
        if scan.threats.count_ones() >= 2 {
            // Whatever the side to move plays, the opponent completes a line
            // with stone n + 2.
            return -(cells - 1 - n_i);
        }
        if scan.mine.is_none() && scan.theirs.is_none() {
            return 0;
        }
        // The side to move needs at least 2 more stones (no win now): its
        // j-th stone is stone n + 2j - 1. The opponent needs at least 2
        // once a single threat is blocked: its j-th stone is n + 2j. A
        // player without an open line, or whose line cannot be done by
        // the last cell, does not win.
        let k = self.k as i32;
        let mut hi = match scan.mine {
            Some(m) => {
                let end = n_i + 2 * (k - m as i32).max(2) - 1;
                if end > cells {
                    0
                } else {
                    cells + 1 - end
                }
            }
            None => 0,
        };
        let mut lo = match scan.theirs {
            Some(m) => {
                let end = n_i + 2 * (k - m as i32).max(2);
                if end > cells {
                    0
                } else {
                    -(cells + 1 - end)
                }
            }
            None => 0,
        };
        let (low, high) = self.position_words(me, opp, n);
        let slot = self.slot(low, high);
        let mut tt_best = None;
        if self.table[slot] == low.wrapping_add(1) && self.table[slot + 1] >> DATA_BITS == high {
            let (tlo, thi, best) = unpack(self.table[slot + 1]);
            lo = lo.max(tlo);
            hi = hi.min(thi);
            tt_best = best;
        }
        if lo >= hi {
            return lo;
        }
        if hi <= alpha {
            return hi;
        }
        if lo >= beta {
            return lo;
        }
        alpha = alpha.max(lo);
        beta = beta.min(hi);
        let alpha0 = alpha;

        // The moves, best first.
        let mut order: [(u32, u32); 64] = [(0, 0); 64];
        let mut count = 0;
        if scan.threats != 0 {
            order[0] = (scan.threats.trailing_zeros(), 0);
            count = 1;
        } else {
            let mut rest = empty;
            while rest != 0 {
                let cell = rest.trailing_zeros();
                rest &= rest - 1;
                let w = if Some(cell) == tt_best {
                    u32::MAX
                } else {
                    self.move_weight(me, opp, cell)
                        .saturating_mul(64)
                        .saturating_add(self.history[cell as usize].min(63))
                };
                order[count] = (cell, w);
                count += 1;
            }
            order[..count].sort_unstable_by_key(|e| std::cmp::Reverse(e.1));
        }
        let mut best = i32::MIN;
        let mut best_cell = None;
        for &(cell, _) in &order[..count] {
            let bit = 1u64 << cell;
            let v = -self.negamax(opp, me | bit, n + 1, -beta, -alpha);
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_cell = Some(cell);
            }
            if v > alpha {
                alpha = v;
            }
            if alpha >= beta {
                let h = &mut self.history[cell as usize];
                *h = h.saturating_add(1);
                break;
            }
        }
        // Fail-soft: `best` bounds the score from one side or is exact;
        // the known bounds stay.
        let (new_lo, new_hi) = if best <= alpha0 {
            (lo, best.min(hi))
        } else if best >= beta {
            (best.max(lo), hi)
        } else {
            (best, best)
        };
        self.table[slot] = low.wrapping_add(1);
        self.table[slot + 1] = pack(new_lo, new_hi, best_cell) | high << DATA_BITS;
        best
    }
}

/// Each search thread has its own solver and table.
impl BookGame for KInARow {
    type Searcher = Solver;

    /// Entries are 16 bytes: the table has half as many entries as the
    /// words asked for.
    fn table_bits_range(&self) -> std::ops::RangeInclusive<u32> {
        TABLE_BITS.start() + 1..=TABLE_BITS.end() + 1
    }

    /// On a large board, the positions of the most stones that are ranked
    /// (16 on 7x7): deeper ones have only handles.
    fn max_book_depth(&self) -> Option<u32> {
        match self.keys() {
            super::Keys::Base3(_) => None,
            super::Keys::Ranked(r) => Some(r.max_stones()),
        }
    }

    fn searchers(&self, n: usize, table_bits: u32) -> Result<Vec<Solver>, BookError> {
        let mut all = Vec::with_capacity(n.max(1));
        for _ in 0..n.max(1) {
            all.push(Solver::new(self, table_bits.saturating_sub(1))?);
        }
        Ok(all)
    }

    /// One table a searcher.
    fn table_bytes(&self, n: usize, table_bits: u32) -> u64 {
        (n.max(1) as u64).saturating_mul(Solver::table_bytes(table_bits.saturating_sub(1)))
    }

    fn set_cancel(&self, solver: &mut Solver, cancel: Option<Cancel>) {
        solver.set_cancel(cancel);
    }

    fn count_nodes(&self, solver: &mut Solver, counter: Arc<AtomicU64>) {
        solver.set_node_counter(Some(counter));
    }

    fn search(&self, solver: &mut Solver, state: u64) -> Value {
        let s = self.stones(state);
        let score = if self.is_over(s) { 0 } else { solver.solve(s) };
        self.value_of_score(s, score)
    }

    fn search_outcome(&self, solver: &mut Solver, state: u64) -> i32 {
        let s = self.stones(state);
        if self.is_over(s) {
            0
        } else {
            solver.solve_outcome(s)
        }
    }
}
