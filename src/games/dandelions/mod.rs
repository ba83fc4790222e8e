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
//!   the live search use it; the rules never do;
//! * this file: the game's declaration for the registry (which fields are
//!   solved completely, which get an opening book, and what building one
//!   costs: [`RegisteredGame`]).

#[cfg(feature = "search")]
mod book;
pub(crate) mod field;
mod game;
mod present;
#[cfg(feature = "search")]
pub mod search;
#[cfg(test)]
mod tests;

pub use field::{Field, Geometry};
pub use game::Dandelions;
#[cfg(feature = "search")]
pub use search::{decode, Solver};

use std::sync::Arc;

use super::registered::{
    Calibration, DatabaseKind, Estimate, GameInfo, RegisteredGame, SearchHelp, TableSharing,
};
use super::searched::DynBookGame;

/// Registry name of Dandelions.
pub(crate) const NAME: &str = "dandelions";
/// Numeric id of Dandelions in database headers.
pub(crate) const ID: u32 = 4;

/// The largest field solved completely (its side): 4x4. The 5x5 field
/// gets an opening book.
pub(crate) const MAX_FULL_SIDE: u32 = 4;

/// 5x5 books by depth: CPU seconds, and the states of the book (its memory
/// grows with them).
const BOOK_COSTS: &[(u32, f64, u64)] = &[
    (4, 78.0, 4_157),
    (5, 88.0, 72_639),
    (6, 284.0, 392_805),
    (7, 409.0, 5_581_130),
    (8, 870.0, 20_226_648),
    (9, 1_890.0, 195_032_592),
];

/// The calibration sample of the 5x5 books: eight consecutive states of
/// the fourth turn's layer in the book's order, about 0.04 s each on the
/// reference machine, searched as a book's deepest layer is. A node costs
/// about a microsecond of computing, of which the table's memory is a
/// small part: the sample's tables (2^22 words, 32 MiB a searcher) time the
/// same as a build's 512 MiB ones, slow as little as they do where other
/// processes stream through memory (under 10%), and are mapped in a few
/// hundredths of a second rather than seconds.
const CALIBRATION: Calibration = Calibration {
    positions: &[
        "***F...........F****..... 04",
        ".....F****.............F. 03",
        ".F***.*....*....*..F.*... 02",
        ".....F****.*.....*.....F. 01",
        "....F..........F****.*... 01",
        "....F....*....*F*****...* 02",
        "F**F*....*............... 01",
        "F****..........F****.*... 01",
    ],
    table_bits: 22,
    reference_seconds: 0.30,
};

/// The game's declaration: its names, help texts and constructor, for
/// the registry's list.
pub(crate) const INFO: GameInfo = GameInfo {
    name: NAME,
    id: ID,
    about: "Dandelions: the dandelions plant flowers, the wind blows their seeds",
    variants: "NxN fields, 5x5 (default) down to 2x2; 4x4 and smaller are solved \
               completely, 5x5 gets an opening book",
    notation: "the field, 25 characters row-major (`.` uncovered, `*` seeded, `F` a \
               flower), then the wind directions used (`0` east, clockwise to `7` \
               north-east; `-` none), e.g. \"F****.................... 0\"",
    example: "F****.................... 0",
    file_stem: "dandelions",
    kind: DatabaseKind::Book { default_depth: 5 },
    aliases: &[],
    search_help: Some(SearchHelp {
        subject: "Dandelions",
        variant: "",
        sharing: TableSharing::PerSearcher,
    }),
    new: |spec| Ok(Arc::new(Dandelions::from_variant(spec)?)),
};

/// The layered solver, on one process or on ranks, for the boards solved
/// completely.
#[cfg(feature = "engine")]
impl super::solvers::Solvers for Dandelions {}

impl RegisteredGame for Dandelions {
    /// Fields up to [`MAX_FULL_SIDE`] are solved completely, 5x5 gets an
    /// opening book.
    fn database_kind(&self) -> DatabaseKind {
        if self.geometry().side() <= MAX_FULL_SIDE {
            DatabaseKind::Complete
        } else {
            INFO.kind
        }
    }

    /// Every field is searched, the small ones too.
    fn book_game(&self) -> Option<&dyn DynBookGame> {
        Some(self)
    }

    /// Measured: 4x4 takes 15 s of CPU and 1.1 GB (its plain solver holds
    /// every edge), 3x3 0.03 s; 5x5 books by depth (`BOOK_COSTS`); other
    /// books have none.
    fn estimate(&self, depth: u32, table_bits: u32, threads: usize) -> Option<Estimate> {
        let side = self.geometry().side();
        if self.database_kind() == DatabaseKind::Complete {
            return Some(if side == 4 {
                Estimate {
                    cpu_seconds: 15.0,
                    parallelism: 1.5,
                    peak_bytes: 1100 * Estimate::MB,
                }
            } else {
                Estimate::SMALL
            });
        }
        if side != 5 {
            return None;
        }
        let &(_, cpu, states) = BOOK_COSTS.iter().find(|r| r.0 == depth)?;
        // A table per searcher, and about 40 bytes a state while the layers
        // are built, deduplicated and sorted.
        let searchers = threads.max(1) as u64;
        Some(Estimate {
            cpu_seconds: cpu,
            parallelism: 2.0,
            peak_bytes: searchers * (8u64 << table_bits) + states * 40 + 20 * Estimate::MB,
        })
    }

    /// The 5x5 books, every depth, with one sample: the searches with a
    /// table that books of up to 8 turns make of their deepest layer.
    fn calibration(&self, _depth: u32) -> Option<Calibration> {
        (self.geometry().side() == 5).then_some(CALIBRATION)
    }
}
