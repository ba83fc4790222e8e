//! The exact solver: negamax with alpha-beta over bitboards, a
//! transposition table keyed by the mirror-canonical key, and null-window
//! searches that narrow the score interval from the root.
//!
//! What makes it fast, beyond the table:
//! - every move is first looked at statically (`Search::settle`): the
//!   replies it forces are played out without a node, and a child that is
//!   lost at once, or whose score the table, the second player's claimeven
//!   strategy (on boards of even height) or the lack of room for a four
//!   bounds, tightens the window before anything is searched;
//! - moves are ordered by the threats they leave that the opponent cannot
//!   spoil from below, those just above a playable cell counting twice;
//! - far from the end, the table's bounds on the children are read before
//!   searching them (enhanced transposition cutoffs);
//! - a search may run on several threads sharing the table
//!   ([`Solver::set_threads`]): the helpers shuffle their move order near the root,
//!   run ahead into other subtrees and leave their results in the table,
//!   and the first thread to finish gives the score.
//!
//! Scores follow the module convention (see the module documentation): 0
//! for a draw, `(cells + 1 - n) / 2` when the side to move wins with the
//! stone it plays into a position of `n` stones (the sooner the win, the
//! larger), and a loss is the negative of the opponent's win.

mod book;
mod table;

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
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
    pub fn sharing(&self) -> Solver {
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
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The threads a search may use.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Makes this solver one of a pool of [`Solver::threads`] threads
    /// whose searches under way `busy` counts (this one's included): a
    /// search runs helpers only on the threads no search runs on, shared
    /// evenly among the searches. They stop, within a few thousand nodes,
    /// as more searches start, so that the threads go to the pool's
    /// searches first, and start again (within milliseconds) as searches
    /// end.
    pub fn set_busy(&mut self, busy: Option<Arc<AtomicUsize>>) {
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
    pub fn book(&self) -> Option<&Arc<BookScores>> {
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
    /// [`NODE_REPORT`] while they run (a spinner shows them during a long
    /// search), and the rest when each ends.
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
    pub fn is_score(&mut self, position: &Bitboard, score: i32) -> bool {
        self.run(position, Some((score - 1, score + 1)), None) == score
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
            .filter(|b| b.variant == v && !b.is_empty());
        if let Some(b) = book {
            if position.moves() <= b.depth {
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
}

/// A position to solve and how: its bitboards, the window the score is
/// wanted in (`None`: the exact score), and a first guess of the score.
#[derive(Clone, Copy)]
struct Root {
    current: u64,
    mask: u64,
    moves: i32,
    window: Option<(i32, i32)>,
    guess: Option<i32>,
}

/// The helpers each of `running` searches may start in a pool of
/// `threads` threads: the idle threads, shared evenly.
fn helpers_allowed(threads: usize, running: usize) -> usize {
    let running = running.max(1);
    threads.saturating_sub(running) / running
}

/// Positions with fewer empty cells than this are searched on one thread
/// whatever [`Solver::set_threads`] says: their searches take a few
/// milliseconds at most, less than the threads cost to start.
const PARALLEL_EMPTY: i32 = 24;

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

/// Where the helpers of a parallel search wait, asleep, until its main
/// search has run long enough to need them, or has ended.
#[derive(Default)]
struct Escalation {
    started: std::sync::Mutex<bool>,
    woken: std::sync::Condvar,
}

impl Escalation {
    /// Lets the helpers go.
    fn start(&self) {
        *self.started.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.woken.notify_all();
    }

    /// Wakes the helpers after the main search ended (`done` set), so that
    /// they return.
    fn wake(&self) {
        let _guard = self.started.lock().unwrap_or_else(|p| p.into_inner());
        self.woken.notify_all();
    }

    /// Waits for [`Escalation::start`] and for `allowed` (true), or for
    /// `done` (false). `allowed` changes by itself (the pool's searches
    /// come and go): while it says no, the wait looks again every
    /// [`JOIN_CHECK`].
    fn wait(&self, done: &AtomicBool, allowed: impl Fn() -> bool) -> bool {
        let mut started = self.started.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if done.load(Ordering::Acquire) {
                return false;
            }
            if !*started {
                started = self.woken.wait(started).unwrap_or_else(|p| p.into_inner());
            } else if allowed() {
                return true;
            } else {
                started = self
                    .woken
                    .wait_timeout(started, JOIN_CHECK)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
        }
    }
}

/// How often a helper waiting for a thread of its pool looks whether one
/// is free.
const JOIN_CHECK: std::time::Duration = std::time::Duration::from_millis(5);

/// Plies below the root within which the helpers of a parallel search
/// shuffle their move order.
const JITTER_PLIES: i32 = 8;

/// What a search runs with: the table, the helpers' handles on it, the
/// book, the node counter, the cancel flag, and the pool (the count of
/// its searches under way, and the threads it has).
struct Context<'a> {
    table: &'a mut Table,
    helpers: &'a mut [Table],
    book: Option<&'a BookScores>,
    counter: Option<&'a AtomicU64>,
    cancel: Option<&'a Cancel>,
    pool: Option<(&'a AtomicUsize, usize)>,
}

/// How a search ended.
struct Ended {
    /// The score (meaningless when stopped).
    score: i32,
    /// The nodes of every thread.
    nodes: u64,
    /// The nodes of the helpers alone.
    helper_nodes: u64,
    /// True when the cancel flag stopped it.
    stopped: bool,
}

/// Solves `root` on this thread with the context's table, and on one more
/// thread for each of its helpers. In a
/// pool, helper `i` runs while the searches under way leave it a thread
/// ([`helpers_allowed`]: more than `i`): it stops once they take it, and
/// starts again once they give it back.
fn search_together<G: Geometry + Send>(g: G, context: Context<'_>, root: Root) -> Ended {
    let Context {
        table,
        helpers,
        book,
        counter,
        cancel,
        pool,
    } = context;
    if helpers.is_empty() {
        let (score, nodes, stopped) = Search::new(g, table, book, counter, cancel).root(root);
        return Ended {
            score,
            nodes,
            helper_nodes: 0,
            stopped,
        };
    }
    // The first search to finish sets `done` and leaves its score.
    let done = AtomicBool::new(false);
    let score = AtomicI32::new(0);
    let escalate = Escalation::default();
    if table.is_populated() {
        // An earlier search paid for the mapping: the helpers start now.
        escalate.start();
    }
    let finish = |(s, nodes, stopped): (i32, u64, bool)| {
        if !stopped && !done.swap(true, Ordering::AcqRel) {
            score.store(s, Ordering::Release);
        }
        nodes
    };
    let (nodes, helper_nodes) = std::thread::scope(|scope| {
        let mut running = Vec::with_capacity(helpers.len());
        for (i, t) in helpers.iter_mut().enumerate() {
            let (done, finish, escalate) = (&done, &finish, &escalate);
            let allowed = move || {
                pool.is_none_or(|(busy, threads)| {
                    helpers_allowed(threads, busy.load(Ordering::Relaxed)) > i
                })
            };
            running.push(scope.spawn(move || {
                let mut nodes = 0;
                // Most searches end within milliseconds: the helpers join
                // only one that runs on, and while the pool has a thread
                // for them. A helper the pool takes its thread back from
                // waits to join again.
                while escalate.wait(done, allowed) {
                    // The table may have grown since this handle was made.
                    t.refresh();
                    let mut s = Search::new(g, t, book, counter, cancel);
                    s.halt = Some(done);
                    s.recall = pool.map(|(busy, threads)| (busy, threads, i));
                    s.jitter = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                    s.jitter_until = root.moves + JITTER_PLIES;
                    let (score, n, stopped) = s.root(root);
                    nodes += finish((score, n, stopped));
                    if !stopped || cancel.is_some_and(Cancel::is_cancelled) {
                        break;
                    }
                }
                nodes
            }));
        }
        let mut s = Search::new(g, table, book, counter, cancel);
        s.halt = Some(&done);
        s.escalate = Some((&escalate, pool));
        let nodes = finish(s.root(root));
        // The main search ended (done, or cancelled): the helpers stop.
        done.store(true, Ordering::Release);
        escalate.wake();
        let mut helper_nodes = 0;
        for h in running {
            // A helper that panicked has already unwound; its nodes are lost.
            helper_nodes += h.join().unwrap_or(0);
        }
        (nodes + helper_nodes, helper_nodes)
    });
    let stopped = !done.load(Ordering::Acquire) || cancel.is_some_and(Cancel::is_cancelled);
    Ended {
        score: if stopped {
            0
        } else {
            score.load(Ordering::Acquire)
        },
        nodes,
        helper_nodes,
        stopped,
    }
}

/// Positions with this many empty cells or fewer skip the table: their
/// subtrees are smaller than the cost of a probe that misses the cache, and
/// keeping them out leaves the slots to positions that save more work.
const SHALLOW: i32 = 8;

/// Positions with more empty cells than this read the table's bounds on
/// their children before searching them (enhanced transposition cutoffs).
/// Nearer the end the extra probes cost more than they save: measured on
/// the hard benchmark sets, 12 and 10 did best, 8 and 16 a few percent
/// worse, 20 and more 10% worse.
const ETC: i32 = 12;

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
    /// Stops the search too: set when another thread of a parallel search
    /// has finished.
    halt: Option<&'t AtomicBool>,
    /// A helper stops when its pool's searches under way (the count, of
    /// the pool's threads) leave fewer helpers than its index plus one.
    recall: Option<(&'t AtomicUsize, usize, usize)>,
    /// The main search of a parallel one starts its helpers through this
    /// once it has run [`LONG_SEARCH`] nodes and its pool (the count of
    /// its searches under way, and its threads) leaves a helper a thread.
    escalate: Option<(&'t Escalation, Option<(&'t AtomicUsize, usize)>)>,
    /// A helper's seed for shuffling its move order (0: no shuffling), and
    /// the number of stones below which it shuffles.
    jitter: u64,
    jitter_until: i32,
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
    fn root(self, root: Root) -> (i32, u64, bool) {
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
    /// ([`Search::settle`]): replies that are forced are played out without
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
            (current ^ mask.rotate_left(23) ^ self.jitter).wrapping_mul(0xD6E8_FEB8_6659_FD93)
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
            let s = self.settle(opponent, mask | mv, moves + 1, ours);
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
            // Ordering: the threats this move leaves us that the opponent
            // cannot spoil from below, the ones just above a playable cell
            // (the opponent may not play under them) counting more.
            let useful = ours & !(theirs << 1);
            let above = (playable & !mv | (mv << 1)) << 1;
            let mut order = ((useful & above).count_ones() + useful.count_ones()) as i32;
            if jitter != 0 {
                // A helper near the root: ties and near ties broken by
                // its own hash of the position.
                order = order * 4 + ((jitter >> (4 * c)) & 3) as i32;
            }
            list[n] = Child {
                node: s.node,
                lo,
                hi,
                order,
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
        list[..n].sort_by_key(|c| std::cmp::Reverse(c.order));
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

    /// The static look at a child: the position `(current, mask)` of
    /// `moves` stones, whose side to move cannot win at once and faces
    /// `threats` (the opponent's cells that would complete a four).
    /// Replies forced by those threats are played out; what is left is
    /// either settled (exact bounds, no node) or a node to search, with
    /// bounds on the child's score from the child's side to move.
    #[inline(always)]
    fn settle(&mut self, mut current: u64, mut mask: u64, mut moves: i32, threats: u64) -> Settled {
        let g = self.g;
        let cells = g.cells();
        let mut flip = false;
        let mut threats = threats;
        loop {
            let next = bits::non_losing_from(g, mask, threats);
            let (lo, hi, node) = if next == 0 {
                let s = -(cells - moves) / 2;
                (s, s, None)
            } else if moves >= cells - 2 {
                (0, 0, None)
            } else if next & (next - 1) == 0 {
                // One move does not lose at once: play it. The opponent
                // cannot win at once after it (it has no playable winning
                // cell now, else that would be forced, and the move is
                // not under one).
                let opponent = current ^ mask;
                let after = current | next;
                mask |= next;
                current = opponent;
                moves += 1;
                flip = !flip;
                threats = bits::winning_cells(g, after, mask);
                continue;
            } else {
                let mut hi = (cells - 1 - moves) / 2;
                if moves % 2 == 0 && g.height().is_multiple_of(2) {
                    hi = hi.min(claimeven_bound(g, current, mask));
                }
                if !bits::has_four(g, current | (g.board() ^ mask)) {
                    hi = hi.min(0);
                }
                let lo = -(cells - 2 - moves) / 2;
                let key = if cells - moves > SHALLOW {
                    let k = bits::key(g, current, mask);
                    let k = k.min(g.mirror(k));
                    self.table.prefetch(k);
                    k
                } else {
                    0
                };
                (
                    lo,
                    hi,
                    Some(Node {
                        current,
                        mask,
                        moves,
                        key,
                        flip: false,
                    }),
                )
            };
            // Back to the child's side: the forced plies alternate sides.
            return if flip {
                Settled {
                    lo: -hi,
                    hi: -lo,
                    node: node.map(|n| Node { flip: true, ..n }),
                }
            } else {
                Settled { lo, hi, node }
            };
        }
    }
}

/// A position to search, reached from a move by forced replies.
#[derive(Clone, Copy)]
struct Node {
    current: u64,
    mask: u64,
    moves: i32,
    /// Its canonical key (0 when it is too near the end for the table).
    key: u64,
    /// True when its side to move is the side that made the move (an odd
    /// number of forced replies), so its score is the mover's directly.
    flip: bool,
}

/// What [`Search::settle`] found about a move's child: bounds on its score
/// for its side to move, and the node to search unless they are exact.
struct Settled {
    lo: i32,
    hi: i32,
    node: Option<Node>,
}

/// A move left to search, with bounds on its score from the mover's side.
#[derive(Clone, Copy)]
struct Child {
    node: Option<Node>,
    lo: i32,
    hi: i32,
    order: i32,
}

impl Child {
    const EMPTY: Child = Child {
        node: None,
        lo: 0,
        hi: 0,
        order: 0,
    };
}

/// An upper bound on the score of the side to move when it is the first
/// player (an even number of stones) on a board of even height: the second
/// player can answer every stone directly above it, and so take every empty
/// cell of the even rows except those playable now (each one the first
/// player takes, the second answers by taking another such cell: there is
/// an even number of them). If the first player's cells can then hold no
/// four, it cannot win (0); if the second player's hold one, it loses.
///
/// The loss comes at the latest when the last cell of one of those fours
/// is taken, directly above a stone of the first player: the cells above it
/// are still empty then. A four whose cells all lie in rows 1 to `r` leaves
/// at least `height - r` cells empty, so the second player wins with stone
/// `cells - (height - r)` or sooner: a score of `-(2 + height - r) / 2` at
/// best for the first player (-1 for a four reaching the top row).
#[inline(always)]
fn claimeven_bound<G: Geometry>(g: G, current: u64, mask: u64) -> i32 {
    let theirs = (current ^ mask) | (g.even_rows() & !mask & !bits::playable(g, mask));
    let ours = g.board() & !theirs;
    if bits::has_four(g, ours) {
        return i32::MAX;
    }
    if !bits::has_four(g, theirs) {
        return 0;
    }
    let height = g.height() as i32;
    // The lowest even row `r` whose rows 1 to `r` hold one of their fours
    // (the top row, an even one, holds them all).
    let mut r = 2;
    while r < height && !bits::has_four(g, theirs & g.bottom().wrapping_mul((1u64 << r) - 1)) {
        r += 2;
    }
    -(2 + height - r) / 2
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
    fn a_search_on_several_threads_gives_the_lone_score() {
        // Early enough for helpers to start (PARALLEL_EMPTY), quick enough
        // for a test.
        let positions = ["4453312", "445362", "3344552", "1726354"];
        let mut lone = Solver::with_table_bits(20).expect("size");
        let mut together = Solver::with_table_bits(20).expect("size");
        together.set_threads(3);
        for m in positions {
            let p = pos(m);
            assert!(42 - p.moves() as i32 >= PARALLEL_EMPTY, "{m}");
            lone.clear();
            together.clear();
            assert_eq!(together.solve(&p), lone.solve(&p), "{m}");
            assert_eq!(together.solve_weak(&p), lone.solve_weak(&p), "{m}");
            assert_eq!(together.column_scores(&p), lone.column_scores(&p), "{m}");
        }
    }

    #[test]
    fn a_helper_runs_while_its_pool_leaves_it_a_thread() {
        // About 2.4 million nodes: long past the start of the helpers
        // (LONG_SEARCH) and a node report, with time left to join.
        let p = pos("44531");
        let mut lone = Solver::with_table_bits(22).expect("size");
        let expected = lone.solve(&p);
        // A pool whose other searcher is busy leaves no thread to help.
        let busy = Arc::new(AtomicUsize::new(2));
        let mut pooled = Solver::with_table_bits(22).expect("size");
        pooled.set_threads(2);
        pooled.set_busy(Some(Arc::clone(&busy)));
        assert_eq!(pooled.solve(&p), expected);
        assert_eq!(pooled.helper_nodes, 0, "no helper ran");
        // Once the other search ends, the helper joins this one.
        pooled.clear();
        let counter = Arc::new(AtomicU64::new(0));
        pooled.set_node_counter(Some(Arc::clone(&counter)));
        std::thread::scope(|scope| {
            scope.spawn(|| {
                while counter.load(Ordering::Relaxed) == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                busy.store(1, Ordering::Relaxed);
            });
            assert_eq!(pooled.solve(&p), expected);
        });
        assert!(pooled.helper_nodes > 0, "the helper joined");
    }

    #[test]
    fn static_bounds_hold() {
        // The claimeven bound and the no-four bound never cut below the
        // score: checked on positions of the public late and middle sets.
        let text = include_str!("../../../../tests/vectors/connect-four/Test_L2_R1");
        let mut s = Solver::with_table_bits(20).expect("size");
        let (mut checked, mut deeper) = (0usize, 0usize);
        for line in text.lines().take(200) {
            let mut parts = line.split_whitespace();
            let (Some(m), Some(score)) = (parts.next(), parts.next()) else {
                continue;
            };
            let p = pos(m);
            let score: i32 = score.parse().expect("a score");
            assert_eq!(s.solve(&p), score, "{m}");
            // The position, its children and their children: the bound
            // (a loss's latest stone too) never cuts below the score.
            let mut family = vec![p];
            for _ in 0..2 {
                let next: Vec<Bitboard> = family
                    .iter()
                    .flat_map(|q| (0..7).filter_map(|c| q.play(c).ok()))
                    .filter(|q| !q.is_over())
                    .collect();
                family.extend(next);
            }
            family.dedup();
            for q in family {
                if q.moves().is_multiple_of(2) && !q.can_win_next() && !q.is_over() {
                    let bound = claimeven_bound(bits::Standard, q.current(), q.mask());
                    let score = s.solve(&q);
                    assert!(score <= bound, "{q}: {score} above claimeven's {bound}");
                    checked += 1;
                    deeper += usize::from(bound < -1);
                }
            }
        }
        // Enough positions whose bound is a loss before the last stone.
        assert!(
            checked > 1000 && deeper > 10,
            "{checked} checked, {deeper} deeper"
        );
    }

    /// Positions of 8 to 37 stones with scores of both signs, each solved
    /// within milliseconds.
    const QUICK: [&str; 5] = [
        "2252576253462244111563365343671351441",
        "7422341735647741166133573473242566",
        "67152117737262713366376314254446",
        "4444443322",
        "44444433",
    ];

    #[test]
    fn a_guess_changes_the_work_not_the_score() {
        let mut s = Solver::with_table_bits(20).expect("size");
        for m in QUICK {
            let p = pos(m);
            let score = s.solve(&p);
            for guess in -22..=22 {
                s.clear();
                assert_eq!(s.solve_near(&p, guess), score, "{m} from {guess}");
            }
            // Again, from a table that has the score pinned (and, for its
            // children, bounds).
            for guess in -22..=22 {
                assert_eq!(s.solve_near(&p, guess), score, "{m} again from {guess}");
            }
        }
    }

    #[test]
    fn a_score_test_says_yes_only_to_the_exact_score() {
        let mut s = Solver::with_table_bits(20).expect("size");
        for m in QUICK.into_iter().chain(["444444333", "1212121"]) {
            let p = pos(m);
            let score = s.solve(&p);
            // From a fresh table, and from one that holds the position's
            // bounds, for every score a board can have and a few it cannot.
            for fresh in [true, false] {
                for test in -23..=23 {
                    if fresh {
                        s.clear();
                    }
                    assert_eq!(s.is_score(&p, test), test == score, "{m}: {test}");
                }
            }
        }
        // A finished game: its score is the rules'.
        let won = pos("1212121");
        assert!(won.is_won());
        let score = s.solve(&won);
        assert!(s.is_score(&won, score));
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
