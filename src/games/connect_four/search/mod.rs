//! The exact solver: negamax with alpha-beta over bitboards, a
//! transposition table keyed by the mirror-canonical key, and null-window
//! searches that narrow the score interval from the root.
//!
//! Scores follow the module convention (see the module documentation): 0
//! for a draw, `(cells + 1 - n) / 2` when the side to move wins with the
//! stone it plays into a position of `n` stones (the sooner the win, the
//! larger), and a loss is the negative of the opponent's win.

mod book;
mod table;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::bits::{self, Geometry, Standard};
use super::board::{Bitboard, Variant};
use crate::core::Cancel;
use crate::solve::memory::TableError;
use table::Table;

/// Exact scores from an opening book, for the search to take at the nodes
/// the book holds instead of searching them: keys sorted for binary search,
/// one byte per score. An 8-ply 7x6 book (about 130,000 positions) takes
/// 1.2 MB.
#[derive(Clone, Debug)]
pub struct BookScores {
    variant: Variant,
    /// The most stones of a position in the book.
    depth: u32,
    keys: Box<[u64]>,
    scores: Box<[i8]>,
}

impl BookScores {
    /// The book of `variant` holding `entries`: (canonical key, exact score
    /// for the side to move) of positions that are not over. Positions the
    /// variant cannot decode are left out.
    pub fn new(variant: Variant, entries: impl IntoIterator<Item = (u64, i32)>) -> BookScores {
        let mut all: Vec<(u64, i8)> = Vec::new();
        let mut depth = 0;
        for (key, score) in entries {
            let Some(p) = Bitboard::from_key(variant, key) else {
                continue;
            };
            let Ok(score) = i8::try_from(score) else {
                continue;
            };
            if p.is_over() || p.canonical_key() != key {
                continue;
            }
            depth = depth.max(p.moves());
            all.push((key, score));
        }
        all.sort_unstable();
        all.dedup_by_key(|e| e.0);
        BookScores {
            variant,
            depth,
            keys: all.iter().map(|e| e.0).collect(),
            scores: all.iter().map(|e| e.1).collect(),
        }
    }

    /// The board the book is for.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The most stones of a position in the book (0 for an empty book).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The number of positions held.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when the book holds nothing.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The exact score of the position whose canonical key is `key`, if
    /// the book holds it.
    #[inline]
    pub fn score(&self, key: u64) -> Option<i32> {
        self.keys
            .binary_search(&key)
            .ok()
            .map(|i| i32::from(self.scores[i]))
    }
}

/// A table size outside the supported range ([`TableError::OutOfRange`]),
/// or one the allocator refused ([`TableError::Alloc`]).
pub type TableSizeError = TableError;

/// An exact Connect Four solver for any [`Variant`].
///
/// It keeps a transposition table between calls (so analysing the columns
/// of one position, or a line of play, reuses earlier work); call
/// [`Solver::clear`] to forget it, e.g. to time positions independently.
/// The table is cleared by itself when a position of another board size
/// comes in.
pub struct Solver {
    table: Table,
    nodes: u64,
    variant: Option<Variant>,
    book: Option<Arc<BookScores>>,
    /// Where a search adds its nodes as it goes, for progress displays.
    counter: Option<Arc<AtomicU64>>,
    /// What stops a search before it ends.
    cancel: Option<Cancel>,
    /// True when the last search was stopped.
    stopped: bool,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new()
    }
}

impl Solver {
    /// `log2` of the default number of table entries: 2^24 entries of 8
    /// bytes, 128 MiB (allocated zeroed, so mapped as it fills).
    pub const DEFAULT_TABLE_BITS: u32 = 24;

    /// A solver with the default table size.
    ///
    /// # Panics
    /// When the allocator refuses the table's 128 MiB (of address space:
    /// the pages are mapped as the table fills), as a `Vec` would.
    pub fn new() -> Solver {
        match Solver::with_table_bits(Solver::DEFAULT_TABLE_BITS) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    /// The `log2` of the table entries [`Solver::with_table_bits`] takes.
    pub const TABLE_BITS: std::ops::RangeInclusive<u32> = table::MIN_BITS..=table::MAX_BITS;

    /// A solver with a table of `2^bits` entries of 8 bytes (20 to 32):
    /// an error for a size out of that range or one the allocator refuses
    /// (the memory the system has available is the caller's to check:
    /// [`crate::solve::memory::check_fits`]).
    pub fn with_table_bits(bits: u32) -> Result<Solver, TableSizeError> {
        if !Solver::TABLE_BITS.contains(&bits) {
            return Err(TableError::OutOfRange {
                bits,
                game: "connect-four".to_owned(),
                min: table::MIN_BITS,
                max: table::MAX_BITS,
            });
        }
        Ok(Solver {
            table: Table::new(bits)?,
            nodes: 0,
            variant: None,
            book: None,
            counter: None,
            cancel: None,
            stopped: false,
        })
    }

    /// Another solver on the same transposition table, to search at the same
    /// time as this one (on another thread): what one finds, the other
    /// uses. Clearing either clears the table for both.
    pub fn sharing(&self) -> Solver {
        Solver {
            table: self.table.share(),
            nodes: 0,
            variant: self.variant,
            book: self.book.clone(),
            counter: self.counter.clone(),
            cancel: self.cancel.clone(),
            stopped: false,
        }
    }

    /// Uses `book` (or no book): positions of its board it holds, at the
    /// root or anywhere in the search, take its exact score instead of
    /// being searched. The book's scores must be exact (a book the
    /// generator built is), or the answers are wrong.
    pub fn set_book(&mut self, book: Option<Arc<BookScores>>) {
        self.book = book;
    }

    /// The book in use, if any.
    pub fn book(&self) -> Option<&Arc<BookScores>> {
        self.book.as_ref()
    }

    /// `log2` of the number of table entries.
    pub fn table_bits(&self) -> u32 {
        self.table.bits()
    }

    /// Forgets everything the table holds.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Writes the whole table once, so that its memory is mapped now rather
    /// than during the first searches (for benchmarks: the first positions
    /// would otherwise pay for page faults). Also clears it.
    pub fn prefault(&mut self) {
        self.table.prefault();
    }

    /// The number of positions searched since the solver was made or
    /// [`Solver::reset_nodes`] was last called.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Lets searches add their nodes to `counter` while they run, in steps
    /// of [`NODE_REPORT`] (a spinner shows them during a long search).
    pub fn set_node_counter(&mut self, counter: Option<Arc<AtomicU64>>) {
        self.counter = counter;
    }

    /// Sets the node counter back to zero.
    pub fn reset_nodes(&mut self) {
        self.nodes = 0;
    }

    /// Lets `cancel` stop the searches (or none): every few thousand nodes
    /// a search looks at it, and once it is set the search unwinds at once
    /// and returns a meaningless score ([`Solver::stopped`] then says so,
    /// and `cancel` stays set). The table keeps only what was proved
    /// before the stop, so later searches stay exact.
    pub fn set_cancel(&mut self, cancel: Option<Cancel>) {
        self.cancel = cancel;
    }

    /// True when the last search was stopped by the solver's
    /// [`Cancel`] before it ended: its score means nothing.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// The exact score of `position` for the side to move: 0 for a draw,
    /// positive when the side to move can force a win (the sooner, the
    /// larger), negative when it loses. A finished game scores 0 when the
    /// board is full, and when a four is on the board the loss it was for
    /// the side to move.
    pub fn solve(&mut self, position: &Bitboard) -> i32 {
        self.run(position, false, None)
    }

    /// Like [`Solver::solve`], starting the narrowing of the score at
    /// `guess` (e.g. the score of a similar position): when the guess is
    /// right, two null-window searches settle the score. Any guess gives
    /// the exact score; a bad one only costs time.
    pub fn solve_near(&mut self, position: &Bitboard, guess: i32) -> i32 {
        self.run(position, false, Some(guess))
    }

    /// Only the outcome: `1` when the side to move wins, `0` for a draw,
    /// `-1` when it loses. Much faster than [`Solver::solve`] on hard
    /// positions: two null-window searches around 0 at most.
    pub fn solve_weak(&mut self, position: &Bitboard) -> i32 {
        self.run(position, true, None).signum()
    }

    /// The score of every column, from the point of view of the side to
    /// move in `position` (the score it gets by playing there and then
    /// playing perfectly); `None` for a full column, and for every column
    /// once the game is over. Index `c` is column `c` (0-based).
    pub fn column_scores(&mut self, position: &Bitboard) -> Vec<Option<i32>> {
        let v = position.variant();
        (0..v.width())
            .map(|c| {
                if position.is_over() || !position.can_play(c) {
                    None
                } else if position.is_winning_move(c) {
                    Some(v.win_score(position.moves()))
                } else {
                    // A playable column of a game that is not over.
                    position.play(c).ok().map(|child| -self.solve(&child))
                }
            })
            .collect()
    }

    /// The columns (0-based, increasing) whose score is the best one; empty
    /// once the game is over.
    pub fn best_columns(&mut self, position: &Bitboard) -> Vec<u32> {
        let scores = self.column_scores(position);
        let best = scores.iter().flatten().copied().max();
        (0..position.variant().width())
            .filter(|&c| best.is_some() && scores[c as usize] == best)
            .collect()
    }

    /// A line of perfect play from `position` to the end of the game
    /// (0-based columns). At each step it plays the best column nearest
    /// the centre (left of centre first).
    pub fn principal_variation(&mut self, position: &Bitboard) -> Vec<u32> {
        let order = bits::centre_order(position.variant().width());
        let mut line = Vec::new();
        let mut p = *position;
        while !p.is_over() {
            let scores = self.column_scores(&p);
            let best = scores.iter().flatten().copied().max();
            let Some(&c) = order.iter().find(|&&c| scores[c as usize] == best) else {
                break;
            };
            match p.play(c) {
                Ok(next) => p = next,
                Err(_) => break,
            }
            line.push(c);
        }
        line
    }

    fn run(&mut self, position: &Bitboard, weak: bool, guess: Option<i32>) -> i32 {
        self.stopped = false;
        let v = position.variant();
        if self.variant != Some(v) {
            // Keys of different board sizes mean different positions.
            self.table.clear();
            self.variant = Some(v);
        }
        let moves = position.moves() as i32;
        let cells = v.cells() as i32;
        if position.is_won() {
            // The opponent completed its four with the last stone, from a
            // position of `moves - 1` stones.
            return -v.win_score(position.moves() - 1);
        }
        if moves == cells {
            return 0;
        }
        if position.can_win_next() {
            return v.win_score(position.moves());
        }
        let book = self
            .book
            .as_deref()
            .filter(|b| b.variant == v && !b.is_empty());
        if let Some(b) = book {
            if position.moves() <= b.depth {
                if let Some(score) = b.score(position.canonical_key()) {
                    return if weak { score.signum() } else { score };
                }
            }
        }
        let (current, mask) = (position.current(), position.mask());
        let (counter, cancel) = (self.counter.as_deref(), self.cancel.as_ref());
        let (score, nodes, stopped) = if v == Variant::STANDARD {
            Search::new(Standard, &mut self.table, book, counter, cancel)
                .root(current, mask, moves, weak, guess)
        } else {
            Search::new(v.geometry(), &mut self.table, book, counter, cancel)
                .root(current, mask, moves, weak, guess)
        };
        self.nodes += nodes;
        self.stopped = stopped;
        score
    }
}

/// Positions with this many empty cells or fewer skip the table: their
/// subtrees are smaller than the cost of a probe that misses the cache, and
/// keeping them out leaves the slots to positions that save more work.
const SHALLOW: i32 = 8;

/// Positions with more empty cells than this try an enhanced transposition
/// cutoff before searching their moves.
/// (Nearer the end the extra probes cost more than the cutoffs save:
/// measured on the early-game benchmark sets.)
const ETC: i32 = 20;

/// One search: the geometry, the table, the book and a node counter.
struct Search<'t, G: Geometry> {
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
}

/// Nodes between two reports to a solver's node counter.
pub const NODE_REPORT: u64 = 1 << 16;

/// Nodes between two looks at the solver's [`Cancel`]: a few
/// milliseconds of search at most.
pub const STOP_CHECK: u64 = 1 << 12;

const _: () = assert!(NODE_REPORT.is_multiple_of(STOP_CHECK));

impl<'t, G: Geometry> Search<'t, G> {
    fn new(
        g: G,
        table: &'t mut Table,
        book: Option<&'t BookScores>,
        counter: Option<&'t AtomicU64>,
        cancel: Option<&'t Cancel>,
    ) -> Self {
        let mut order = [0; 16];
        for (i, c) in bits::centre_order(g.width()).into_iter().enumerate() {
            order[i] = c;
        }
        Search {
            g,
            table,
            nodes: 0,
            order,
            book,
            book_depth: book.map_or(-1, |b| b.depth as i32),
            counter,
            cancel,
            stopped: false,
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
        if self.cancel.is_some_and(Cancel::is_cancelled) {
            self.stopped = true;
        }
        self.stopped
    }

    /// The score of a position whose side to move cannot win at once and
    /// which is not full. Null-window searches narrow `[min, max]` until it
    /// is one value; each probe is biased towards 0 while the interval
    /// straddles it, because most positions are close to a draw and probes
    /// near the true score are the cheap ones. In weak mode the interval
    /// starts as `[-1, 1]`, so only the sign is decided.
    ///
    /// With a `guess`, the first probe tests the guess, and the next ones
    /// move away from it in steps that double (1, 2, 4, ...) until the
    /// score is bracketed; then the usual narrowing goes on.
    fn root(
        mut self,
        current: u64,
        mask: u64,
        moves: i32,
        weak: bool,
        guess: Option<i32>,
    ) -> (i32, u64, bool) {
        let cells = self.g.cells();
        let (mut min, mut max) = if weak {
            (-1, 1)
        } else {
            (-(cells - moves) / 2, (cells + 1 - moves) / 2)
        };
        if let Some(g) = guess {
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
    /// at once (every caller filters its moves so). Returns a value `v`
    /// with the usual contract: the score if `alpha < v < beta`; an upper
    /// bound on it if `v <= alpha`; a lower bound if `v >= beta`.
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
        let next = bits::non_losing_moves(g, current, mask);
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
        if alpha < lowest {
            alpha = lowest;
            if alpha >= beta {
                return alpha;
            }
        }
        // We cannot win with this stone, at best with the next one.
        let highest = (cells - 1 - moves) / 2;
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
        // The children's slots are fetched before this node's own probe:
        // the probe's wait for memory (its slot was prefetched by the
        // parent only just before this call, for a first child) then
        // overlaps theirs, and they are in cache by the time the first
        // child probes. A cutoff below wastes them.
        let children_use_table = cells - moves - 1 > SHALLOW;
        let mut child_keys = [0u64; 16];
        if children_use_table {
            // Centre first, as the moves are likely to be tried.
            for &c in &self.order[..g.width() as usize] {
                let mv = next & g.column(c);
                if mv != 0 {
                    let k = bits::key(g, current ^ mask, mask | mv);
                    let k = k.min(g.mirror(k));
                    self.table.prefetch(k);
                    child_keys[c as usize] = k;
                }
            }
        }
        let use_table = cells - moves > SHALLOW;
        let key = if use_table {
            let k = bits::key(g, current, mask);
            let k = k.min(g.mirror(k));
            if let Some((lo, hi)) = self.table.get(k) {
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
            k
        } else {
            0
        };

        // Move ordering: the moves that leave us the most cells completing
        // a four first; ties in centre-first order (the sort is stable).
        let mut buf = [(0u64, 0u32, 0u64); 16];
        let mut n = 0;
        for &c in &self.order[..g.width() as usize] {
            let mv = next & g.column(c);
            if mv == 0 {
                continue;
            }
            let score = bits::winning_cells(g, current | mv, mask | mv).count_ones();
            let child = child_keys[c as usize];
            let mut i = n;
            while i > 0 && buf[i - 1].1 < score {
                buf[i] = buf[i - 1];
                i -= 1;
            }
            buf[i] = (mv, score, child);
            n += 1;
        }

        // Enhanced transposition cutoff: far from the end, where a subtree
        // is worth a probe, look for a child whose stored upper bound
        // already refutes it (its slot is on its way from the prefetch).
        if cells - moves > ETC {
            for &(_, _, child) in &buf[..n] {
                if let Some((_, hi)) = self.table.get(child) {
                    if -hi >= beta {
                        self.table.put(key, -hi, highest, cells - moves);
                        return -hi;
                    }
                }
            }
        }

        for &(mv, _, _) in &buf[..n] {
            let score = -self.negamax(current ^ mask, mask | mv, moves + 1, -beta, -alpha);
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
            self.table.put(key, lowest, alpha, cells - moves);
        }
        alpha
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(s: &str) -> Bitboard {
        Bitboard::from_moves(Variant::STANDARD, s).expect("legal")
    }

    #[test]
    fn finished_and_immediate_positions() {
        let mut s = Solver::with_table_bits(20).expect("size");
        // X to move wins at once with its fourth stone: (42 + 1 - 6) / 2.
        assert_eq!(s.solve(&pos("121212")), 18);
        // X just won: O to move has lost, by X's score one move earlier.
        assert_eq!(s.solve(&pos("1212121")), -18);
        assert_eq!(s.solve_weak(&pos("1212121")), -1);
        assert_eq!(s.column_scores(&pos("1212121")), vec![None; 7]);
    }

    #[test]
    fn solvers_sharing_a_table_agree_with_a_lone_one() {
        // Late positions from the public benchmark (Test_L3_R1).
        let positions = [
            "2252576253462244111563365343671351441",
            "7422341735647741166133573473242566",
            "23163416124767223154467471272416755633",
            "67152117737262713366376314254446",
            "4444443322",
            "44444433",
        ];
        let mut lone = Solver::with_table_bits(20).expect("size");
        let expected: Vec<i32> = positions.iter().map(|m| lone.solve(&pos(m))).collect();
        let first = Solver::with_table_bits(20).expect("size");
        let mut solvers = [first.sharing(), first.sharing(), first];
        std::thread::scope(|scope| {
            for (t, solver) in solvers.iter_mut().enumerate() {
                let expected = &expected;
                scope.spawn(move || {
                    // Each thread walks the list from another start.
                    for i in 0..positions.len() {
                        let j = (i + 2 * t) % positions.len();
                        assert_eq!(solver.solve(&pos(positions[j])), expected[j]);
                    }
                });
            }
        });
    }

    #[test]
    fn a_guess_changes_the_work_not_the_score() {
        let mut s = Solver::with_table_bits(20).expect("size");
        for m in [
            "2252576253462244111563365343671351441",
            "7422341735647741166133573473242566",
            "67152117737262713366376314254446",
            "4444443322",
            "44444433",
        ] {
            let p = pos(m);
            let score = s.solve(&p);
            for guess in -22..=22 {
                s.clear();
                assert_eq!(s.solve_near(&p, guess), score, "{m} from {guess}");
            }
        }
    }

    #[test]
    fn a_book_is_taken_at_the_root_and_inside_the_search() {
        // 5x4: every position of 4 to 6 stones, scored by the solver (the
        // shallower ones are searched, down to the book).
        let v = Variant::new(5, 4).expect("fits");
        let mut plain = Solver::with_table_bits(20).expect("size");
        let mut layer = vec![Bitboard::new(v)];
        let mut entries = Vec::new();
        for _ in 0..=6 {
            let mut next = Vec::new();
            for p in &layer {
                if p.is_over() {
                    continue;
                }
                if p.moves() >= 4 {
                    entries.push((p.canonical_key(), plain.solve(p)));
                }
                next.extend((0..5).filter_map(|c| p.play(c).ok()));
            }
            layer = next;
        }
        let book = Arc::new(BookScores::new(v, entries));
        assert_eq!(book.depth(), 6);
        let mut with = Solver::with_table_bits(20).expect("size");
        with.set_book(Some(Arc::clone(&book)));
        let (mut nodes_with, mut nodes_plain) = (0, 0);
        for m in ["", "3", "33", "323", "3232", "12345", "331"] {
            let p = Bitboard::from_moves(v, m).expect("legal");
            plain.clear();
            with.clear();
            plain.reset_nodes();
            with.reset_nodes();
            assert_eq!(with.solve(&p), plain.solve(&p), "{m}");
            assert_eq!(with.column_scores(&p), plain.column_scores(&p), "{m}");
            nodes_with += with.nodes();
            nodes_plain += plain.nodes();
        }
        // Searches stop at the book.
        assert!(
            nodes_with * 10 < nodes_plain,
            "{nodes_with} vs {nodes_plain}"
        );
        // A book of another board is not used.
        let mut other = Solver::with_table_bits(20).expect("size");
        other.set_book(Some(book));
        let p = pos("4444443322");
        assert_eq!(other.solve(&p), plain.solve(&p));
    }

    #[test]
    fn table_size_is_checked() {
        assert!(Solver::with_table_bits(8).is_err());
        assert!(Solver::with_table_bits(40).is_err());
    }
}
