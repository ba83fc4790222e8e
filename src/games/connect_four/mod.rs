//! Connect Four on any board that fits a 64-bit word (7x6 by default): board
//! sizes, positions and their text forms (`board`, `game`), how they look
//! (`present`), and an exact solver (`search`), which the rules never use.
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

pub use board::{Bitboard, Board, BoardSizeError, MoveError, ParseError, Variant, MIN_SIDE};
pub use game::ConnectFour;
#[cfg(feature = "search")]
pub use search::{BookScores, Solver, TableSizeError};

/// Registry name of Connect Four.
pub const NAME: &str = "connect-four";
/// Numeric id of Connect Four in database headers.
pub const ID: u32 = 3;
