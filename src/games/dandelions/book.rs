//! Dandelions' side of the opening-book builder and the live search: the
//! exact solver searches the book's deepest layer.

use super::field::TURNS;
use super::search::{Solver, ENDGAME_TURNS};
use super::Dandelions;
use crate::core::{Cancel, Value};
use crate::solve::book::{BookError, BookGame};

/// Each search thread has its own solver and table.
impl BookGame for Dandelions {
    type Searcher = Solver;

    /// Entries are 16 bytes: the table has half as many entries as the
    /// words asked for, between 2^10 and 2^30.
    fn table_bits_range(&self) -> std::ops::RangeInclusive<u32> {
        11..=31
    }

    fn searchers(&self, n: usize, table_bits: u32) -> Result<Vec<Solver>, BookError> {
        // Entries are 16 bytes: half as many for the same memory.
        let mut all = Vec::with_capacity(n.max(1));
        for _ in 0..n.max(1) {
            all.push(Solver::try_new(
                self.geometry().clone(),
                table_bits.saturating_sub(1),
            )?);
        }
        Ok(all)
    }

    /// One table a searcher.
    fn table_bytes(&self, n: usize, table_bits: u32) -> u64 {
        (n.max(1) as u64).saturating_mul(Solver::table_bytes(table_bits.saturating_sub(1)))
    }

    /// A table each, mapped on threads of their own (the system zeroes
    /// every page it maps).
    fn prefault(&self, solvers: &mut [Solver]) {
        std::thread::scope(|scope| {
            for s in solvers {
                scope.spawn(|| s.prefault());
            }
        });
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
        let f = self.f(state);
        // Late states: one full-window search without the table is faster
        // than bisection (a 9-turn book's deepest layer has 5 turns left).
        let (d, rem) = if TURNS - f.turns().min(TURNS) <= ENDGAME_TURNS {
            solver.solve_endgame(&f)
        } else {
            solver.solve(&f)
        };
        self.value_of(&f, d, rem)
    }
}
