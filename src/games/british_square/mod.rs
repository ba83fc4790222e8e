//! British Square on an `n x n` board (5x5 by default; 3x3 and 4x4 variants).
//!
//! # State key (a public contract, see `format-spec.md`)
//! With `C = n * n` cells numbered row-major from the top-left:
//! * bits `0 .. C`: X's pieces (bit `i` set when X has a piece on cell `i`);
//! * bits `C .. 2C`: O's pieces;
//! * bit `2C`: the side to move, `0` for X and `1` for O.
//!
//! A state where the side to move has no legal move while the opponent has
//! one is a forced-pass state; its only move is
//! [`Move::PASS`](crate::core::Move::PASS).
//!
//! * `game`: the rules and notation ([`BritishSquare`]);
//! * `present`: how it looks;
//! * `children` and `buckets`: the canonical children in vector
//!   instructions, and the bucket scheme of the bucketed solver;
//! * `heuristics`: for `query stats`.

#[cfg(feature = "engine")]
mod buckets;
mod children;
mod game;
mod heuristics;
mod present;

pub use game::BritishSquare;
pub use heuristics::{greedy, HEURISTICS};

/// Registry name of British Square.
pub const NAME: &str = "british-square";
/// Numeric id of British Square in database headers.
pub const ID: u32 = 1;
