//! Read boardsolve databases from your own program: the supported Rust API
//! of the project, and the one door every tool of it reads through.
//!
//! A [`Tablebase`] opens a database file of any game the `generator`
//! writes (the games of [`games`]), checks it (header, size, the game's
//! bounds), and answers positions. A [`Position`] is parsed once from the
//! game's own notation and kept as a value: its legal [`Move`]s are values
//! too, each with its name, and playing one gives a new position. An
//! [`Answer`] holds the value, the remoteness and every move's value; the
//! tablebase also gives the line of perfect play. Errors are typed
//! ([`ProbeError`], one variant a cause) and hand the input back; nothing
//! panics on a bad position or a bad file.
//!
//! `query` (its commands and `query serve`), the Python package, the
//! WebAssembly package and the C library all answer through this crate,
//! so that what one reader knows, all know.
//!
//! This crate brings the file reader and the games' rules, not the solvers
//! or the progress bars: its dependencies are `memmap2`, `bytemuck`,
//! `miniz_oxide`, `xxhash-rust` and `thiserror`. Features add:
//! * `search`: the live searches, so that positions past an opening book
//!   are answered by search (as `query` answers them) rather than with
//!   [`ProbeError::NotInBook`], and a game whose positions can be searched
//!   is answered without a file (`Tablebase::without_file`);
//! * `shipped-books`: the opening books that come with the tools
//!   (Connect Four's 7x6 book), which `Tablebase::for_game` opens;
//! * `json`: the JSON the tools print (module `json`), with `serde`;
//! * `engine`: work on whole files: `verify`, every value re-derived, and
//!   `stats`, facts about the whole game (brings the engine's solvers).
//!
//! ```
//! # let dir = tempfile::tempdir().unwrap();
//! # let path = dir.path().join("bsq-4x4.db");
//! # {
//! #     use boardsolve::{Game, games::british_square::BritishSquare};
//! #     let game = BritishSquare::from_variant("4x4").unwrap();
//! #     let sol = boardsolve::solve::solve(&game, &boardsolve::core::NoProgress).unwrap();
//! #     boardsolve::db::write_database(&path, game.descriptor(), &sol.into()).unwrap();
//! # }
//! use boardsolve_probe::{Outcome, Tablebase};
//!
//! let tb = Tablebase::open(&path)?; // a British Square 4x4 database
//! assert_eq!(tb.game().label(), "british-square 4x4");
//!
//! // A position, parsed once: the moves so far, or the board.
//! let start = tb.parse("start")?;
//! assert_eq!(start.to_move_name(), "X");
//!
//! // The empty board is a tie with perfect play, 8 plies from the end.
//! let answer = tb.answer(&start)?;
//! assert_eq!((answer.value(), answer.remoteness()), (0, 8));
//! assert_eq!(answer.outcome(), Outcome::Tie);
//!
//! // Every legal move, best first, each with the value it leads to (moves
//! // are named by their coordinates, a1 to d4; cell numbers are read too).
//! assert_eq!(answer.moves().len(), 16);
//! assert!(answer.moves().all(|m| m.value <= answer.value()));
//! let best = answer.best_moves().next().unwrap().mv;
//!
//! // Play it, and ask again.
//! let next = start.play(&best)?;
//! assert_eq!(tb.answer(&next)?.value(), answer.value());
//! let after = start.play_text("b2")?.play_text("c3")?;
//! assert_eq!(after.board(), "..../.X../..O./.... X");
//!
//! // The line of perfect play to the end.
//! assert_eq!(tb.line(&start)?.len(), 8);
//!
//! // Text in, answer out, in one call.
//! assert_eq!(tb.probe("b2 c3")?.position(), after);
//!
//! // Bad input is a typed error, never a panic.
//! assert!(matches!(tb.parse("z9"), Err(boardsolve_probe::ProbeError::Malformed { .. })));
//! assert!(matches!(after.play_text("b2"), Err(boardsolve_probe::ProbeError::IllegalMove { .. })));
//! # Ok::<(), boardsolve_probe::ProbeError>(())
//! ```
#![warn(missing_docs)]

mod answer;
mod error;
mod game;
mod info;
#[cfg(feature = "json")]
pub mod json;
mod key;
#[cfg_attr(not(feature = "search"), path = "no_live.rs")]
mod live;
mod name;
mod position;
#[cfg(feature = "search")]
mod search;
mod tablebase;
pub mod text;
#[cfg(feature = "engine")]
pub mod whole;

pub use answer::{Answer, Eval, MoveValue, Moves, WeakAnswer};
pub use boardsolve::core::{Cancel, CancelOnDrop};
pub use boardsolve::db::RangeFile;
pub use boardsolve::registry::{GameError, OpenError, ShippedBook};
pub use boardsolve::{Outcome, Player};
pub use error::{ErrorKind, ProbeError};
pub use game::{game_names, games, games_help, Game, GameEntry};
pub use info::{FieldLayout, FileInfo, Packing, Records};
pub use position::{Move, Position};
#[cfg(feature = "search")]
pub use search::{
    check_searches, default_searchers, table_bits_bounds, table_bits_help, TableError,
    DEFAULT_TABLE_BITS, MAX_SEARCHERS,
};
pub use tablebase::{Tablebase, BATCH_INDEX, GROUP};

/// The longest position text taken, in bytes, as `query` takes lines: a
/// longer one is an error whose message quotes only its first
/// [`QUOTED`] characters.
pub const MAX_POSITION: usize = boardsolve::cli::MAX_LINE;

/// The characters of a too-long position its error quotes.
pub const QUOTED: usize = boardsolve::cli::QUOTED;

/// The memory a packed file's decoded blocks take at most, by default
/// (see [`Tablebase::with_cache_limit`]).
pub const DEFAULT_CACHE_BYTES: usize = boardsolve::db::packed::DEFAULT_CACHE_BYTES;

/// The error of a position longer than [`MAX_POSITION`] bytes, whose
/// first characters are `head`.
pub fn too_long(head: &str) -> ProbeError {
    ProbeError::Malformed {
        input: head.to_owned(),
        reason: format!("position is longer than {MAX_POSITION} bytes"),
    }
}

/// `text`, if it is no longer than [`MAX_POSITION`] bytes.
fn bounded(text: &str) -> Result<&str, ProbeError> {
    if text.len() <= MAX_POSITION {
        Ok(text)
    } else {
        Err(too_long(&boardsolve::cli::quoted(text)))
    }
}
