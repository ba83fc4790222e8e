//! Answering any position of a game too large to solve completely: from a
//! database (an opening book) when it holds the position, by the game's
//! exact search otherwise.
//!
//! The searchers take the book's values at the states it holds, inside
//! their searches too (where the game's search can: Connect Four's does).
//!
//! [`LiveSearch`] is an [`Oracle`], so the engine's analysis (every move's
//! value, the best moves, the line of perfect play), the query tool and
//! play mode work past the book's depth unchanged.
//!
//! Its searchers are a fixed pool, made once with their tables: the memory
//! of the tables is checked against what the system has available before
//! anything is allocated, and stays bounded whatever the callers do. A
//! call takes an idle searcher and puts it back; when all are busy it waits
//! for one. Searchers (and their transposition tables) are kept from call
//! to call: the positions of one analysis, and the successive positions of
//! a line of play, share most of their subtrees.
//!
//! A call made inside [`Cancel::run`] stops soon after its flag is set
//! (while it waits for a searcher, too), and fails with
//! [`OracleError::Stopped`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

// The default table size is the books' default of
// `BookGame::wanted_table_bits`, defined beside it; live searches take it too.

use super::book::{BookError, BookGame};
use super::memory;
use crate::core::{BookSource, Cancel, Edge, NodeCounter, Oracle, OracleError, Value};

/// The most memory a default table size takes when the system does not
/// say what it has available: 1 GiB.
pub(crate) const UNKNOWN_MEMORY_TABLE_CAP: u64 = 1 << 30;

/// The table size a search takes when none is asked for: what the board
/// wants ([`BookGame::wanted_table_bits`]), halved until the tables of
/// `searchers` searchers take at most half the memory available
/// ([`memory::available`]; [`UNKNOWN_MEMORY_TABLE_CAP`] where that cannot
/// be told), within the game's range.
pub(crate) fn default_table_bits<G: BookGame + ?Sized>(game: &G, searchers: usize) -> u32 {
    let cap = memory::available().map_or(UNKNOWN_MEMORY_TABLE_CAP, |a| a / 2);
    let range = game.table_bits_range();
    let mut bits = game
        .wanted_table_bits(searchers)
        .clamp(*range.start(), *range.end());
    while bits > *range.start() && game.table_bytes(searchers, bits) > cap {
        bits -= 1;
    }
    bits
}

/// The searchers of a [`LiveSearch::new`]: one per thread of the machine
/// (rayon's threads where rayon is built in).
pub fn default_searchers() -> usize {
    super::book::threads()
}

/// The book a live search reads: borrowed, or shared with its owner.
enum Book<'a> {
    Borrowed(&'a dyn BookSource),
    Shared(Arc<dyn BookSource + Send + Sync>),
}

impl Book<'_> {
    fn get(&self) -> &dyn BookSource {
        match self {
            Book::Borrowed(b) => *b,
            Book::Shared(b) => &**b,
        }
    }
}

/// Values from a book, or from search where the book is silent.
pub struct LiveSearch<'a, G: BookGame> {
    game: G,
    book: Option<Book<'a>>,
    /// The searchers, idle or taken.
    pool: Pool<G::Searcher>,
    /// The searchers in all, idle or busy.
    #[cfg_attr(not(test), allow(dead_code))]
    searchers: usize,
    /// The memory of their tables.
    #[cfg_attr(not(test), allow(dead_code))]
    table_bytes: u64,
    /// The nodes every searcher has visited.
    nodes: NodeCounter,
}

/// How long a call that waits for a searcher sleeps between two looks at
/// its cancel flag.
const WAIT_STEP: std::time::Duration = std::time::Duration::from_millis(20);

impl<'a, G: BookGame> LiveSearch<'a, G> {
    /// Live search on `game`, using `book` first when given (a database of
    /// the same game and variant: the caller checks), with one searcher
    /// per thread of the machine (see [`LiveSearch::with_searchers`]).
    pub fn new(
        game: G,
        book: Option<&'a dyn BookSource>,
        table_bits: u32,
    ) -> Result<LiveSearch<'a, G>, BookError> {
        LiveSearch::with_searchers(game, book, table_bits, default_searchers())
    }

    /// Live search with `searchers` searchers (at least one), so that as
    /// many calls search at once; more wait for one of them. Their tables
    /// of `2^table_bits` entries (shared among them where the game can)
    /// are checked against the game's range and the memory available
    /// ([`BookGame::check_tables`]), then made: a size refused is an error
    /// here, never an abort later.
    pub fn with_searchers(
        game: G,
        book: Option<&'a dyn BookSource>,
        table_bits: u32,
        searchers: usize,
    ) -> Result<LiveSearch<'a, G>, BookError> {
        LiveSearch::build(game, book.map(Book::Borrowed), table_bits, searchers)
    }

    fn build(
        game: G,
        book: Option<Book<'a>>,
        table_bits: u32,
        searchers: usize,
    ) -> Result<LiveSearch<'a, G>, BookError> {
        let n = searchers.max(1);
        let table_bytes = game.check_tables(n, table_bits)?;
        let mut all = game.searchers(n, table_bits)?;
        if let Some(b) = &book {
            // Searches take the book's values at the states it holds.
            game.attach_book(&mut all, b.get())?;
        }
        let nodes = NodeCounter::default();
        for s in &mut all {
            game.count_nodes(s, nodes.clone());
        }
        let busy = Arc::new(AtomicUsize::new(0));
        game.pool(&mut all, Arc::clone(&busy));
        Ok(LiveSearch {
            game,
            book,
            searchers: all.len(),
            pool: Pool {
                idle: Mutex::new(all),
                returned: Condvar::new(),
                busy,
                waiting: AtomicUsize::new(0),
                #[cfg(test)]
                peak: AtomicUsize::new(0),
            },
            table_bytes,
            nodes,
        })
    }

    /// The number of searchers: the most calls that search at once.
    #[cfg(test)]
    pub(crate) fn searchers(&self) -> usize {
        self.searchers
    }

    /// The memory of the searchers' tables, in bytes (mapped as the
    /// searches fill them).
    #[cfg(test)]
    pub(crate) fn table_bytes(&self) -> u64 {
        self.table_bytes
    }

    /// The book's value of a canonical key, if there is a book and it
    /// holds the key.
    pub fn book_value(&self, key: u64) -> Result<Option<Value>, OracleError> {
        match &self.book {
            Some(b) => b.get().value(key),
            None => Ok(None),
        }
    }

    /// Fills the unknown entries of `out` (one per key of `keys`) by search:
    /// `search` answers a state that has moves, `end` one that has none.
    /// Fails as stopped when the calling thread's [`Cancel`] is set.
    ///
    /// Where the game's searchers share their table
    /// ([`BookGame::shares_tables`]), several states are searched at once,
    /// one per searcher idle in the pool (the calling thread waits for one
    /// when none is), each searcher
    /// taking the next state left as it finishes one, from the middle of
    /// the list out. The last key is searched after the others: an
    /// analysis asks for its moves' positions and then the position
    /// itself, whose search then starts from its moves' values in the
    /// table. A searcher goes back to the pool as soon as no state is left
    /// for it, so that a search still running can take its thread
    /// ([`BookGame::pool`]).
    fn search_missing<T>(
        &self,
        keys: &[u64],
        out: &mut [Option<T>],
        end: T,
        search: impl Fn(&mut G::Searcher, u64) -> T + Sync,
    ) -> Result<(), OracleError>
    where
        T: Copy + Send,
    {
        // The states to search, each key once (a position's moves may lead
        // to one state: mirror images) with where it first comes, and
        // where their values go.
        let mut jobs: Vec<(u64, usize)> = Vec::new();
        let mut slots: Vec<(usize, usize)> = Vec::new();
        let mut edges: Vec<Edge> = Vec::new();
        for (i, (slot, &key)) in out.iter_mut().zip(keys).enumerate() {
            if slot.is_some() || !self.game.is_valid_key(key) {
                // A malformed key has no value: the analysis reports it.
                continue;
            }
            edges.clear();
            self.game.moves(key, &mut edges);
            if edges.is_empty() {
                *slot = Some(end);
                continue;
            }
            let job = match jobs.iter().position(|&(k, _)| k == key) {
                Some(j) => j,
                None => {
                    jobs.push((key, i));
                    jobs.len() - 1
                }
            };
            slots.push((i, job));
        }
        let n = jobs.len();
        if n == 0 {
            return Ok(());
        }
        let together = self.game.shares_tables();
        let (order, last) = if together {
            // The last key (an analysis's position) is searched after the
            // others; they go from the middle of the list out, where a
            // board game lists its central moves, the longest searches (a
            // searcher that runs out of states gives its thread to the
            // searches still running, so the order matters less than it
            // would).
            let last = usize::from(n > 1 && jobs[n - 1].1 == keys.len() - 1);
            let middle = keys.len() as i64 - 2;
            let mut order: Vec<usize> = (0..n - last).collect();
            order.sort_by_key(|&j| (2 * jobs[j].1 as i64 - middle).abs());
            order.extend(n - last..n);
            (order, last)
        } else {
            // One searcher, last first: an analysis's position, whose
            // search leaves bounds on its moves in the searcher's table
            // for theirs to start from.
            ((0..n).rev().collect(), 0)
        };
        let ordered: Vec<u64> = order.iter().map(|&j| jobs[j].0).collect();
        let mut found: Vec<Option<T>> = vec![None; n];
        let cancel = Cancel::current();
        let crew = if together { usize::MAX } else { 1 };
        let (first, then) = ordered.split_at(n - last);
        let (found_first, found_then) = found.split_at_mut(n - last);
        self.pool.search_all(
            &self.game,
            first,
            found_first,
            (crew, cancel.as_ref()),
            &search,
        )?;
        self.pool
            .search_all(&self.game, then, found_then, (1, cancel.as_ref()), &search)?;
        let mut values: Vec<Option<T>> = vec![None; n];
        for (&j, v) in order.iter().zip(found) {
            values[j] = v;
        }
        for (i, job) in slots {
            out[i] = values[job];
        }
        Ok(())
    }
}

/// The searchers of a live search: the idle ones, and the count of those
/// taken.
struct Pool<S> {
    /// Idle searchers; a call takes one and puts it back.
    idle: Mutex<Vec<S>>,
    /// Woken when a searcher is put back.
    returned: Condvar,
    /// The searchers taken from the pool: a search may use the threads
    /// of the others while they idle ([`BookGame::pool`]).
    busy: Arc<AtomicUsize>,
    /// The calls waiting for a searcher: a call searching several states
    /// at once gives back the searchers it took beyond its first as soon
    /// as one waits, so that a call waits at most one search.
    waiting: AtomicUsize,
    /// The most searchers taken at once.
    #[cfg(test)]
    peak: AtomicUsize,
}

impl<S: Send> Pool<S> {
    fn lock(&self) -> MutexGuard<'_, Vec<S>> {
        // The pool holds only searchers; one poisoned by a panic elsewhere
        // is still a pool.
        self.idle.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts a searcher taken.
    fn taken(&self, s: S) -> Taken<'_, S> {
        let _now = self.busy.fetch_add(1, Ordering::Relaxed) + 1;
        #[cfg(test)]
        self.peak.fetch_max(_now, Ordering::Relaxed);
        Taken {
            pool: self,
            searcher: Some(s),
        }
    }

    /// An idle searcher, handed back when the result is dropped; `None`
    /// once `cancel` is set while waiting.
    fn take(&self, cancel: Option<&Cancel>) -> Option<Taken<'_, S>> {
        let mut idle = self.lock();
        let mut counted = false;
        loop {
            if let Some(s) = idle.pop() {
                if counted {
                    self.waiting.fetch_sub(1, Ordering::Relaxed);
                }
                return Some(self.taken(s));
            }
            if cancel.is_some_and(Cancel::is_cancelled) {
                if counted {
                    self.waiting.fetch_sub(1, Ordering::Relaxed);
                }
                return None;
            }
            if !counted {
                self.waiting.fetch_add(1, Ordering::Relaxed);
                counted = true;
            }
            idle = match cancel {
                // Look at the flag now and then.
                Some(_) => {
                    self.returned
                        .wait_timeout(idle, WAIT_STEP)
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
                None => self.returned.wait(idle).unwrap_or_else(|p| p.into_inner()),
            };
        }
    }

    /// An idle searcher if there is one now.
    fn try_take(&self) -> Option<Taken<'_, S>> {
        let s = self.lock().pop()?;
        Some(self.taken(s))
    }

    /// Searches every state of `jobs` into `found` (a state's value at its
    /// index), with one searcher taken (waiting for it) and, for more than
    /// one state, other idle ones up to `crew` in all, each on its own
    /// thread. Fails as stopped once `cancel` is set.
    fn search_all<G, T>(
        &self,
        game: &G,
        jobs: &[u64],
        found: &mut [Option<T>],
        (crew_size, cancel): (usize, Option<&Cancel>),
        search: &(impl Fn(&mut S, u64) -> T + Sync),
    ) -> Result<(), OracleError>
    where
        G: BookGame<Searcher = S>,
        T: Copy + Send,
    {
        if jobs.is_empty() {
            return Ok(());
        }
        let Some(first) = self.take(cancel) else {
            return Err(OracleError::Stopped);
        };
        let mut crew = vec![first];
        while crew.len() < jobs.len().min(crew_size) {
            match self.try_take() {
                Some(t) => crew.push(t),
                None => break,
            }
        }
        let next = AtomicUsize::new(0);
        let stopped = || cancel.is_some_and(Cancel::is_cancelled);
        // Each searcher takes the next state left until none is, or until
        // another call waits for a searcher (all but the first), then goes
        // back to the pool at once.
        let work = |mut taken: Taken<'_, S>, lends: bool| -> Result<Vec<(usize, T)>, OracleError> {
            let Some(searcher) = taken.searcher.as_mut() else {
                return Err(OracleError::Stopped);
            };
            game.set_cancel(searcher, cancel.cloned());
            let mut done = Vec::new();
            let mut result = Ok(());
            loop {
                if lends && self.waiting.load(Ordering::Relaxed) > 0 {
                    break;
                }
                let j = next.fetch_add(1, Ordering::Relaxed);
                let Some(&key) = jobs.get(j) else {
                    break;
                };
                if stopped() {
                    result = Err(OracleError::Stopped);
                    break;
                }
                let v = search(searcher, key);
                // The flag stays set once set: a search it stopped is seen
                // here, and its meaningless answer thrown away.
                if stopped() {
                    result = Err(OracleError::Stopped);
                    break;
                }
                done.push((j, v));
            }
            game.set_cancel(searcher, None);
            drop(taken);
            result.map(|()| done)
        };
        let mut results = Vec::with_capacity(crew.len());
        let own = crew.remove(0);
        std::thread::scope(|scope| {
            let others: Vec<_> = crew
                .into_iter()
                .map(|t| scope.spawn(|| work(t, true)))
                .collect();
            results.push(work(own, false));
            for h in others {
                match h.join() {
                    Ok(r) => results.push(r),
                    // A search that panicked: the bug surfaces here too.
                    Err(e) => std::panic::resume_unwind(e),
                }
            }
        });
        for r in results {
            for (j, v) in r? {
                found[j] = Some(v);
            }
        }
        Ok(())
    }
}

impl<G: BookGame> LiveSearch<'static, G> {
    /// [`LiveSearch::with_searchers`] on a book the live search shares
    /// with its owner, so that both can be kept together (a reader that
    /// holds its database and its searchers from call to call).
    pub(crate) fn shared(
        game: G,
        book: Option<Arc<dyn BookSource + Send + Sync>>,
        table_bits: u32,
        searchers: usize,
    ) -> Result<LiveSearch<'static, G>, BookError> {
        LiveSearch::build(game, book.map(Book::Shared), table_bits, searchers)
    }
}

/// A searcher taken from the pool, put back when dropped (after a panic
/// too: its table holds only proved bounds).
struct Taken<'p, S: Send> {
    pool: &'p Pool<S>,
    searcher: Option<S>,
}

impl<S: Send> Drop for Taken<'_, S> {
    fn drop(&mut self) {
        if let Some(s) = self.searcher.take() {
            self.pool.busy.fetch_sub(1, Ordering::Relaxed);
            self.pool.lock().push(s);
            self.pool.returned.notify_one();
        }
    }
}

impl<G: BookGame> Oracle for LiveSearch<'_, G> {
    fn values(&self, keys: &[u64], out: &mut Vec<Option<Value>>) -> Result<(), OracleError> {
        match &self.book {
            Some(book) => book.get().values(keys, out)?,
            None => {
                out.clear();
                out.resize(keys.len(), None);
            }
        }
        self.search_missing(keys, out, Value::TERMINAL, |s, key| {
            self.game.search(s, key)
        })
    }

    fn is_complete(&self) -> bool {
        // Every valid state has a value.
        true
    }

    fn node_counter(&self) -> Option<NodeCounter> {
        Some(self.nodes.clone())
    }

    fn outcomes(&self, keys: &[u64], out: &mut Vec<Option<i32>>) -> Result<(), OracleError> {
        out.clear();
        match &self.book {
            Some(book) => {
                let mut values = Vec::with_capacity(keys.len());
                book.get().values(keys, &mut values)?;
                out.extend(values.into_iter().map(|v| v.map(|v| v.net.signum())));
            }
            None => out.resize(keys.len(), None),
        }
        self.search_missing(keys, out, 0, |s, key| self.game.search_outcome(s, key))
    }

    fn is_value(&self, key: u64, value: Value) -> Result<Option<bool>, OracleError> {
        let mut out = [self.book_value(key)?.map(|v| v == value)];
        self.search_missing(&[key], &mut out, value == Value::TERMINAL, |s, key| {
            self.game.search_is(s, key, value)
        })?;
        Ok(out[0])
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::analysis::{analyze, QueryError};
    use crate::core::Game;
    use crate::games::connect_four::{Bitboard, ConnectFour, Solver, Variant};
    use crate::games::dandelions::Dandelions;
    use crate::games::dots_and_boxes::DotsAndBoxes;

    /// The most a stopped search may take to return, from the moment its
    /// flag is set: a deadline of behaviour, not a speed. It returns within
    /// milliseconds; 5 s is room for a busy machine, where a search that
    /// missed its flag would run on for many seconds (and end unstopped,
    /// which the tests catch too).
    const PROMPT: Duration = Duration::from_secs(5);

    /// Runs `search` with `cancel` set `after` it starts, from another
    /// thread; the time from the flag to the return, and what it returned.
    fn stop_after<T>(
        cancel: &Cancel,
        after: Duration,
        search: impl FnOnce() -> T,
    ) -> (Duration, T) {
        std::thread::scope(|scope| {
            let stopper = cancel.clone();
            let set = scope.spawn(move || {
                std::thread::sleep(after);
                stopper.cancel();
                Instant::now()
            });
            let out = search();
            let returned = Instant::now();
            let set = set.join().expect("the stopping thread");
            (returned.saturating_duration_since(set), out)
        })
    }

    fn c4(moves: &str) -> Bitboard {
        Bitboard::from_moves(Variant::STANDARD, moves).expect("legal")
    }

    /// Positions that follow `44` (late ones, quick to solve), whose
    /// subtrees the stopped search of `44` visits.
    const AFTER_44: [&str; 2] = ["4444443322", "44444433"];

    #[test]
    fn a_stopped_connect_four_search_leaves_only_proved_bounds() {
        // A position that takes most of a second (4 million nodes),
        // stopped early: the path it was on when stopped unwinds through the
        // position itself and its first moves, where a store of what the
        // unwinding returns would spoil the next search of it.
        let p = c4("44533");
        let mut fresh = Solver::with_table_bits(20).expect("table");
        let (exact, weak) = (fresh.solve(&p), fresh.solve_weak(&p));
        // On one thread, then on three (helpers stopped with the search).
        for (after, threads) in [(50, 1), (150, 1), (300, 1), (30, 3), (100, 3)] {
            let mut solver = Solver::with_table_bits(20).expect("table");
            solver.set_threads(threads);
            let cancel = Cancel::new();
            solver.set_cancel(Some(cancel.clone()));
            stop_after(&cancel, Duration::from_millis(after), || solver.solve(&p));
            assert!(solver.stopped(), "the search ended before the flag");
            solver.set_cancel(None);
            assert_eq!(solver.solve(&p), exact, "stopped after {after} ms");
            let mut solver = Solver::with_table_bits(20).expect("table");
            solver.set_threads(threads);
            let cancel = Cancel::new();
            solver.set_cancel(Some(cancel.clone()));
            stop_after(&cancel, Duration::from_millis(after), || solver.solve(&p));
            solver.set_cancel(None);
            assert_eq!(solver.solve_weak(&p), weak, "stopped after {after} ms");
        }
    }

    /// Stops searches of `state` (about a second's work) early, then
    /// searches it again with the same searcher: the value must be a fresh
    /// searcher's.
    fn stopped_early_then_exact<G: BookGame + Clone>(game: &G, state: u64) {
        let key = game.canonical(state);
        let fresh = LiveSearch::with_searchers(game.clone(), None, 20, 1).expect("live");
        let exact = fresh.value(key).expect("answer");
        for after in [60, 250] {
            let live = LiveSearch::with_searchers(game.clone(), None, 20, 1).expect("live");
            let cancel = Cancel::new();
            let (_, got) = stop_after(&cancel, Duration::from_millis(after), || {
                cancel.run(|| live.value(key))
            });
            assert!(
                got.is_err_and(|e| matches!(e, OracleError::Stopped)),
                "ended before the flag"
            );
            assert_eq!(
                live.value(key).expect("answer"),
                exact,
                "stopped after {after} ms"
            );
        }
    }

    #[test]
    fn stopped_dandelions_and_dots_and_boxes_searches_leave_only_proved_bounds() {
        let dandelions = Dandelions::from_variant("5x5").expect("variant");
        stopped_early_then_exact(&dandelions, 0x1037e2);
        let boxes = DotsAndBoxes::from_variant("4x4").expect("variant");
        stopped_early_then_exact(&boxes, 0x3ff8000);
    }

    #[test]
    fn a_connect_four_search_stops_at_once_and_its_table_stays_exact() {
        // `44` on 7x6 without a book takes many seconds.
        let mut solver = Solver::with_table_bits(22).expect("table");
        let cancel = Cancel::new();
        solver.set_cancel(Some(cancel.clone()));
        let (late, _) = stop_after(&cancel, Duration::from_millis(300), || {
            solver.solve(&c4("44"))
        });
        assert!(solver.stopped());
        assert!(late < PROMPT, "stopped {late:?} after the flag");
        // The same table, no longer stopped, answers as a fresh solver.
        solver.set_cancel(None);
        let mut fresh = Solver::with_table_bits(20).expect("table");
        for m in AFTER_44 {
            assert_eq!(solver.solve(&c4(m)), fresh.solve(&c4(m)), "{m}");
            assert!(!solver.stopped());
            assert_eq!(
                solver.column_scores(&c4(m)),
                fresh.column_scores(&c4(m)),
                "{m}"
            );
        }
    }

    #[test]
    fn a_live_search_stopped_from_another_thread_fails_as_stopped() {
        let game = ConnectFour::from_variant("7x6").expect("variant");
        let live = LiveSearch::with_searchers(game.clone(), None, 22, 1).expect("live");
        let key = game.canonical(c4("44").key());
        let cancel = Cancel::new();
        let (late, got) = stop_after(&cancel, Duration::from_millis(300), || {
            cancel.run(|| live.value(key))
        });
        assert!(late < PROMPT, "stopped {late:?} after the flag");
        assert!(matches!(got, Err(OracleError::Stopped)), "{got:?}");
        // The analysis says so, and nothing is blamed on a database.
        let stopped = Cancel::new();
        stopped.cancel();
        let e = stopped
            .run(|| analyze(&game, &live, c4("44").key()))
            .expect_err("stopped");
        assert!(matches!(e, QueryError::Stopped) && !e.is_corrupt(), "{e}");
        // The searcher went back to the pool, its table sound.
        let fresh = LiveSearch::with_searchers(game.clone(), None, 20, 1).expect("live");
        for m in AFTER_44 {
            let state = c4(m).key();
            assert_eq!(
                analyze(&game, &live, state).expect("answered"),
                analyze(&game, &fresh, state).expect("answered"),
                "{m}"
            );
        }
    }

    #[test]
    fn a_deadline_stops_a_search_by_itself() {
        let game = ConnectFour::from_variant("7x6").expect("variant");
        let live = LiveSearch::with_searchers(game.clone(), None, 20, 1).expect("live");
        let cancel = Cancel::with_time_limit(Duration::from_millis(200));
        let start = Instant::now();
        let got = cancel.run(|| live.value(game.canonical(c4("44").key())));
        let took = start.elapsed();
        // Stopped, not answered: the search of many seconds did not run on.
        assert!(got.is_err_and(|e| matches!(e, OracleError::Stopped)));
        // By its time limit, with room for a busy machine (see PROMPT).
        assert!(took < Duration::from_millis(200) + PROMPT, "{took:?}");
    }

    #[test]
    fn a_call_waiting_for_a_busy_searcher_can_be_stopped() {
        let game = ConnectFour::from_variant("7x6").expect("variant");
        let live = LiveSearch::with_searchers(game.clone(), None, 20, 1).expect("live");
        assert_eq!(live.searchers(), 1);
        let key = game.canonical(c4("44").key());
        let (long, waiting) = (Cancel::new(), Cancel::new());
        std::thread::scope(|scope| {
            let busy = scope.spawn(|| long.run(|| live.value(key)));
            std::thread::sleep(Duration::from_millis(100));
            // The only searcher is busy: this call waits, until stopped.
            let (late, got) = stop_after(&waiting, Duration::from_millis(100), || {
                waiting.run(|| live.value(key))
            });
            assert!(late < PROMPT, "stopped {late:?} after the flag");
            assert!(got.is_err_and(|e| matches!(e, OracleError::Stopped)));
            long.cancel();
            assert!(busy
                .join()
                .expect("thread")
                .is_err_and(|e| matches!(e, OracleError::Stopped)));
        });
        // Both calls are over: the searcher is back.
        let state = c4("4444443322").key();
        assert!(live.value(game.canonical(state)).expect("answer").is_some());
    }

    #[test]
    fn an_analysis_searches_its_moves_on_every_idle_searcher() {
        let game = ConnectFour::from_variant("7x6").expect("variant");
        let live = LiveSearch::with_searchers(game.clone(), None, 22, 2).expect("live");
        let alone = LiveSearch::with_searchers(game.clone(), None, 22, 1).expect("live");
        for m in ["445362", "4444443", "3344552"] {
            let state = c4(m).key();
            assert_eq!(
                analyze(&game, &live, state).expect("answered"),
                analyze(&game, &alone, state).expect("answered"),
                "{m}"
            );
        }
        assert_eq!(live.pool.peak.load(Ordering::Relaxed), 2);
        assert_eq!(live.pool.busy.load(Ordering::Relaxed), 0, "all given back");
    }

    #[test]
    fn a_call_waits_at_most_one_search_for_a_searcher_an_analysis_took() {
        let game = ConnectFour::from_variant("7x6").expect("variant");
        let live = LiveSearch::with_searchers(game.clone(), None, 22, 2).expect("live");
        // Seven moves of a second or so each, on both searchers.
        let hard = c4("4453").key();
        let easy = game.canonical(c4("4444443322").key());
        let (long, short) = std::thread::scope(|scope| {
            let long = scope.spawn(|| {
                let a = analyze(&game, &live, hard).expect("answered");
                (Instant::now(), a)
            });
            while live.pool.busy.load(Ordering::Relaxed) < 2 && !long.is_finished() {
                std::thread::sleep(Duration::from_millis(1));
            }
            let v = live.value(easy).expect("answered");
            let short = Instant::now();
            (long.join().expect("thread"), (short, v))
        });
        assert!(short.1.is_some());
        assert_eq!(long.1.value.net, -2, "4453 is lost by 2");
        // The easy call got the searcher the analysis lent as soon as one
        // of its moves was searched, while the analysis went on.
        assert!(
            short.0 < long.0,
            "the easy call waited for the whole analysis"
        );
    }

    #[test]
    fn dandelions_and_dots_and_boxes_searches_stop_at_once() {
        let dandelions = Dandelions::from_variant("5x5").expect("variant");
        let live = LiveSearch::with_searchers(dandelions.clone(), None, 20, 1).expect("live");
        let start = dandelions.canonical(dandelions.start());
        let cancel = Cancel::new();
        let (late, got) = stop_after(&cancel, Duration::from_millis(300), || {
            cancel.run(|| live.value(start))
        });
        assert!(late < PROMPT, "dandelions stopped {late:?} after the flag");
        assert!(got.is_err_and(|e| matches!(e, OracleError::Stopped)));

        let boxes = DotsAndBoxes::from_variant("4x4").expect("variant");
        let live = LiveSearch::with_searchers(boxes.clone(), None, 20, 1).expect("live");
        let start = boxes.canonical(boxes.start());
        let cancel = Cancel::new();
        let (late, got) = stop_after(&cancel, Duration::from_millis(300), || {
            cancel.run(|| live.value(start))
        });
        assert!(
            late < PROMPT,
            "dots and boxes stopped {late:?} after the flag"
        );
        assert!(got.is_err_and(|e| matches!(e, OracleError::Stopped)));
    }

    #[test]
    fn tables_are_checked_before_they_are_made() {
        let game = ConnectFour::from_variant("7x6").expect("variant");
        // Out of the game's range.
        let e = LiveSearch::new(game.clone(), None, 40)
            .err()
            .expect("refused");
        assert!(
            matches!(e, BookError::Table(TableError::OutOfRange { bits: 40, .. })),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "table bits 40: connect-four 7x6 takes 20 to 32"
        );
        // In range, but more than any machine here has: refused before
        // anything is allocated.
        #[cfg(target_os = "linux")]
        {
            let boxes = DotsAndBoxes::from_variant("4x4").expect("variant");
            let e = LiveSearch::with_searchers(boxes, None, 34, 1_000_000)
                .err()
                .expect("refused");
            assert!(
                matches!(e, BookError::Table(TableError::TooLarge { .. })),
                "{e}"
            );
        }
        let live = LiveSearch::with_searchers(game, None, 20, 3).expect("live");
        assert_eq!(live.searchers(), 3);
        assert!(live.table_bytes() >= 8 << 20);
    }

    /// The default size follows the board (Dots and Boxes: 2^22 entries a
    /// searcher on a board of the tables, 2^29 from 36 edges) and the
    /// searchers, and its tables take at most half the memory available.
    #[test]
    fn default_tables_follow_the_board_within_half_the_memory() {
        let small = DotsAndBoxes::from_variant("3x3").unwrap();
        let large = DotsAndBoxes::from_variant("4x4").unwrap();
        assert_eq!(small.wanted_table_bits(1), 22);
        assert_eq!(large.wanted_table_bits(1), 29);
        assert_eq!(large.wanted_table_bits(2), 30);
        let cap = memory::available().map_or(UNKNOWN_MEMORY_TABLE_CAP, |a| a / 2);
        for n in [1, 2, 3] {
            for g in [&small, &large] {
                let bits = default_table_bits(g, n);
                let range = g.table_bits_range();
                assert!(range.contains(&bits));
                assert!(bits <= g.wanted_table_bits(n));
                assert!(g.table_bytes(n, bits) <= cap || bits == *range.start());
                // The size halved once more would not have been needed.
                if bits < g.wanted_table_bits(n) {
                    assert!(g.table_bytes(n, bits + 1) > cap);
                }
            }
        }
        let other = ConnectFour::from_variant("7x6").expect("variant");
        assert!(default_table_bits(&other, 1) <= crate::solve::book::DEFAULT_TABLE_BITS);
    }

    use crate::solve::memory::TableError;
}
