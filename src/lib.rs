//! `boardsolve`: solve small two-player board games perfectly, once, and ship
//! the answer as a memory-mappable database.
//!
//! The library is layered; each layer uses only the ones below it
//! (`docs/architecture.md` draws the graph):
//!
//! * [`core`] (bottom): values, moves, the [`Game`] trait (rules and
//!   notation), record layouts, solutions, oracles, progress reports;
//! * [`db`]: the database file whose layout `format-spec.md` documents:
//!   header, reader, writer;
//! * `solve`: the solvers (layered, bucketed, dense, opening books, live
//!   search), which know games only through traits;
//! * [`render`]: how positions look (text, move maps, SVG);
//! * [`games`]: one folder per game, implementing the traits above;
//! * [`analysis`]: answering positions from an oracle, principal
//!   variations, verification, statistics;
//! * [`registry`] (top): game names and variants to games, default files,
//!   and what each game's database is (complete solve or opening book);
//!   the command-line tools know no game but through it.
//! * `bars` and [`cli`]: progress bars on stderr and the exit statuses
//!   of the command-line tools.
#![warn(missing_docs)]
#![warn(unreachable_pub)]
// Without the engine, what only its solvers call is unused here: dead code
// and imports are checked on the whole build (feature `engine`), which CI
// lints with warnings denied.
#![cfg_attr(not(feature = "engine"), allow(dead_code, unused_imports))]
// The library is the engine under the probe crate, documented for those
// who work on it: its public items' docs link the private items beside
// them (`cargo doc --document-private-items` renders both).
#![allow(rustdoc::private_intra_doc_links)]

pub mod analysis;
#[cfg(feature = "engine")]
pub mod bars;
pub mod cli;
pub mod core;
pub mod db;
pub mod games;
pub mod registry;
pub mod render;
#[cfg(feature = "search")]
pub mod solve;

pub use analysis::{
    analyze, analyze_position, principal_variation, Analysis, MoveAnalysis, QueryError,
};
pub use core::{
    Cancel, Edge, Game, Move, MoveMark, Oracle, Outcome, Player, Position, PositionError, Value,
};
pub use db::{Database, DbError};
pub use registry::{AnyGame, GameError};
pub use render::Presentation;

/// The version of this crate, written into every database header.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");
