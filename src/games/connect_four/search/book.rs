//! Connect Four's side of the opening-book builder and the live search:
//! the exact solver searches the book's deepest layer, and takes a book's
//! scores inside its searches.

use std::sync::Arc;

use super::{BookScores, Solver};
use crate::core::{BookSource, Cancel, Corrupted, Game, Value};
use crate::games::connect_four::ConnectFour;
use crate::solve::book::{BookError, BookGame};
use crate::solve::memory::TableError;

/// The book's deepest layer is searched with the exact solver; the search
/// threads share one transposition table.
impl BookGame for ConnectFour {
    type Searcher = Solver;

    fn table_bits_range(&self) -> std::ops::RangeInclusive<u32> {
        super::table::MIN_BITS..=super::table::MAX_BITS
    }

    fn searchers(&self, n: usize, table_bits: u32) -> Result<Vec<Solver>, BookError> {
        let first = Solver::with_table_bits(table_bits).map_err(|e| match e {
            TableError::OutOfRange { bits, min, max, .. } => TableError::OutOfRange {
                bits,
                game: format!("{} {}", self.descriptor().name, self.descriptor().variant),
                min,
                max,
            },
            e => e,
        })?;
        let mut all: Vec<Solver> = (1..n).map(|_| first.sharing()).collect();
        all.push(first);
        Ok(all)
    }

    /// One table for all: `2^table_bits` words, and the first solver's log
    /// of the entries it fills (a sixteenth of them, 4 bytes each).
    fn table_bytes(&self, _n: usize, table_bits: u32) -> u64 {
        (8u64 << table_bits) + (4u64 << table_bits) / 16
    }

    /// One table, shared.
    fn shares_tables(&self) -> bool {
        true
    }

    /// The table is shared: mapping it through the first solver maps it
    /// for all.
    fn prefault(&self, solvers: &mut [Solver]) {
        if let Some(first) = solvers.first_mut() {
            first.prefault();
        }
    }

    fn set_cancel(&self, solver: &mut Solver, cancel: Option<Cancel>) {
        solver.set_cancel(cancel);
    }

    fn count_nodes(
        &self,
        solver: &mut Solver,
        counter: std::sync::Arc<std::sync::atomic::AtomicU64>,
    ) {
        solver.set_node_counter(Some(counter));
    }

    fn search(&self, solver: &mut Solver, state: u64) -> Value {
        let p = self.pos(state);
        let score = if p.is_over() { 0 } else { solver.solve(&p) };
        self.value_of_score(&p, score)
    }

    fn search_near(&self, solver: &mut Solver, state: u64, hint: Value) -> Value {
        let p = self.pos(state);
        let score = if p.is_over() {
            0
        } else {
            solver.solve_near(&p, hint.net)
        };
        self.value_of_score(&p, score)
    }

    /// Null-window searches around the score `value` claims, which also
    /// fixes its remoteness.
    fn search_is(&self, solver: &mut Solver, state: u64, value: Value) -> bool {
        let p = self.pos(state);
        if p.is_over() {
            return value == Value::TERMINAL;
        }
        self.value_of_score(&p, value.net) == value && solver.is_score(&p, value.net)
    }

    fn search_outcome(&self, solver: &mut Solver, state: u64) -> i32 {
        let p = self.pos(state);
        if p.is_over() {
            0
        } else {
            solver.solve_weak(&p)
        }
    }

    /// Each search may use as many threads as the pool has solvers, less
    /// the other searches under way.
    fn pool(&self, solvers: &mut [Solver], busy: Arc<std::sync::atomic::AtomicUsize>) {
        let threads = solvers.len();
        for s in solvers {
            s.set_threads(threads);
            s.set_busy(Some(Arc::clone(&busy)));
        }
    }

    fn attach_book(&self, solvers: &mut [Solver], book: &dyn BookSource) -> Result<(), Corrupted> {
        let scores = Arc::new(self.book_scores(book)?);
        for s in solvers {
            s.set_book(Some(Arc::clone(&scores)));
        }
        Ok(())
    }
}

impl ConnectFour {
    /// The exact scores of `book` (a database of this variant) for the
    /// solver to use ([`Solver::set_book`]).
    pub fn book_scores(&self, book: &dyn BookSource) -> Result<BookScores, Corrupted> {
        let entries = book
            .entries()
            .map(|e| e.map(|(key, value)| (key, self.score(key, value.net))))
            .collect::<Result<Vec<_>, Corrupted>>()?;
        Ok(BookScores::new(self.variant(), entries))
    }
}
