//! Answering any Connect Four position: from an opening book when it holds
//! the position, by exact search otherwise.
//!
//! [`LiveSearch`] is an [`Oracle`], so the engine's analysis (every
//! column's value, the best columns, the line of perfect play), the query
//! tool and play mode work past the book's depth unchanged. Searches reuse
//! solvers (and their transposition tables) from call to call: the
//! positions of one analysis, and the successive positions of a line of
//! play, share most of their subtrees.

use std::sync::Mutex;

use super::board::Position;
use super::game::ConnectFour;
use super::solver::{Solver, TableSizeError};
use crate::analysis::Oracle;
use crate::db::Database;
use crate::value::Value;

/// Values from a book, or from search where the book is silent.
pub struct LiveSearch<'a> {
    game: ConnectFour,
    book: Option<&'a Database>,
    table_bits: u32,
    /// Idle solvers; a thread takes one for a call and puts it back.
    solvers: Mutex<Vec<Solver>>,
}

/// A position answered as win, draw or loss only (see [`LiveSearch::weak`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeakAnswer {
    /// For the side to move: 1 a win, 0 a draw, -1 a loss.
    pub result: i32,
    /// Every playable column (0-based) with the result for the side to move
    /// if it plays there.
    pub columns: Vec<(u32, i32)>,
}

impl WeakAnswer {
    /// The columns that keep the best result.
    pub fn best(&self) -> impl Iterator<Item = u32> + '_ {
        self.columns
            .iter()
            .filter(|&&(_, r)| r == self.result)
            .map(|&(c, _)| c)
    }
}

impl<'a> LiveSearch<'a> {
    /// The default `log2` of the transposition table entries of each
    /// solver: 2^26 entries, 512 MiB, mapped only as the search fills them
    /// (an early position fills them; a late one touches a few pages).
    pub const DEFAULT_TABLE_BITS: u32 = 26;

    /// Live search on `game`'s board, using `book` first when given (a
    /// database of the same game and board: the caller checks).
    pub fn new(
        game: ConnectFour,
        book: Option<&'a Database>,
        table_bits: u32,
    ) -> Result<LiveSearch<'a>, TableSizeError> {
        // The first solver checks the size (its table is mapped lazily).
        let first = Solver::with_table_bits(table_bits)?;
        Ok(LiveSearch {
            game,
            book,
            table_bits,
            solvers: Mutex::new(vec![first]),
        })
    }

    /// The game.
    pub fn game(&self) -> &ConnectFour {
        &self.game
    }

    /// Runs `f` with a solver of the pool (a new one when all are busy).
    fn with_solver<T>(&self, f: impl FnOnce(&mut Solver) -> T) -> T {
        let taken = self.solvers.lock().ok().and_then(|mut s| s.pop());
        let mut solver = match taken {
            Some(s) => s,
            // The size was checked in `new`.
            None => Solver::with_table_bits(self.table_bits).unwrap_or_default(),
        };
        let out = f(&mut solver);
        if let Ok(mut pool) = self.solvers.lock() {
            pool.push(solver);
        }
        out
    }

    /// The book's value of a canonical key, if there is a book and it
    /// holds the key.
    fn book_value(&self, key: u64) -> Option<Value> {
        self.book.and_then(|b| b.get(key))
    }

    /// The exact score of a position for its side to move (0 for a
    /// finished position): from the book, else by search.
    pub fn score(&self, position: &Position) -> i32 {
        if position.is_over() {
            return 0;
        }
        if let Some(v) = self.book_value(position.canonical_key()) {
            return v.net;
        }
        self.with_solver(|s| s.solve(position))
    }

    /// Win, draw or loss only, for the position and every column: much
    /// faster than exact scores when no book holds the positions.
    pub fn weak(&self, position: &Position) -> WeakAnswer {
        let weak_of = |p: &Position, s: &mut Solver| -> i32 {
            match self.book_value(p.canonical_key()) {
                Some(v) => v.net.signum(),
                None => s.solve_weak(p),
            }
        };
        self.with_solver(|s| {
            let mut columns = Vec::new();
            if !position.is_over() {
                for c in 0..self.game.variant().width() {
                    if !position.can_play(c) {
                        continue;
                    }
                    let r = if position.is_winning_move(c) {
                        1
                    } else {
                        match position.play(c) {
                            Ok(child) if child.is_over() => 0,
                            Ok(child) => -weak_of(&child, s),
                            Err(_) => continue,
                        }
                    };
                    columns.push((c, r));
                }
            }
            let result = columns.iter().map(|&(_, r)| r).max().unwrap_or(0);
            WeakAnswer { result, columns }
        })
    }
}

impl Oracle for LiveSearch<'_> {
    fn values(&self, keys: &[u64], out: &mut Vec<Option<Value>>) {
        match self.book {
            Some(book) => book.get_many(keys, out),
            None => {
                out.clear();
                out.resize(keys.len(), None);
            }
        }
        if out.iter().all(Option::is_some) {
            return;
        }
        let v = self.game.variant();
        self.with_solver(|solver| {
            for (slot, &key) in out.iter_mut().zip(keys) {
                if slot.is_some() {
                    continue;
                }
                // A malformed key has no value: the analysis reports it.
                if let Some(p) = Position::from_key(v, key) {
                    let score = if p.is_over() { 0 } else { solver.solve(&p) };
                    *slot = Some(self.game.value_of_score(&p, score));
                }
            }
        });
    }

    fn is_complete(&self) -> bool {
        // Every position has a value: one it lacks is malformed.
        true
    }
}
