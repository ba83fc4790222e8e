//! The exact value of a Dots and Boxes position by search, position by
//! position and without the table (the game's side of [`BookGame`]).
//!
//! The value of a set of edges `s` is
//! `max over undrawn e of  boxes(e) + v(s + e)` when `e` closes a box (the
//! mover moves again) and `-v(s + e)` otherwise, and `v(all) = 0`: the net
//! boxes for the side to move, over the drawn edges alone (the boxes taken
//! so far do not change the rest of the game).
//!
//! The search is alpha-beta with these, each checked against the tables:
//!
//! * **Free captures.** An edge that completes every box beside it (a box
//!   whose last edge is on the border, or two boxes sharing their last
//!   edge) changes nothing else: it commutes with every other move, so
//!   drawing it at once is as good as anything.
//! * **Captures or the double-deal.** While some box `C` can be taken by
//!   its last edge `s`, a move that takes no box is worse than `s` itself
//!   (`s` first, then the same move, reaches the same position one box
//!   up), unless it is the other free edge `t` of the box beside `C` when
//!   that box has exactly two: the double-dealing move that hands `C` and
//!   its neighbour over. So only captures and that move are searched; and
//!   not even that move when the box across `t` has one other free edge,
//!   since `t` then hands over a third box (taking `C` first and dealing
//!   one box further along is better by two).
//! * **Independent chains and loops** (`search/chains.rs`): one opening of each
//!   kind is searched, and a position made of nothing else is valued
//!   without a search.
//! * **A table of two bounds** (`search/table.rs`) keyed by the canonical edge set:
//!   the least image under the board's symmetries, after the border edges
//!   of each box are made interchangeable (a corner box with one border
//!   edge drawn is the same position whichever of its two it is). Each
//!   entry keeps the best move found, which is searched first the next
//!   time.
//! * **Move order:** the table's move, captures, moves that give nothing
//!   away, then the rest; outside captures, the edges nearest the centre
//!   first (on 3x4 this alone searches a fifth of the nodes of edge order).
//! * Nodes with few free edges skip the table: searching them again costs
//!   less than the cache miss of a probe.
//! * **Narrowing windows** at the root: null-window tests, each a yes or no
//!   on `value >= t`, stepping by two (the value has the parity of the
//!   boxes left) from a guess.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

mod chains;
mod table;

use super::DotsAndBoxes;
use crate::core::{Cancel, Game, Value};
use crate::solve::book::{BookError, BookGame};
use crate::solve::memory::TableError;
use chains::{simple_endgame_value, Counts, LOOP};
use table::{Entry, Table, NO_MOVE};

/// No box: the border, beside an edge.
const BORDER: u8 = u8::MAX;

/// The board as the search reads it.
#[derive(Clone)]
struct Board {
    /// Every edge.
    all: u64,
    /// Per box: its four edges.
    boxes: Vec<u64>,
    /// Per edge: the boxes beside it (a border edge has one).
    beside: Vec<[u8; 2]>,
    /// Per box with two or more border edges: those edges, and for each
    /// count `k` of them drawn, the `k` that stand for any `k` of them.
    border: Vec<(u64, [u64; 4])>,
    /// The boxes with exactly two border edges, as those two edges (lower
    /// first), normalised apart from `border`, which holds the others.
    pairs: Vec<(u32, u32)>,
    /// Per symmetry, per byte of a key, per byte value: the image of those
    /// edges.
    tables: Vec<Vec<[u64; 256]>>,
    /// Per symmetry: the edge each edge's image comes from (the inverse).
    inverse: Vec<Vec<u8>>,
    /// Per symmetry: the image of each edge.
    perms: Vec<Vec<u8>>,
    /// Per edge: its rank by distance from the centre of the board (0
    /// nearest): moves near the centre are tried first.
    centrality: Vec<u8>,
}

impl Board {
    fn new(game: &DotsAndBoxes) -> Board {
        let edges = game.edges as usize;
        let boxes = game.boxes.clone();
        let mut beside = vec![[BORDER; 2]; edges];
        for (b, &mask) in boxes.iter().enumerate() {
            let mut m = mask;
            while m != 0 {
                let e = m.trailing_zeros() as usize;
                m &= m - 1;
                let slot = if beside[e][0] == BORDER { 0 } else { 1 };
                beside[e][slot] = b as u8;
            }
        }
        let border: Vec<(u64, [u64; 4])> = boxes
            .iter()
            .filter_map(|&mask| {
                let own = (0..edges)
                    .filter(|&e| mask >> e & 1 != 0 && beside[e][1] == BORDER)
                    .fold(0u64, |m, e| m | 1 << e);
                if own.count_ones() < 2 {
                    return None;
                }
                let mut prefix = [0u64; 4];
                let mut m = own;
                for k in 1..4 {
                    if m != 0 {
                        prefix[k] = prefix[k - 1] | (m & m.wrapping_neg());
                        m &= m - 1;
                    } else {
                        prefix[k] = prefix[k - 1];
                    }
                }
                Some((own, prefix))
            })
            .collect();
        let (pairs, border): (Vec<_>, Vec<_>) = border
            .into_iter()
            .partition(|(own, _)| own.count_ones() == 2);
        let pairs = pairs
            .into_iter()
            .map(|(own, _)| (own.trailing_zeros(), 63 - own.leading_zeros()))
            .collect();
        let perms: Vec<Vec<u8>> = game
            .perms
            .iter()
            .map(|p| p.iter().map(|&e| e as u8).collect())
            .collect();
        let inverse = perms
            .iter()
            .map(|p| {
                let mut inv = vec![0u8; edges];
                for (e, &image) in p.iter().enumerate() {
                    inv[image as usize] = e as u8;
                }
                inv
            })
            .collect();
        // Twice the coordinates of each edge's midpoint, against twice the
        // centre's.
        let (rows, cols) = (game.rows as i64, game.cols as i64);
        let h = (rows + 1) * cols;
        let distance = |e: i64| {
            let (y, x) = if e < h {
                (2 * (e / cols), 2 * (e % cols) + 1)
            } else {
                let v = e - h;
                (2 * (v / (cols + 1)) + 1, 2 * (v % (cols + 1)))
            };
            (y - rows).pow(2) + (x - cols).pow(2)
        };
        let mut by_distance: Vec<i64> = (0..edges as i64).collect();
        by_distance.sort_by_key(|&e| (distance(e), e));
        let mut centrality = vec![0u8; edges];
        for (rank, &e) in by_distance.iter().enumerate() {
            centrality[e as usize] = rank as u8;
        }
        Board {
            centrality,
            all: game.all(),
            boxes,
            beside,
            border,
            pairs,
            tables: game.tables.clone(),
            inverse,
            perms,
        }
    }

    /// `state` with each box's drawn border edges replaced by the first
    /// ones of its border (the same strings to the ground).
    fn normalise(&self, mut state: u64) -> u64 {
        // Two border edges (the corners of boards of two rows or more): one
        // drawn becomes the lower one.
        for &(lo, hi) in &self.pairs {
            let one = (state >> lo ^ state >> hi) & 1;
            state = (state | one << lo) & !(one << hi);
        }
        for &(own, prefix) in &self.border {
            let k = (state & own).count_ones() as usize;
            state = state & !own | prefix[k];
        }
        state
    }

    fn transform(&self, state: u64, sym: usize) -> u64 {
        self.tables[sym]
            .iter()
            .enumerate()
            .fold(0, |acc, (byte, t)| {
                acc | t[(state >> (8 * byte)) as usize & 0xFF]
            })
    }

    /// The key of `state` in the table and the symmetry that gives it: the
    /// least normalised image.
    fn key(&self, state: u64) -> (u64, usize) {
        let mut best = (self.normalise(state), 0);
        for sym in 1..self.tables.len() {
            let k = self.normalise(self.transform(state, sym));
            if k < best.0 {
                best = (k, sym);
            }
        }
        best
    }

    /// The boxes that drawing `e` completes (it is drawn in `state`).
    fn closed_by(&self, state: u64, e: u32) -> i32 {
        self.beside[e as usize]
            .iter()
            .filter(|&&b| b != BORDER && self.boxes[usize::from(b)] & !state == 0)
            .count() as i32
    }

    /// The boxes not yet complete.
    fn open_boxes(&self, state: u64) -> i32 {
        self.boxes.iter().filter(|&&b| b & !state != 0).count() as i32
    }

    /// One pass over the boxes of `state`: what [`Scan`] holds. It stops
    /// at the first free capture, which the search draws at once.
    fn scan(&self, state: u64) -> Scan {
        let mut scan = Scan {
            open: 0,
            free_capture: None,
            captures: 0,
            deal: !0,
            unsafe_edges: 0,
            two: 0,
            junctions: false,
        };
        for (b, &mask) in self.boxes.iter().enumerate() {
            let f = mask & !state;
            match f.count_ones() {
                0 => continue,
                1 => {
                    let s = f.trailing_zeros();
                    let [x, y] = self.beside[s as usize];
                    let other = if usize::from(x) == b { y } else { x };
                    let of = if other == BORDER {
                        f
                    } else {
                        self.boxes[usize::from(other)] & !state
                    };
                    if of == f {
                        scan.free_capture = Some(s);
                        return scan;
                    }
                    scan.captures |= f;
                    scan.deal &= if of.count_ones() == 2 {
                        self.deal_worth_it(state, of & !f, other)
                    } else {
                        0
                    };
                }
                2 => {
                    scan.unsafe_edges |= f;
                    scan.two |= 1 << b;
                }
                _ => scan.junctions = true,
            }
            scan.open += 1;
        }
        if scan.captures == 0 {
            scan.deal = 0;
        }
        scan.deal &= !scan.captures;
        scan
    }

    /// Appends the edges of `group` to `order[n..]`, nearest the centre
    /// first when `by_centre`; the new length.
    fn list(&self, order: &mut [u8; 64], mut n: usize, group: u64, by_centre: bool) -> usize {
        let from = n;
        let mut left = group;
        while left != 0 {
            order[n] = left.trailing_zeros() as u8;
            n += 1;
            left &= left - 1;
        }
        if by_centre {
            order[from..n].sort_unstable_by_key(|&e| self.centrality[usize::from(e)]);
        }
        n
    }

    /// The independent chains and loops among the boxes `two` (those with
    /// two free edges) of `state`.
    fn chains(&self, state: u64, two: u32) -> Chains {
        let mut chains = Chains {
            edges: 0,
            picks: 0,
            counts: [0; 64],
        };
        let mut seen_kinds = 0u64;
        let mut left = two;
        while left != 0 {
            let first = left & left.wrapping_neg();
            let (mut component, mut frontier) = (first, first);
            left &= !first;
            let (mut edges, mut ground, mut tied) = (0u64, 0, false);
            while frontier != 0 {
                let b = frontier.trailing_zeros() as usize;
                frontier &= frontier - 1;
                let f = self.boxes[b] & !state;
                edges |= f;
                let mut m = f;
                while m != 0 {
                    let [x, y] = self.beside[m.trailing_zeros() as usize];
                    m &= m - 1;
                    let other = if usize::from(x) == b { y } else { x };
                    if other == BORDER {
                        ground += 1;
                    } else if two >> other & 1 == 0 {
                        tied = true;
                    } else if component >> other & 1 == 0 {
                        component |= 1 << other;
                        frontier |= 1 << other;
                        left &= !(1 << other);
                    }
                }
            }
            if tied {
                continue;
            }
            let size = component.count_ones() as usize;
            let kind = if ground == 0 { LOOP + size } else { size };
            chains.edges |= edges;
            chains.counts[kind] += 1;
            if seen_kinds >> kind & 1 == 0 {
                seen_kinds |= 1 << kind;
                // A 2-chain's middle edge (the one not on the border);
                // any edge of the others.
                let mut pick = edges & edges.wrapping_neg();
                if kind == 2 {
                    let mut m = edges;
                    while m != 0 {
                        let e = m.trailing_zeros();
                        m &= m - 1;
                        if self.beside[e as usize][1] != BORDER {
                            pick = 1 << e;
                        }
                    }
                }
                chains.picks |= pick;
            }
        }
        chains
    }

    /// The double-deal `t` (as a mask), or nothing when it is worse than
    /// taking: `t` hands over two boxes, and when the box across `t` has
    /// just one other free edge `u`, that box is handed over too. Taking
    /// the first box and then drawing `u` hands over only two, with the
    /// same edges drawn after the opponent's captures, and a box more for
    /// the mover; unless `u` itself takes a box, which that line would not
    /// leave alone.
    fn deal_worth_it(&self, state: u64, t: u64, y: u8) -> u64 {
        let e = t.trailing_zeros() as usize;
        for &z in &self.beside[e] {
            if z == BORDER || z == y {
                continue;
            }
            let zf = self.boxes[usize::from(z)] & !state;
            if zf.count_ones() != 2 || zf & t == 0 {
                continue;
            }
            let u = zf & !t;
            let takes = self.beside[u.trailing_zeros() as usize]
                .iter()
                .any(|&w| w != BORDER && w != z && self.boxes[usize::from(w)] & !state == u);
            if !takes {
                return 0;
            }
        }
        t
    }
}

/// The independent chains and loops of a state (see [`chains`]).
struct Chains {
    /// The free edges of every independent component.
    edges: u64,
    /// One opening of each kind of independent component: the only ones of
    /// `edges` worth searching.
    picks: u64,
    /// The independent components by kind.
    counts: Counts,
}

/// What one pass over a state's boxes finds.
struct Scan {
    /// Boxes not yet complete.
    open: i32,
    /// An edge that completes every box beside it (the pass stops there).
    free_capture: Option<u32>,
    /// The last free edge of every box that has one.
    captures: u64,
    /// The double-deal worth searching beside the captures, if any.
    deal: u64,
    /// The free edges of boxes with two sides drawn: each gives a box away.
    unsafe_edges: u64,
    /// The boxes with exactly two free edges.
    two: u32,
    /// Whether some box has three or four free edges.
    junctions: bool,
}

/// The nodes a solver counts before it adds them to a shared counter.
const COUNT_EVERY: u64 = 1 << 14;

/// Nodes between two looks at the solver's [`Cancel`].
pub(crate) const STOP_CHECK: u64 = 1 << 12;

/// Nodes with at most this many free edges skip the table.
const SMALL: u32 = 6;

/// A searcher for one board: its transposition table and node counts.
pub struct Solver {
    board: Board,
    table: Table,
    nodes: u64,
    counted: u64,
    counter: Option<Arc<AtomicU64>>,
    /// What stops a search, looked at every [`STOP_CHECK`] nodes.
    cancel: Option<Cancel>,
    /// Set once the cancel flag is seen set: the search unwinds and stores
    /// nothing more.
    stopped: bool,
}

impl Solver {
    /// A solver of `game`'s positions with a table of `2^bits` entries (8
    /// bytes each; at least 4, and at least `2^(edges - 38)` so that an
    /// entry holds what its bucket does not say of the key).
    ///
    /// # Panics
    /// When the allocator refuses the table, as a `Vec` would
    /// ([`Solver::try_new`] fails instead).
    pub fn new(game: &DotsAndBoxes, bits: u32) -> Solver {
        match Solver::try_new(game, bits) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    /// [`Solver::new`], failing when the allocator refuses the table.
    pub(crate) fn try_new(game: &DotsAndBoxes, bits: u32) -> Result<Solver, TableError> {
        Ok(Solver {
            board: Board::new(game),
            table: Table::new(game.edges, bits)?,
            nodes: 0,
            counted: 0,
            counter: None,
            cancel: None,
            stopped: false,
        })
    }

    /// Another solver on the same table, to search at the same time as
    /// this one (on another thread): what one proves, the other uses.
    /// Clearing either clears the table for both.
    pub(crate) fn sharing(&self) -> Solver {
        Solver {
            board: self.board.clone(),
            table: self.table.share(),
            nodes: 0,
            counted: 0,
            counter: self.counter.clone(),
            cancel: self.cancel.clone(),
            stopped: false,
        }
    }

    /// The bytes of the table of a solver of `game` made with `bits`.
    pub(crate) fn table_bytes(game: &DotsAndBoxes, bits: u32) -> u64 {
        Table::bytes(game.edges, bits)
    }

    /// Lets `cancel` stop the searches (or none): once it is set, a search
    /// unwinds within a few thousand nodes and returns a meaningless value
    /// ([`Solver::stopped`] says so). The table keeps only what was proved
    /// before.
    pub(crate) fn set_cancel(&mut self, cancel: Option<Cancel>) {
        self.cancel = cancel;
    }

    /// Empties the table (the next search starts from nothing).
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// The nodes searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Adds this solver's nodes to `counter` as it goes.
    pub(crate) fn set_node_counter(&mut self, counter: Option<Arc<AtomicU64>>) {
        self.counter = counter;
    }

    /// The net boxes for the side to move from the edge set `state`,
    /// exactly.
    pub fn value(&mut self, state: u64) -> i32 {
        self.value_near(state, 0)
    }

    /// [`Solver::value`], testing values from `guess` outwards: exact
    /// whatever the guess, quicker the closer it is.
    pub(crate) fn value_near(&mut self, state: u64, guess: i32) -> i32 {
        self.stopped = false;
        let open = self.board.open_boxes(state);
        // Every value has the parity of the boxes left; bounds that are
        // reached are rounded inwards to it.
        let parity = |v: i32| (v - open).rem_euclid(2) == 0;
        let (mut lo, mut hi) = (-open, open);
        let mut t = guess.clamp(lo, hi);
        if !parity(t) {
            t += 1;
        }
        while lo < hi {
            // Test `value >= t` for some t in (lo, hi] of the right parity.
            t = t.clamp(lo + 1, hi);
            if !parity(t) {
                t = if t < hi { t + 1 } else { t - 1 };
            }
            let r = self.search(state, t - 1, t);
            if self.stopped {
                return 0;
            }
            if r >= t {
                lo = if parity(r) { r } else { r + 1 };
                t = lo + 2;
            } else {
                hi = if parity(r) { r } else { r - 1 };
                t = hi;
            }
        }
        lo
    }

    /// Counts a node; every [`STOP_CHECK`] nodes, looks at the cancel
    /// flag. True when the search is to stop.
    #[inline]
    fn count(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes - self.counted >= COUNT_EVERY {
            if let Some(c) = &self.counter {
                c.fetch_add(self.nodes - self.counted, Ordering::Relaxed);
            }
            self.counted = self.nodes;
        }
        if self.nodes.is_multiple_of(STOP_CHECK)
            && self.cancel.as_ref().is_some_and(Cancel::is_cancelled)
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// The value of `state` if it lies in `(alpha, beta)`; otherwise a
    /// bound on the same side of the window (fail-soft). Once the search
    /// is stopped, a meaningless value at once.
    fn search(&mut self, mut state: u64, alpha: i32, beta: i32) -> i32 {
        if self.count() {
            return 0;
        }
        // Free captures first: they are as good as any move.
        let mut gained = 0;
        loop {
            let scan = self.board.scan(state);
            match scan.free_capture {
                Some(e) => {
                    state |= 1 << e;
                    gained += self.board.closed_by(state, e);
                }
                None => return gained + self.branch(state, &scan, alpha - gained, beta - gained),
            }
        }
    }

    /// [`Solver::search`] of a state without free captures, scanned.
    fn branch(&mut self, state: u64, scan: &Scan, mut alpha: i32, mut beta: i32) -> i32 {
        let board = &self.board;
        let free = board.all & !state;
        if free == 0 {
            return 0;
        }
        let open = scan.open;
        if alpha >= open {
            return open;
        }
        if beta <= -open {
            return -open;
        }
        // The moves worth searching, in order.
        let groups: [u64; 2] = if scan.captures != 0 {
            // One move: nothing to choose, nothing worth keeping.
            let only = scan.captures | scan.deal;
            if only & (only - 1) == 0 {
                let e = only.trailing_zeros();
                let child = state | only;
                let closed = board.closed_by(child, e);
                return if closed > 0 {
                    closed + self.search(child, alpha - closed, beta - closed)
                } else {
                    -self.search(child, -beta, -alpha)
                };
            }
            [scan.captures, scan.deal]
        } else if !scan.junctions {
            // Every box left has two free edges: a simple endgame.
            if let Some(v) = simple_endgame_value(&board.chains(state, scan.two).counts) {
                return v;
            }
            [0, free]
        } else {
            [free & !scan.unsafe_edges, free & scan.unsafe_edges]
        };
        // Small subtrees are searched again rather than looked up: a probe
        // is a cache miss.
        let use_table = free.count_ones() > SMALL;
        let (key, sym) = if use_table { board.key(state) } else { (0, 0) };
        let place = use_table.then(|| self.table.place(key));
        // The table's move, then each group; outside the captures, the
        // moves nearest the centre first. The second group is listed only
        // when it is reached (most nodes cut off before). `order[0]` is
        // kept for the table's move.
        let by_centre = scan.captures == 0;
        let mut order = [0u8; 64];
        let mut n = self.board.list(&mut order, 1, groups[0], by_centre);
        let known = place.and_then(|p| self.table.probe(p));
        let mut hint = None;
        if let Some(e) = known {
            let (lo, hi) = (e.lower, e.upper);
            if lo == hi || lo >= beta {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
            if e.best != NO_MOVE {
                hint = Some(board.inverse[sym][usize::from(e.best)]);
            }
        }
        let hint = hint.filter(|&e| (groups[0] | groups[1]) >> e & 1 != 0);
        let (alpha0, beta0) = (alpha, beta);
        let mut best = i32::MIN;
        let mut best_move = NO_MOVE;
        let mut next = match hint {
            Some(e) => {
                order[0] = e;
                0
            }
            None => 1,
        };
        let mut second = groups[1] & !hint.map_or(0, |e| 1u64 << e);
        loop {
            if next == n {
                if second == 0 {
                    break;
                }
                if scan.captures == 0 && scan.two != 0 {
                    // One opening of each kind of independent chain or loop.
                    let chains = self.board.chains(state, scan.two);
                    second &= !chains.edges | chains.picks;
                }
                n = self.board.list(&mut order, n, second, by_centre);
                second = 0;
                continue;
            }
            let e = order[next];
            next += 1;
            if next > 1 && Some(e) == hint {
                continue;
            }
            let e = u32::from(e);
            let child = state | 1 << e;
            let closed = self.board.closed_by(child, e);
            let v = if closed > 0 {
                closed + self.search(child, alpha - closed, beta - closed)
            } else {
                -self.search(child, -beta, -alpha)
            };
            if self.stopped {
                // Unwinding: what this node saw proves nothing.
                return 0;
            }
            if v > best {
                best = v;
                best_move = e as u8;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        // What the search proved: the value if inside the window, else a
        // bound.
        let (mut lower, mut upper) = if best <= alpha0 {
            (-open, best)
        } else if best >= beta0 {
            (best, open)
        } else {
            (best, best)
        };
        let Some(place) = place else {
            return best;
        };
        // Bounds already known of the same state narrow the new ones.
        if let Some(old) = known {
            lower = lower.max(old.lower);
            upper = upper.min(old.upper);
        }
        let best_move = if best <= alpha0 {
            NO_MOVE
        } else {
            self.board.perms[sym][usize::from(best_move)]
        };
        self.table.store(
            place,
            Entry {
                lower,
                upper,
                best: best_move,
                free: free.count_ones(),
            },
        );
        best
    }
}

impl BookGame for DotsAndBoxes {
    type Searcher = Solver;

    /// Entries are one word: one table of `2^table_bits` words, shared by
    /// the searchers (boards of more than 48 edges need at least
    /// `2^(edges - 38)` words).
    fn table_bits_range(&self) -> std::ops::RangeInclusive<u32> {
        11..=34
    }

    fn searchers(&self, n: usize, table_bits: u32) -> Result<Vec<Solver>, BookError> {
        let range = self.table_bits_range();
        if !range.contains(&table_bits) {
            return Err(TableError::OutOfRange {
                bits: table_bits,
                game: format!("{} {}", self.descriptor().name, self.descriptor().variant),
                min: *range.start(),
                max: *range.end(),
            }
            .into());
        }
        let first = Solver::try_new(self, table_bits)?;
        let mut all: Vec<Solver> = (1..n.max(1)).map(|_| first.sharing()).collect();
        all.push(first);
        Ok(all)
    }

    fn table_bytes(&self, _n: usize, table_bits: u32) -> u64 {
        Solver::table_bytes(self, table_bits)
    }

    /// What one search was measured to need, times the searchers (which
    /// share the table and search at once): 2^29 words for the starts of
    /// 36 edges or more (3x5 and 4x4 take six minutes with it, several
    /// times longer with 2^26), 2^26 up to 35, and 2^22 on the boards of
    /// the tables (the 3x4 start needs no more).
    fn wanted_table_bits(&self, n: usize) -> u32 {
        let each = match self.edges {
            36.. => 29,
            33..=35 => 26,
            _ => 22,
        };
        each + n.max(1).next_power_of_two().trailing_zeros()
    }

    /// One table, shared.
    fn shares_tables(&self) -> bool {
        true
    }

    fn set_cancel(&self, solver: &mut Solver, cancel: Option<Cancel>) {
        solver.set_cancel(cancel);
    }

    fn count_nodes(&self, solver: &mut Solver, counter: Arc<AtomicU64>) {
        solver.set_node_counter(Some(counter));
    }

    fn search(&self, solver: &mut Solver, state: u64) -> Value {
        Value {
            net: solver.value(state),
            remoteness: (self.all() & !state).count_ones(),
        }
    }

    fn search_near(&self, solver: &mut Solver, state: u64, hint: Value) -> Value {
        Value {
            net: solver.value_near(state, hint.net),
            remoteness: (self.all() & !state).count_ones(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Game, NoProgress};

    /// A random set of `drawn` of the board's edges.
    fn random_state(seed: &mut u64, edges: u32, drawn: u32) -> u64 {
        let mut state = 0u64;
        while state.count_ones() < drawn {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            state |= 1 << (*seed % u64::from(edges));
        }
        state
    }

    /// The table's value of random edge sets against the search's, on a
    /// sample of each number of drawn edges.
    fn search_agrees_with_the_table(variant: &str, per_layer: usize) {
        let game = DotsAndBoxes::from_variant(variant).unwrap();
        let table = crate::solve::dense::solve_dense(&game, &NoProgress).unwrap();
        let mut solver = Solver::new(&game, 18);
        let edges = game.edge_count();
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut checked = 0;
        for drawn in 0..=edges {
            for i in 0..per_layer {
                let state = random_state(&mut seed, edges, drawn);
                let want = i32::from(table.values()[state as usize]);
                // Guesses on both sides of the value and at it.
                let guess = [0, want, -want, 3][i % 4];
                assert_eq!(
                    solver.value_near(state, guess),
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
        search_agrees_with_the_table("1x3", 8);
        search_agrees_with_the_table("2x2", 8);
        search_agrees_with_the_table("2x3", 40);
        search_agrees_with_the_table("2x4", 40);
        search_agrees_with_the_table("3x3", 10);
    }

    #[test]
    fn solvers_sharing_a_table_on_several_threads_stay_exact() {
        // Every key shares its bucket with many (2^12 entries for 2^24
        // states), so the threads' stores meet in the same buckets.
        let game = DotsAndBoxes::from_variant("3x3").unwrap();
        let table = crate::solve::dense::solve_dense(&game, &NoProgress).unwrap();
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let states: Vec<u64> = (0..400)
            .map(|i| random_state(&mut seed, game.edge_count(), 4 + i % 16))
            .collect();
        let first = Solver::new(&game, 12);
        let mut solvers = [first.sharing(), first.sharing(), first];
        std::thread::scope(|scope| {
            for (t, solver) in solvers.iter_mut().enumerate() {
                let (states, table, game) = (&states, &table, &game);
                scope.spawn(move || {
                    // Each thread walks the list from another start.
                    for i in 0..states.len() {
                        let state = states[(i + 130 * t) % states.len()];
                        assert_eq!(
                            solver.value(state),
                            i32::from(table.values()[state as usize]),
                            "{}",
                            game.format_position(state)
                        );
                    }
                });
            }
        });
    }

    #[test]
    fn border_edges_of_a_box_are_interchangeable() {
        let game = DotsAndBoxes::from_variant("3x3").unwrap();
        let board = Board::new(&game);
        // Box (0, 0): top edge 0, left edge 12. One of them drawn is the
        // same position either way; both, or neither, are left alone.
        assert_eq!(board.normalise(1 << 12), board.normalise(1));
        assert_eq!(board.normalise(1 << 12 | 1 << 5), 1 | 1 << 5);
        assert_eq!(board.normalise(1 | 1 << 12), 1 | 1 << 12);
        // An inner edge of a corner box is not a border edge.
        assert_eq!(board.normalise(1 << 3), 1 << 3);
        // 1xN: every box has two or three border edges.
        let strip = DotsAndBoxes::from_variant("1x3").unwrap();
        let strip = Board::new(&strip);
        assert_eq!((strip.pairs.len(), strip.border.len()), (1, 2));
        assert_eq!(strip.normalise(1 << 1), 1 << 1);
        assert_eq!(strip.normalise(1 << 4), 1 << 1);
    }

    #[test]
    fn the_empty_boards_have_their_published_values() {
        // 3x3: a win by 3 boxes for the second player.
        let game = DotsAndBoxes::from_variant("3x3").unwrap();
        assert_eq!(Solver::new(&game, 18).value(0), -3);
    }
}
