//! Dandelions: the dandelions plant flowers, the wind blows their seeds.
//!
//! A 5x5 field (4x4 and smaller variants too), cells row-major from the
//! top-left. The dandelions move first and plant a flower on any cell
//! without one; the wind then blows in one of 8 directions (0 east, then
//! clockwise: south-east, south, south-west, west, north-west, north,
//! north-east), each at most once, and every flower seeds every cell from
//! it to the edge in that direction. Seven moves each, 14 turns (on every
//! field size). The dandelions win as soon as every cell is covered (a
//! flower or a seed); the wind wins if a cell is still uncovered after the
//! 14th turn.
//!
//! Outcome, from the dandelions' side: `8 - flowers` when they win with
//! that many flowers, minus the uncovered cells when the wind wins. On 5x5
//! the dandelions win, and need all seven flowers (outcome +1; see the
//! README).
//!
//! * [`field`]: bitboards, rays, the symmetries (cells and directions
//!   together), the packed key. A 6x6 field does not fit: 3^36 key values
//!   need 58 bits, 66 with the directions, beyond a 64-bit record.
//! * [`Dandelions`]: the game for the engine (`game`), how it looks
//!   (`present`);
//! * `search`: the exact solver, and (`book`) how the opening book and
//!   the live search use it; the rules never do.

#[cfg(feature = "search")]
mod book;
pub mod field;
mod game;
mod present;
#[cfg(feature = "search")]
pub mod search;

pub use field::{Field, Geometry, DIRECTION_NAMES, MAX_SIDE, MIN_SIDE, TURNS};
pub use game::Dandelions;
#[cfg(feature = "search")]
pub use search::{decode, Solver, ENDGAME_TURNS};

/// Registry name of Dandelions.
pub const NAME: &str = "dandelions";
/// Numeric id of Dandelions in database headers.
pub const ID: u32 = 4;
