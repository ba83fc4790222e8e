//! The exact solver: negamax with alpha-beta over bitboards, a
//! transposition table keyed by the mirror-canonical key, and null-window
//! searches that narrow the score interval from the root.
//!
//! What makes it fast, beyond the table:
//! - every move is first looked at statically (`settle`): the replies it
//!   forces are played out without a node, and a child that is lost at
//!   once, or whose score the table, the second player's claimeven
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
//!
//! The parts are files: `solver`, the public [`Solver`]; `negamax`, one
//! search (the narrowing of the score at the root, and alpha-beta);
//! `settle`, its static look at a move; `ordering`, its move ordering;
//! `parallel`, a search on several threads, and `pool`, what its helpers
//! and its pool share; `table`, the transposition table; `book_scores`, an
//! opening book's scores; `book`, the side of the opening-book builder and
//! the live search.

mod book;
mod book_scores;
mod negamax;
mod ordering;
mod parallel;
mod pool;
mod settle;
mod solver;
mod table;
#[cfg(test)]
mod tests;

pub(crate) use book_scores::BookScores;
pub use solver::Solver;

/// Nodes between two reports to a solver's node counter.
pub(crate) const NODE_REPORT: u64 = 1 << 16;

/// Nodes between two looks at the solver's
/// [`Cancel`](crate::core::Cancel): a few milliseconds of search at most.
pub(crate) const STOP_CHECK: u64 = 1 << 12;

const _: () = assert!(NODE_REPORT.is_multiple_of(STOP_CHECK));
