//! `boardsolve`: solve small two-player board games perfectly, once, and ship the
//! answer as a memory-mappable database.
//!
//! The engine is game-agnostic. A game is one module implementing [`Game`]: it
//! encodes its states as `u64` keys, lists the moves of a state and knows its
//! symmetries. Everything else is generic:
//!
//! * [`solver`] explores every reachable state layer by layer and computes its
//!   exact value and remoteness;
//! * [`db`] writes, opens, looks up and verifies the database file whose layout
//!   `format-spec.md` documents;
//! * [`analysis`] answers a position from an open database: its value, the value
//!   of every move, the best moves and the line of perfect play;
//! * [`registry`] maps game names and variants to games, so the command-line
//!   tools know no game by heart;
//! * [`stats`] computes facts about a whole game from its database: states by
//!   layer and value, ends, complete games and who wins them, heuristics.
#![warn(missing_docs)]

pub mod analysis;
pub mod db;
pub mod game;
pub mod progress;
pub mod registry;
pub mod solver;
pub mod stats;
pub mod svg;
pub mod value;

pub use analysis::{
    analyze, analyze_position, principal_variation, Analysis, MoveAnalysis, Oracle, QueryError,
};
pub use db::{Database, DbError};
pub use game::{
    Edge, Game, GameDescriptor, Move, MoveMark, Outcome, Player, Position, PositionError,
};
pub use registry::{AnyGame, GameError};
pub use value::Value;

/// The version of this crate, written into every database header.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
