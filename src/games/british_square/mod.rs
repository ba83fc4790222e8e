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
//! * `heuristics`: for `query stats`;
//! * this file: the game's declaration for the registry
//!   ([`RegisteredGame`]); `buckets.rs` names its solver.

#[cfg(feature = "engine")]
mod buckets;
mod children;
mod game;
mod heuristics;
mod present;
mod simd;

pub use game::BritishSquare;
pub(crate) use heuristics::HEURISTICS;

use std::sync::Arc;

use super::registered::{DatabaseKind, Estimate, GameInfo, RegisteredGame};
use crate::core::BoundHeuristic;

/// Registry name of British Square.
pub(crate) const NAME: &str = "british-square";
/// Numeric id of British Square in database headers.
pub(crate) const ID: u32 = 1;

/// The game's declaration: its names, help texts and constructor, for
/// the registry's list.
pub(crate) const INFO: GameInfo = GameInfo {
    name: NAME,
    id: ID,
    about: "British Square: place pieces, never next to an opposing piece",
    variants: "3x3, 4x4, 5x5 (default), each optionally with center-allowed \
               (e.g. 4x4,center-allowed)",
    notation: "25 characters of `.`, `X`, `O` row-major from the top-left, rows \
               optionally separated by `/`, optionally followed by the side to move \
               (e.g. \"X...X/...../...../...../....O O\"); or the moves from the start, \
               cells 0-24 or coordinates (e.g. \"0,24,4\" or \"a1 e5 e1\")",
    example: "a1 e5",
    file_stem: "bsq",
    kind: DatabaseKind::Complete,
    aliases: &[],
    search_help: None,
    new: |spec| Ok(Arc::new(BritishSquare::from_variant(spec)?)),
};

impl RegisteredGame for BritishSquare {
    /// Every board is solved completely.
    fn database_kind(&self) -> DatabaseKind {
        INFO.kind
    }

    fn heuristics(&self) -> Vec<BoundHeuristic<'_>> {
        HEURISTICS.iter().map(|h| h.bind(self)).collect()
    }

    /// Measured: 5x5 takes 1 s of CPU and 230 MB; the smaller boards are
    /// small.
    fn estimate(&self, _depth: u32, _table_bits: u32, _threads: usize) -> Option<Estimate> {
        Some(match self.side() {
            5 => Estimate {
                cpu_seconds: 1.0,
                parallelism: 1.5,
                peak_bytes: 230 * Estimate::MB,
            },
            _ => Estimate::SMALL,
        })
    }
}
