//! The public solver: its table, book, threads, node counter and cancel
//! flag, and the questions it answers, each a search of the root.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use super::book_scores::BookScores;
use super::negamax::Root;
use super::parallel::{search_together, Context, PARALLEL_EMPTY};
use super::table::{self, Table};
use crate::core::Cancel;
use crate::games::connect_four::bits::Standard;
use crate::games::connect_four::board::{Bitboard, Variant};
use crate::solve::memory::TableError;

/// A table size outside the supported range ([`TableError::OutOfRange`]),
/// or one the allocator refused ([`TableError::Alloc`]).
pub(crate) type TableSizeError = TableError;

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
    book: Option<Arc<BookScores>>,
    /// Where a search adds its nodes as it goes, for progress displays.
    counter: Option<Arc<AtomicU64>>,
    /// What stops a search before it ends.
    cancel: Option<Cancel>,
    /// True when the last search was stopped.
    stopped: bool,
    /// The threads a search may use (see [`Solver::set_threads`]).
    threads: usize,
    /// The searches under way in the pool this solver belongs to: helpers
    /// run only while this one is alone.
    busy: Option<Arc<AtomicUsize>>,
    /// The helpers' handles on the table, made when first needed.
    helper_tables: Vec<Table>,
    /// The nodes the helpers searched in the last search.
    helper_nodes: u64,
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
    pub(crate) const TABLE_BITS: std::ops::RangeInclusive<u32> = table::MIN_BITS..=table::MAX_BITS;

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
            book: None,
            counter: None,
            cancel: None,
            stopped: false,
            threads: 1,
            busy: None,
            helper_tables: Vec::new(),
            helper_nodes: 0,
        })
    }

    /// Another solver on the same transposition table, to search at the same
    /// time as this one (on another thread): what one finds, the other
    /// uses. Clearing either clears the table for both.
    pub(crate) fn sharing(&self) -> Solver {
        Solver {
            table: self.table.share(),
            nodes: 0,
            book: self.book.clone(),
            counter: self.counter.clone(),
            cancel: self.cancel.clone(),
            stopped: false,
            threads: self.threads,
            busy: self.busy.clone(),
            helper_tables: Vec::new(),
            helper_nodes: 0,
        }
    }

    /// Lets a search use `threads` threads (at least one): the others help
    /// on the same position, sharing the table, each trying the moves near
    /// the root in a slightly different order, so that they run ahead of
    /// one another into different subtrees; the first to finish gives the
    /// score, and the others stop. Positions near the end are searched on
    /// one thread, where starting threads costs more than it saves.
    pub(crate) fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// Makes this solver one of a pool of [`Solver::threads`] threads
    /// whose searches under way `busy` counts (this one's included): a
    /// search runs helpers only on the threads no search runs on, shared
    /// evenly among the searches. They stop, within a few thousand nodes,
    /// as more searches start, so that the threads go to the pool's
    /// searches first, and start again (within milliseconds) as searches
    /// end.
    pub(crate) fn set_busy(&mut self, busy: Option<Arc<AtomicUsize>>) {
        self.busy = busy;
    }

    /// Uses `book` (or no book): positions of its board it holds, at the
    /// root or anywhere in the search, take its exact score instead of
    /// being searched. The book's scores must be exact (a book the
    /// generator built is), or the answers are wrong.
    pub fn set_book(&mut self, book: Option<Arc<BookScores>>) {
        self.book = book;
    }

    /// The book in use, if any.
    #[cfg(test)]
    pub(crate) fn book(&self) -> Option<&Arc<BookScores>> {
        self.book.as_ref()
    }

    /// `log2` of the number of table entries.
    pub fn table_bits(&self) -> u32 {
        self.table.max_bits()
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

    /// Lets searches add their nodes to `counter`: in steps of
    /// [`NODE_REPORT`](super::NODE_REPORT) while they run (a spinner shows
    /// them during a long search), and the rest when each ends.
    pub(crate) fn set_node_counter(&mut self, counter: Option<Arc<AtomicU64>>) {
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
    pub(crate) fn set_cancel(&mut self, cancel: Option<Cancel>) {
        self.cancel = cancel;
    }

    /// True when the last search was stopped by the solver's
    /// [`Cancel`] before it ended: its score means nothing.
    #[cfg(test)]
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }

    /// The exact score of `position` for the side to move: 0 for a draw,
    /// positive when the side to move can force a win (the sooner, the
    /// larger), negative when it loses. A finished game scores 0 when the
    /// board is full, and when a four is on the board the loss it was for
    /// the side to move.
    pub fn solve(&mut self, position: &Bitboard) -> i32 {
        self.run(position, None, None)
    }

    /// Like [`Solver::solve`], starting the narrowing of the score at
    /// `guess` (e.g. the score of a similar position): when the guess is
    /// right, two null-window searches settle the score. Any guess gives
    /// the exact score; a bad one only costs time.
    pub fn solve_near(&mut self, position: &Bitboard, guess: i32) -> i32 {
        self.run(position, None, Some(guess))
    }

    /// Only the outcome: `1` when the side to move wins, `0` for a draw,
    /// `-1` when it loses. Much faster than [`Solver::solve`] on hard
    /// positions: two null-window searches around 0 at most.
    pub fn solve_weak(&mut self, position: &Bitboard) -> i32 {
        self.run(position, Some((-1, 1)), None).signum()
    }

    /// True when the exact score of `position` (as [`Solver::solve`]
    /// gives it) is `score`. Two null-window searches at most, and one when
    /// the score is higher: what a line of perfect play needs to tell the
    /// move that keeps a known score from one that gives the opponent
    /// more, without the exact score of either.
    pub(crate) fn is_score(&mut self, position: &Bitboard, score: i32) -> bool {
        self.run(position, Some((score - 1, score + 1)), None) == score
    }

    /// The score of every column, from the point of view of the side to
    /// move in `position` (the score it gets by playing there and then
    /// playing perfectly); `None` for a full column, and for every column
    /// once the game is over. Index `c` is column `c` (0-based).
    #[cfg(test)]
    pub(crate) fn column_scores(&mut self, position: &Bitboard) -> Vec<Option<i32>> {
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
    #[cfg(test)]
    pub(crate) fn best_columns(&mut self, position: &Bitboard) -> Vec<u32> {
        let scores = self.column_scores(position);
        let best = scores.iter().flatten().copied().max();
        (0..position.variant().width())
            .filter(|&c| best.is_some() && scores[c as usize] == best)
            .collect()
    }

    /// A line of perfect play from `position` to the end of the game
    /// (0-based columns). At each step it plays the best column nearest
    /// the centre (left of centre first).
    #[cfg(test)]
    pub(crate) fn principal_variation(&mut self, position: &Bitboard) -> Vec<u32> {
        let order = crate::games::connect_four::bits::centre_order(position.variant().width());
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

    /// The score of `position`, or with a `window` `(lo, hi)` the score
    /// clamped to it: a result strictly inside is exact, `lo` says the
    /// score is at most `lo`, `hi` at least `hi` (the weak search is the
    /// window `(-1, 1)`).
    fn run(&mut self, position: &Bitboard, window: Option<(i32, i32)>, guess: Option<i32>) -> i32 {
        self.stopped = false;
        // The table may have grown through another solver sharing it.
        self.table.refresh();
        let v = position.variant();
        if self
            .table
            .hold(u64::from(v.width()) << 8 | u64::from(v.height()))
        {
            // Keys of different board sizes mean different positions.
            self.table.clear();
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
            .filter(|b| b.variant() == v && !b.is_empty());
        if let Some(b) = book {
            if position.moves() <= b.depth() {
                if let Some(score) = b.score(position.canonical_key()) {
                    return window.map_or(score, |(lo, hi)| score.clamp(lo, hi));
                }
            }
        }
        let (current, mask) = (position.current(), position.mask());
        let root = Root {
            current,
            mask,
            moves,
            window,
            guess,
        };
        let busy = self.busy.as_deref();
        // In a pool, a helper for every other thread: each runs while the
        // pool's searches under way leave it a thread, so that a search
        // left alone takes the threads the others give back.
        let helpers = if cells - moves >= PARALLEL_EMPTY {
            self.threads - 1
        } else {
            0
        };
        if helpers > 0 && busy.is_some_and(|b| b.load(Ordering::Relaxed) > 1) {
            // Other searches of the pool run now, on other cores: the
            // table is mapped first, or each page they map costs the
            // others a TLB flush (see `Table::populate`).
            self.table.populate();
        }
        while self.helper_tables.len() < helpers {
            let t = self.table.share();
            self.helper_tables.push(t);
        }
        if helpers > 0 {
            // Entries the helpers write are not in this handle's log of
            // what to clear: the next clear sweeps the table.
            self.table.forget_log();
        }
        let (tables, counter, cancel) = (
            &mut self.helper_tables[..helpers],
            self.counter.as_deref(),
            self.cancel.as_ref(),
        );
        let context = Context {
            table: &mut self.table,
            helpers: tables,
            book,
            counter,
            cancel,
            pool: busy.map(|b| (b, self.threads)),
        };
        let ended = if v == Variant::STANDARD {
            search_together(Standard, context, root)
        } else {
            search_together(v.geometry(), context, root)
        };
        self.nodes += ended.nodes;
        self.helper_nodes = ended.helper_nodes;
        self.stopped = ended.stopped;
        ended.score
    }

    /// The nodes the helpers searched in the last search.
    #[cfg(test)]
    pub(super) fn helper_nodes(&self) -> u64 {
        self.helper_nodes
    }
}
