//! One search: the narrowing of the score at the root by null-window
//! searches, and alpha-beta negamax below it.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use super::book_scores::BookScores;
use super::ordering::{best_first, centre_first, jitter_hash, move_order, Child};
use super::pool::{helpers_allowed, Escalation};
use super::settle::{claimeven_bound, settle, SHALLOW};
use super::table::Table;
use super::{NODE_REPORT, STOP_CHECK};
use crate::core::Cancel;
use crate::games::connect_four::bits::{self, Geometry};

/// A position to solve and how: its bitboards, the window the score is
/// wanted in (`None`: the exact score), and a first guess of the score.
#[derive(Clone, Copy)]
pub(super) struct Root {
    pub(super) current: u64,
    pub(super) mask: u64,
    pub(super) moves: i32,
    pub(super) window: Option<(i32, i32)>,
    pub(super) guess: Option<i32>,
}

/// The nodes after which a parallel search starts its helpers (a few
/// milliseconds), on a table mapped for writing first (see
/// `Table::populate`: 32 MiB while the table has not grown, a few
/// milliseconds too); at once on a table mapped before.
const LONG_SEARCH: u64 = 1 << 14;

/// A search grows its table (four times as large, see [`Table::grow`])
/// once it has run a sixteenth as many nodes as the table has entries: a
/// 32 MiB table after 2^18 nodes, 128 MiB after 2^20, 512 MiB after 2^22
/// (about a second). Mapping the table costs in proportion to its size
/// (0.2 s for 512 MiB), which only a search that long repays.
const GROW_SHIFT: u32 = 4;

/// Positions with more empty cells than this read the table's bounds on
/// their children before searching them (enhanced transposition cutoffs).
/// Nearer the end the extra probes cost more than they save: measured on
/// the hard benchmark sets, 12 and 10 did best, 8 and 16 a few percent
/// worse, 20 and more 10% worse.
const ETC: i32 = 12;

/// One search: the geometry, the table, the book and a node counter.
pub(super) struct Search<'t, G: Geometry> {
    g: G,
    table: &'t mut Table,
    nodes: u64,
    /// Column order for move ordering (centre first).
    order: [u32; 16],
    /// The book, and the most stones of its positions (-1 without one).
    book: Option<&'t BookScores>,
    book_depth: i32,
    /// Where the nodes are reported as the search goes.
    counter: Option<&'t AtomicU64>,
    /// What stops the search, looked at every [`STOP_CHECK`] nodes.
    cancel: Option<&'t Cancel>,
    /// Set once `cancel` is seen set: every node returns at once, and
    /// nothing more is stored.
    stopped: bool,
    /// Stops the search too: set when another thread of a parallel search
    /// has finished.
    pub(super) halt: Option<&'t AtomicBool>,
    /// A helper stops when its pool's searches under way (the count, of
    /// the pool's threads) leave fewer helpers than its index plus one.
    pub(super) recall: Option<(&'t AtomicUsize, usize, usize)>,
    /// The main search of a parallel one starts its helpers through this
    /// once it has run [`LONG_SEARCH`] nodes and its pool (the count of
    /// its searches under way, and its threads) leaves a helper a thread.
    pub(super) escalate: Option<(&'t Escalation, Option<(&'t AtomicUsize, usize)>)>,
    /// A helper's seed for shuffling its move order (0: no shuffling), and
    /// the number of stones below which it shuffles.
    pub(super) jitter: u64,
    pub(super) jitter_until: i32,
}

impl<'t, G: Geometry> Search<'t, G> {
    pub(super) fn new(
        g: G,
        table: &'t mut Table,
        book: Option<&'t BookScores>,
        counter: Option<&'t AtomicU64>,
        cancel: Option<&'t Cancel>,
    ) -> Self {
        Search {
            g,
            table,
            nodes: 0,
            order: centre_first(g.width()),
            book,
            book_depth: book.map_or(-1, |b| b.depth() as i32),
            counter,
            cancel,
            stopped: false,
            halt: None,
            escalate: None,
            recall: None,
            jitter: 0,
            jitter_until: 0,
        }
    }

    /// Every [`STOP_CHECK`] nodes: reports the nodes (every
    /// [`NODE_REPORT`]) and looks at the cancel flag. True when the search
    /// is to stop.
    #[cold]
    #[inline(never)]
    fn checkpoint(&mut self) -> bool {
        if self.nodes.is_multiple_of(NODE_REPORT) {
            if let Some(c) = self.counter {
                c.fetch_add(NODE_REPORT, Ordering::Relaxed);
            }
        }
        // The table may have grown through another handle.
        self.table.refresh();
        if self.nodes >= 1 << (self.table.bits_now() - GROW_SHIFT) && !self.table.is_full_size() {
            self.table.grow();
        }
        if self.nodes >= LONG_SEARCH {
            if let Some((e, pool)) = self.escalate {
                // Mapped before any helper runs (see `Table::populate`),
                // and before the pool's other searches fault its pages in
                // one by one.
                self.table.populate();
                // Helpers start only when one may run.
                if pool.is_none_or(|(busy, threads)| {
                    helpers_allowed(threads, busy.load(Ordering::Relaxed)) > 0
                }) {
                    e.start();
                    self.escalate = None;
                }
            }
        }
        if self.cancel.is_some_and(Cancel::is_cancelled)
            || self.halt.is_some_and(|h| h.load(Ordering::Relaxed))
            || self.recall.is_some_and(|(busy, threads, i)| {
                helpers_allowed(threads, busy.load(Ordering::Relaxed)) <= i
            })
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// The score of a position whose side to move cannot win at once and
    /// which is not full. Null-window searches narrow `[min, max]` until it
    /// is one value; each probe is biased towards 0 while the interval
    /// straddles it, because most positions are close to a draw and probes
    /// near the true score are the cheap ones. With a window the interval
    /// starts as its intersection with the window (`[-1, 1]` decides only
    /// the sign).
    ///
    /// With a `guess`, the first probe tests the guess, and the next ones
    /// move away from it in steps that double (1, 2, 4, ...) until the
    /// score is bracketed; then the usual narrowing goes on.
    pub(super) fn root(self, root: Root) -> (i32, u64, bool) {
        let counter = self.counter;
        let ended = self.root_search(root);
        // The checkpoints reported whole steps of NODE_REPORT: the rest
        // now, so that the counter holds every node of every search (most
        // are shorter than one step).
        if let Some(c) = counter {
            c.fetch_add(ended.1 % NODE_REPORT, Ordering::Relaxed);
        }
        ended
    }

    /// [`Search::root`]'s search.
    fn root_search(mut self, root: Root) -> (i32, u64, bool) {
        let Root {
            current,
            mask,
            moves,
            window,
            guess,
        } = root;
        let cells = self.g.cells();
        let (mut min, mut max) = (-(cells - moves) / 2, (cells + 1 - moves) / 2);
        if let Some((lo, hi)) = window {
            min = min.max(lo);
            max = max.min(hi);
        }
        // What earlier searches proved of the position (of its moves'
        // positions, after a search of the position itself).
        let k = bits::key(self.g, current, mask);
        if let Some((lo, hi)) = self.table.get(k.min(self.g.mirror(k))) {
            let (lo, hi) = match window {
                Some((a, b)) => (lo.clamp(a, b), hi.clamp(a, b)),
                None => (lo, hi),
            };
            min = min.max(lo);
            max = max.min(hi);
        }
        // A guess is tried only while the score is open: the table may
        // already pin it (`min == max`), and a window may rule it out.
        if let Some(g) = guess.filter(|_| min < max) {
            // `up`: which way the last probe moved the interval.
            let mut med = g.clamp(min, max - 1);
            let mut step = 1;
            let mut last_up: Option<bool> = None;
            while min < max {
                let r = self.negamax(current, mask, moves, med, med + 1);
                if self.stopped {
                    return (0, self.nodes, true);
                }
                let up = r > med;
                if up {
                    min = r;
                } else {
                    max = r;
                }
                if last_up.is_some_and(|l| l != up) {
                    // Bracketed: narrow as usual.
                    break;
                }
                last_up = Some(up);
                if min >= max {
                    break;
                }
                med = if up {
                    (min + step - 1).min(max - 1)
                } else {
                    (max - step).max(min)
                };
                step *= 2;
            }
        }
        while min < max {
            let mut med = min + (max - min) / 2;
            if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            let r = self.negamax(current, mask, moves, med, med + 1);
            if self.stopped {
                return (0, self.nodes, true);
            }
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        (min, self.nodes, false)
    }

    /// Alpha-beta negamax on a position where the side to move cannot win
    /// at once (every caller makes sure). Returns a value `v` with the
    /// usual contract: the score if `alpha < v < beta`; an upper bound on
    /// it if `v <= alpha`; a lower bound if `v >= beta`.
    ///
    /// Before it searches any move, it looks at every child statically
    /// ([`settle`]): replies that are forced are played out without
    /// a node, positions that are lost at once or bounded by the second
    /// player's claimeven strategy are scored, and far from the end the
    /// table's bounds on the children are read. What that proves tightens
    /// the window, and the children it settles are not searched.
    fn negamax(
        &mut self,
        current: u64,
        mask: u64,
        moves: i32,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        debug_assert!(alpha < beta);
        self.nodes += 1;
        if self.nodes.is_multiple_of(STOP_CHECK) && self.checkpoint() {
            return 0;
        }
        let g = self.g;
        let cells = g.cells();
        let opponent = current ^ mask;
        let opp_win = bits::winning_cells(g, opponent, mask);
        let next = bits::non_losing_from(g, mask, opp_win);
        if next == 0 {
            // Every move lets the opponent complete a four with its next
            // stone, from a position of `moves + 1` stones.
            return -(cells - moves) / 2;
        }
        if moves >= cells - 2 {
            // Two cells left, neither side can win with them.
            return 0;
        }
        // The opponent cannot win with its next stone (we avoid that), so
        // it wins at best with the one after.
        let lowest = -(cells - 2 - moves) / 2;
        // We cannot win with this stone, at best with the next one.
        let mut highest = (cells - 1 - moves) / 2;
        if moves % 2 == 0 && g.height().is_multiple_of(2) {
            highest = highest.min(claimeven_bound(g, current, mask));
        }
        if !bits::has_four(g, current | (g.board() ^ mask)) {
            // No four of ours fits in the empty cells any more.
            highest = highest.min(0);
        }
        if alpha < lowest {
            alpha = lowest;
            if alpha >= beta {
                return alpha;
            }
        }
        if beta > highest {
            beta = highest;
            if alpha >= beta {
                return beta;
            }
        }
        if moves <= self.book_depth {
            // Within the book's depth: its exact score, if it holds the
            // position (an exact score satisfies any window).
            let k = bits::key(g, current, mask);
            if let Some(score) = self.book.and_then(|b| b.score(k.min(g.mirror(k)))) {
                return score;
            }
        }
        let use_table = cells - moves > SHALLOW;
        let key = if use_table {
            let k = bits::key(g, current, mask);
            let k = k.min(g.mirror(k));
            self.table.prefetch(k);
            k
        } else {
            0
        };
        let alpha_in = alpha;

        // The static look at every move, centre first.
        let mut list = [Child::EMPTY; 16];
        let mut n = 0;
        let playable = bits::playable(g, mask);
        let order = self.order;
        let jitter = if moves < self.jitter_until {
            jitter_hash(current, mask, self.jitter)
        } else {
            0
        };
        for &c in &order[..g.width() as usize] {
            let mv = next & g.column(c);
            if mv == 0 {
                continue;
            }
            let ours = bits::winning_cells(g, current | mv, mask | mv);
            let theirs = opp_win & !mv;
            let s = settle(g, self.table, opponent, mask | mv, moves + 1, ours);
            // The child's bounds, from our side.
            let (lo, hi) = (-s.hi, -s.lo);
            if lo > alpha {
                alpha = lo;
                if alpha >= beta {
                    return alpha;
                }
            }
            if s.node.is_none() {
                // Settled exactly.
                continue;
            }
            if hi <= alpha {
                continue;
            }
            list[n] = Child {
                node: s.node,
                lo,
                hi,
                order: move_order(ours, theirs, playable, mv, c, jitter),
            };
            n += 1;
        }
        // No move leaves the opponent without a reply to a win (that child
        // would have settled at `highest` and cut): our next stone but one
        // cannot win either, at best the one after.
        let third = (cells - 3 - moves) / 2;
        if beta > third {
            beta = third;
            if alpha >= beta {
                return beta;
            }
        }
        if n == 0 {
            return alpha;
        }

        if use_table {
            if let Some((lo, hi)) = self.table.get(key) {
                if lo > alpha {
                    alpha = lo;
                    if alpha >= beta {
                        return alpha;
                    }
                }
                if hi < beta {
                    beta = hi;
                    if alpha >= beta {
                        return beta;
                    }
                }
            }
        }

        // Enhanced transposition cutoff: far from the end, where a subtree
        // is worth a probe, the table's bounds on the children (their slots
        // were fetched by `settle`).
        if cells - moves > ETC {
            for ch in &mut list[..n] {
                let node = ch.node.as_ref().expect("listed children have nodes");
                if cells - node.moves <= SHALLOW {
                    continue;
                }
                if let Some((lo, hi)) = self.table.get(node.key) {
                    let (lo, hi) = if node.flip { (lo, hi) } else { (-hi, -lo) };
                    ch.lo = ch.lo.max(lo);
                    ch.hi = ch.hi.min(hi);
                    if ch.lo > alpha {
                        alpha = ch.lo;
                        if alpha >= beta {
                            if use_table {
                                self.table.put(key, alpha, highest, cells - moves);
                            }
                            return alpha;
                        }
                    }
                }
            }
        }

        // Best first; ties keep the centre-first order.
        best_first(&mut list[..n]);
        for ch in &list[..n] {
            if ch.hi <= alpha || ch.lo >= ch.hi {
                // Cannot beat alpha, or settled by the table.
                continue;
            }
            let node = ch.node.as_ref().expect("listed children have nodes");
            let score = if node.flip {
                self.negamax(node.current, node.mask, node.moves, alpha, beta)
            } else {
                -self.negamax(node.current, node.mask, node.moves, -beta, -alpha)
            };
            if self.stopped {
                // Unwinding: what this node saw proves nothing.
                return 0;
            }
            if score >= beta {
                if use_table {
                    self.table.put(key, score, highest, cells - moves);
                }
                return score;
            }
            if score > alpha {
                alpha = score;
            }
        }
        if use_table {
            // Every raise of alpha was a lower bound on the score.
            let lower = if alpha > alpha_in { alpha } else { lowest };
            self.table.put(key, lower, alpha, cells - moves);
        }
        alpha
    }
}
