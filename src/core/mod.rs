//! The bottom layer: the vocabulary every other part of the engine speaks.
//! Nothing here knows a particular game, solver or file.
//!
//! * [`value`]: players, moves, the edges of the game graph, values and
//!   outcomes;
//! * [`game`]: the [`Game`] trait (rules and notation), positions as
//!   people give them, and the errors of bad positions and variants;
//! * [`layout`]: how a key and its value share one record of a database,
//!   and whether a game's records fit one
//!   ([`GameDescriptor::storage_error`]);
//! * [`solution`]: a solved game in its record layout, ready to be written;
//! * [`oracle`]: where answers come from (a database, a live search), and
//!   the book a search may consult;
//! * [`notation`]: the one form of a number in every notation;
//! * [`heuristic`]: simple rules of play that the statistics test;
//! * [`progress`]: progress reports of long work;
//! * [`cancel`]: stopping a search from another thread;
//! * [`platform`]: the processor's vector features (detected once), and
//!   processor and memory hints (prefetch, huge pages).

pub(crate) mod cancel;
pub mod game;
pub(crate) mod heuristic;
pub mod layout;
pub(crate) mod notation;
pub mod oracle;
pub mod platform;
pub(crate) mod progress;
pub(crate) mod solution;
pub mod value;

pub use cancel::{Cancel, CancelOnDrop};
pub use game::{Game, Limits, Position, PositionError};
pub(crate) use game::{GameDescriptor, VariantError};
pub(crate) use heuristic::BoundHeuristic;
pub(crate) use heuristic::Heuristic;
pub use layout::{LayoutKind, RecordLayout};
pub use oracle::{BookSource, Corrupted, Oracle};
pub(crate) use oracle::{NodeCounter, OracleError};
pub use progress::{NoProgress, Progress};
pub(crate) use solution::DenseSolution;
pub use solution::{Solution, Solved};
pub use value::{Edge, Move, MoveMark, Outcome, Player, Value};
