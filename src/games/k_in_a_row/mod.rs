//! k-in-a-row (m,n,k-games), tic-tac-toe on 3x3 with k=3: board sizes,
//! lines, symmetries and the key (`board`), the rules and notation
//! (`game`), how they look (`present`), and an exact solver (`search`),
//! which the rules never use. This file declares the game for the
//! registry: which boards are solved completely and which get an opening
//! book ([`RegisteredGame`]).
//!
//! # Rules
//! On a board of `rows x cols` cells, `X` and `O` in turn place a stone on
//! any empty cell, `X` first. The first to have `k` stones in a row,
//! horizontally, vertically or diagonally, wins; a full board without such
//! a line is a draw.
//!
//! # Positions
//! As text, a position is a picture: the rows from the top, separated by
//! `/`, each cell `.`, `X` or `O`, then optionally the side to move
//! (`X.O/.X./... O`); or the moves from the empty board, cell numbers
//! (from 0, row by row from the top left) or coordinates (`b2`: column
//! `b`, row 2 from the top), separated by spaces or commas.
//!
//! # Key
//! Up to 35 cells, base 3: `sum(digit(cell) * 3^cell)`, the digit 0 for
//! an empty cell, 1 for `X`, 2 for `O`; a record (key, a 2-bit value and
//! the remoteness) fits 64 bits. On larger boards, up to 7x7, the
//! positions of few stones (16 on 7x7, all of them on 6x6) are ranked
//! below `2^56`, which is what an opening book holds, and deeper positions
//! get handles this process keeps ([`Keys`]). The engine's canonical key
//! is the smallest key over the board's symmetries (8 on a square, 4 on a
//! rectangle); the search keys its table by the two bitboards instead.

mod board;
mod game;
mod key;
mod present;
#[cfg(feature = "search")]
pub mod search;
#[cfg(test)]
mod tests;

pub use game::KInARow;
pub use key::Keys;
#[cfg(feature = "search")]
pub use search::Solver;

use std::sync::Arc;

use super::registered::{
    DatabaseKind, Estimate, GameInfo, RegisteredGame, SearchHelp, TableSharing,
};
use super::searched::DynBookGame;

/// Registry name of k-in-a-row.
pub(crate) const NAME: &str = "k-in-a-row";
/// Numeric id of k-in-a-row in database headers.
pub(crate) const ID: u32 = 5;

/// The largest board solved completely, in cells (4x4: some ten million
/// positions before symmetry). Larger boards get an opening book.
pub(crate) const MAX_FULL_CELLS: u32 = 16;

/// The game's declaration: its names, help texts and constructor, for
/// the registry's list.
pub(crate) const INFO: GameInfo = GameInfo {
    name: NAME,
    id: ID,
    about: "k-in-a-row (m,n,k-games): place stones, k in a row wins; tic-tac-toe is 3x3,k=3",
    variants: "RxC,k=K, rows x columns up to 49 cells (7x7), 1 <= K <= the longer side: 3x3,k=3 \
               (default, also `tic-tac-toe`, and `--game tic-tac-toe`), 4x4,k=3, 5x5,k=4, ...; up to 16 cells \
               solved completely, larger boards an opening book and \
               search",
    notation: "the board, rows from the top separated by `/` (`.`, `X`, `O`), then \
               optionally the side to move (e.g. \"X../.O./... X\"), or the moves from \
               the empty board, cell numbers or coordinates (e.g. \"b2 a1\")",
    example: "X../.O./..X O",
    file_stem: "kinarow",
    kind: DatabaseKind::Complete,
    aliases: &[("tic-tac-toe", "3x3,k=3")],
    search_help: Some(SearchHelp {
        subject: "k-in-a-row past 16 cells",
        variant: "5x5,k=4",
        sharing: TableSharing::PerSearcher,
    }),
    new: |spec| Ok(Arc::new(KInARow::from_variant(spec)?)),
};

/// The layered solver, on one process or on ranks, for the boards solved
/// completely.
#[cfg(feature = "engine")]
impl super::solvers::Solvers for KInARow {}

impl RegisteredGame for KInARow {
    /// Boards of at most [`MAX_FULL_CELLS`] are solved completely, larger
    /// ones get an opening book.
    fn database_kind(&self) -> DatabaseKind {
        if self.variant().cells() <= MAX_FULL_CELLS {
            DatabaseKind::Complete
        } else {
            DatabaseKind::Book { default_depth: 2 }
        }
    }

    /// Every board is searched, the small ones too.
    fn book_game(&self) -> Option<&dyn DynBookGame> {
        Some(self)
    }

    /// Measured on the small boards (see `docs/k-in-a-row.md`); books
    /// have none.
    fn estimate(&self, _depth: u32, _table_bits: u32, _threads: usize) -> Option<Estimate> {
        if self.database_kind() != DatabaseKind::Complete {
            return None;
        }
        Some(if self.variant().cells() >= 15 {
            SIXTEEN_CELLS
        } else {
            Estimate::SMALL
        })
    }
}

/// A board of 15 or 16 cells solved completely: measured 1.1 s and 49 MB
/// (4x4,k=3), 2.1 s and 60 MB (4x4,k=4).
const SIXTEEN_CELLS: Estimate = Estimate {
    cpu_seconds: 2.0,
    parallelism: 1.0,
    peak_bytes: 64 * Estimate::MB,
};
