//! Dots and Boxes on an `R x C` board of boxes.
//!
//! # Edge numbering (public: every interface uses it)
//! Horizontal edges first, row by row from the top: edge `r * C + c` joins
//! dot `(r, c)` to dot `(r, c + 1)`, for `r` in `0..=R` and `c` in `0..C`.
//! Then the vertical edges: edge `(R + 1) * C + r * (C + 1) + c` joins dot
//! `(r, c)` to dot `(r + 1, c)`, for `r` in `0..R` and `c` in `0..=C`.
//!
//! # Key
//! A state is the set of drawn edges: bit `e` of the key is set when edge `e`
//! is drawn. The value of the rest of the game depends on nothing else, so the
//! key holds neither the score nor the side to move: the value is the net
//! number of boxes the player to move takes from here on. A move that
//! completes a box scores it ([`Edge::reward`](crate::core::Edge::reward))
//! and the mover moves again ([`Edge::again`](crate::core::Edge::again)).
//! A state's layer is its number of drawn edges.
//!
//! * `game`: the rules and notation ([`DotsAndBoxes`]);
//! * `present`: how it looks;
//! * `lanes` and `kernel`: the vector block kernel of the dense solver;
//! * `search`: the search of the boards past the tables, and its
//!   opening book;
//! * `heuristics`: for `query stats`;
//! * this file: the game's declaration for the registry (a table up to
//!   [`game::MAX_EDGES`] edges, a book past them:
//!   [`RegisteredGame`]).

mod game;
mod heuristics;
#[cfg(feature = "engine")]
mod kernel;
mod lanes;
mod present;
#[cfg(feature = "search")]
pub mod search;
#[cfg(test)]
mod tests;

pub use game::DotsAndBoxes;
pub(crate) use heuristics::HEURISTICS;

use std::sync::Arc;

use super::registered::{
    DatabaseKind, Estimate, GameInfo, RegisteredGame, SearchHelp, TableSharing,
};
use super::searched::DynBookGame;
use crate::core::BoundHeuristic;

/// Registry name.
pub(crate) const NAME: &str = "dots-and-boxes";
/// Numeric id in database headers.
pub(crate) const ID: u32 = 2;

/// The default depth of a book (boards past the tables): every position
/// of the first move, each a search of nearly the whole game.
pub(crate) const BOOK_DEPTH: u32 = 1;

/// The game's declaration: its names, help texts and constructor, for
/// the registry's list.
pub(crate) const INFO: GameInfo = GameInfo {
    name: NAME,
    id: ID,
    about: "Dots and Boxes: draw edges, close boxes, move again",
    variants: "RxC boxes, 3x3 (default); up to 32 edges (3x4, 2x6, 1x10) solved \
               into a table, larger boards up to 63 edges (3x5, 4x4, 4x5, ...) \
               answered by search, with an opening book for a database",
    notation: "the drawn edges (e.g. \"0,5,12\"; `none` for the empty board), \
               optionally followed by the side to move (`A` or `B`) and the score so \
               far (e.g. \"0,3,12,13,14,4 B 1-0\")",
    example: "0,3,12,13,14,4 B 1-0",
    file_stem: "dab",
    kind: DatabaseKind::Complete,
    aliases: &[],
    search_help: Some(SearchHelp {
        subject: "Dots and Boxes past its tables",
        variant: "4x4",
        sharing: TableSharing::One,
    }),
    new: |spec| Ok(Arc::new(DotsAndBoxes::from_variant(spec)?)),
};

impl RegisteredGame for DotsAndBoxes {
    fn heuristics(&self) -> Vec<BoundHeuristic<'_>> {
        HEURISTICS.iter().map(|h| h.bind(self)).collect()
    }

    /// A dense table up to [`game::MAX_EDGES`] edges; an opening book past them.
    fn database_kind(&self) -> DatabaseKind {
        if self.has_table() {
            DatabaseKind::Complete
        } else {
            DatabaseKind::Book {
                default_depth: BOOK_DEPTH,
            }
        }
    }

    /// Every board is searched: past the tables always, and a board of
    /// the tables when its table is missing.
    fn book_game(&self) -> Option<&dyn DynBookGame> {
        Some(self)
    }

    /// Every edge set has one byte, and costs about 5 ns; the solve runs on
    /// every thread, the write and read-back of the file (a third of the
    /// time) on one. Past the tables, a book's searches have no measured
    /// model.
    fn estimate(&self, _depth: u32, _table_bits: u32, _threads: usize) -> Option<Estimate> {
        if !self.has_table() {
            return None;
        }
        let entries = (1u64 << self.edge_count()) as f64;
        Some(Estimate {
            cpu_seconds: 0.02 + entries * 5e-9,
            parallelism: 1.2,
            peak_bytes: (entries as u64) + 10 * Estimate::MB,
        })
    }
}
