//! Connect Four on any board that fits a 64-bit word (7x6 by default): board
//! sizes, positions and their text forms (`board`, `game`), how they look
//! (`present`), and an exact solver (`search`), which the rules never use.
//! This file declares the game for the registry: which boards are solved
//! completely and which get an opening book, and what building one costs
//! ([`RegisteredGame`]).
//!
//! # Rules
//! Two players drop stones in turn into the columns of a vertical board of
//! `width x height` cells (7x6 by default); a stone falls to the lowest
//! empty cell of its column. Four stones of one player in a row,
//! horizontally, vertically or diagonally, win; a full board without a four
//! is a draw. `X` moves first, `O` second.
//!
//! # Positions
//! As text, a position is either the sequence of columns played from the
//! empty board, numbered from 1 at the left (`4453`; with spaces or commas
//! between moves when the board is wider than nine columns), or a picture:
//! one line per row, top row first, `.` empty, `X` and `O` (either case)
//! for the stones, lines separated by line breaks or `/`. In the API
//! columns are numbered from 0.
//!
//! # Score
//! From the side to move's point of view: 0 for a draw; if the side to move
//! can force a win, `(cells + 1 - n) / 2`, where `n` is the number of
//! stones on the board just before it plays its winning stone (on 7x6 that
//! is 22 minus the number of the winner's own stones once its four is
//! complete: the sooner the win, the larger); if it loses, the negative of
//! the opponent's score. The empty 7x6 board scores +1: the first player
//! wins with its last stone, and only by opening in the centre.
//!
//! # Bitboards
//! Column `c` owns bits `c * (height + 1)` to `c * (height + 1) + height -
//! 1`, bottom cell first, and the bit above each column stays clear, which
//! is why `width * (height + 1)` must be at most 64. A [`Bitboard`] is
//! `mask` (every stone) and `current` (the side to move's stones); its key
//! `current + mask + bottom` is unique, and the smaller of it and its mirror
//! image's key indexes the solver's transposition table.

mod bits;
mod board;
mod game;
mod present;
#[cfg(feature = "search")]
pub mod search;
#[cfg(test)]
mod tests;

pub use board::{Bitboard, Board, Variant};
pub use game::ConnectFour;
#[cfg(feature = "search")]
pub use search::Solver;

use std::sync::Arc;

use super::registered::{
    Calibration, DatabaseKind, Estimate, GameInfo, RegisteredGame, SearchHelp, ShippedBook,
    TableSharing,
};
use super::searched::DynBookGame;

/// Registry name of Connect Four.
pub(crate) const NAME: &str = "connect-four";
/// Numeric id of Connect Four in database headers.
pub(crate) const ID: u32 = 3;

/// The largest board solved completely, in cells (4x4: about a hundred
/// thousand states; 5x4 already has some ten million). Larger boards get
/// an opening book.
pub(crate) const MAX_FULL_CELLS: u32 = 16;

/// The 7x6 opening book that comes with the tools (feature
/// `shipped-books`): every position of at most 8 moves up to symmetry with
/// its exact score, packed. `docs/connect-four.md` says what it holds and
/// what it cost; the tests check it against the rules and the search.
#[cfg(feature = "shipped-books")]
pub(crate) const SHIPPED_7X6: ShippedBook = ShippedBook {
    name: "c4.db (shipped)",
    command: "generator --game connect-four --depth 8 --layout packed",
    bytes: include_bytes!("shipped/c4.db"),
};

/// 7x6 books by depth, with the default table (2^26 entries): CPU seconds
/// of the whole build, and the positions searched in parallel.
const BOOK_COSTS: &[(u32, f64, f64)] = &[
    (0, 58.0, 1.0),
    (1, 120.0, 1.6),
    (2, 290.0, 2.0),
    (3, 600.0, 2.0),
    (4, 800.0, 2.0),
    (8, 5_500.0, 2.0),
];

/// The calibration sample of the 7x6 books: six early positions of the
/// public benchmark set `Test_L1_R2`, about 0.05 s each on the reference
/// machine, searched as a book's deepest layer is, with the build's table
/// (2^26 entries, 512 MiB, by default). The table's size matters though
/// the searches touch little of it: with 2^24 entries the sample slowed by
/// 4% where other processes streamed through memory, with 2^26 by 28%, as
/// a search of the size a build makes did (27%).
const CALIBRATION: Calibration = Calibration {
    positions: &[
        "2311346732677",
        "6243671441",
        "5371555645",
        "7755745",
        "411731143",
        "241724774162",
    ],
    table_bits: 26,
    reference_seconds: 0.27,
};

/// The game's declaration: its names, help texts and constructor, for
/// the registry's list.
pub(crate) const INFO: GameInfo = GameInfo {
    name: NAME,
    id: ID,
    about: "Connect Four: drop stones, four in a row wins",
    variants: "WxH boards from 4x4 whose bitboard fits 64 bits (width x (height + 1) \
               <= 64: 7x6 (default), 8x7, 12x4, 5x10, ...), all answered by search; \
               databases of the boards whose records fit 64 bits (7x6, 6x7, 6x6 and \
               smaller): up to 16 cells solved completely, larger ones an opening book",
    notation: "the columns played from the empty board, 1-7 from the left \
               (e.g. \"4453\"), or a picture of the board (rows top to bottom, `.`, `X`, \
               `O`, separated by `/`)",
    example: "4453312",
    file_stem: "c4",
    kind: DatabaseKind::Book { default_depth: 1 },
    aliases: &[],
    search_help: Some(SearchHelp {
        subject: "Connect Four",
        variant: "",
        sharing: TableSharing::One,
    }),
    new: |spec| Ok(Arc::new(ConnectFour::from_variant(spec)?)),
};

/// The layered solver, on one process or on ranks, for the boards solved
/// completely.
#[cfg(feature = "engine")]
impl super::solvers::Solvers for ConnectFour {}

impl RegisteredGame for ConnectFour {
    /// Boards of at most [`MAX_FULL_CELLS`] are solved completely, larger
    /// ones get an opening book.
    fn database_kind(&self) -> DatabaseKind {
        if self.variant().cells() <= MAX_FULL_CELLS {
            DatabaseKind::Complete
        } else {
            INFO.kind
        }
    }

    /// The 7x6 board's book (`SHIPPED_7X6`), in builds that embed it.
    fn shipped_book(&self) -> Option<ShippedBook> {
        #[cfg(feature = "shipped-books")]
        if self.variant() == Variant::STANDARD {
            return Some(SHIPPED_7X6);
        }
        None
    }

    /// Every board is searched, the small ones too.
    fn book_game(&self) -> Option<&dyn DynBookGame> {
        Some(self)
    }

    /// Measured on 7x6 books (`BOOK_COSTS`) and the small boards (4x4
    /// takes 0.02 s); other books have none.
    fn estimate(&self, depth: u32, table_bits: u32, _threads: usize) -> Option<Estimate> {
        if self.database_kind() == DatabaseKind::Complete {
            return Some(Estimate::SMALL);
        }
        if self.variant().to_string() != "7x6" {
            return None;
        }
        let &(_, cpu, parallel) = BOOK_COSTS.iter().find(|r| r.0 == depth)?;
        // One table of 8-byte entries shared by all searchers, touched all
        // over by a search of any length.
        Some(Estimate {
            cpu_seconds: cpu,
            parallelism: parallel,
            peak_bytes: (8u64 << table_bits) + 20 * Estimate::MB,
        })
    }

    /// Every 7x6 book is the same kind of search: one sample for all.
    fn calibration(&self, _depth: u32) -> Option<Calibration> {
        (self.database_kind() != DatabaseKind::Complete && self.variant().to_string() == "7x6")
            .then_some(CALIBRATION)
    }
}
