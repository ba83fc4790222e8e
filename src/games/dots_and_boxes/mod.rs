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
//! * `heuristics`: for `query stats`.

mod game;
mod heuristics;
#[cfg(feature = "engine")]
mod kernel;
mod lanes;
mod present;
#[cfg(feature = "search")]
pub mod search;

pub use game::{DotsAndBoxes, MAX_EDGES, MAX_SEARCH_EDGES};
pub use heuristics::{greedy, HEURISTICS};

/// Registry name.
pub const NAME: &str = "dots-and-boxes";
/// Numeric id in database headers.
pub const ID: u32 = 2;
