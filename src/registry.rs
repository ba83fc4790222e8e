//! The games this build knows, by name.

use crate::analysis::Oracle;
use crate::db::header::Header;
use crate::db::layout::{LayoutKind, RecordLayout};
use crate::db::writer::Payload;
use crate::db::{Database, DbError};
use crate::game::british_square::{self, BritishSquare};
use crate::game::connect_four::{self, ConnectFour};
use crate::game::dandelions::{self, Dandelions};
use crate::game::dots_and_boxes::{self, DotsAndBoxes};
use crate::game::Game;
use crate::solver::book::{build_book, BookError, BookOptions};
use crate::solver::dense::{solve_dense, DenseSolution};
use crate::solver::live::LiveSearch;
use crate::solver::{self, Progress, Solution, SolveError};
use crate::value::Value;

/// Registry entry: name, id and a one-line description of a game.
#[derive(Clone, Copy, Debug)]
pub struct GameInfo {
    /// Name used on the command line and in database headers.
    pub name: &'static str,
    /// Numeric id in database headers.
    pub id: u32,
    /// What the game is and which variants it has.
    pub about: &'static str,
    /// Stem of the default database file name (`bsq` gives `bsq.db`).
    pub file_stem: &'static str,
}

/// Every game this build knows.
pub const GAMES: &[GameInfo] = &[
    GameInfo {
        name: british_square::NAME,
        id: british_square::ID,
        about: "British Square: place pieces, never next to an opposing piece. \
                Variants: 3x3, 4x4, 5x5 (default), center-allowed",
        file_stem: "bsq",
    },
    GameInfo {
        name: dots_and_boxes::NAME,
        id: dots_and_boxes::ID,
        about: "Dots and Boxes: draw edges, close boxes, move again. \
                Variants: RxC boxes with at most 32 edges, 3x3 (default) up to 3x4",
        file_stem: "dab",
    },
    GameInfo {
        name: connect_four::NAME,
        id: connect_four::ID,
        about: "Connect Four: drop stones, four in a row wins. Variants: WxH boards \
                whose records fit 64 bits, 7x6 (default); the generator writes an \
                opening book (--depth)",
        file_stem: "c4",
    },
    GameInfo {
        name: dandelions::NAME,
        id: dandelions::ID,
        about: "Dandelions: the dandelions plant flowers, the wind blows their seeds; \
                cover the field in 14 turns. Variants: NxN fields, 5x5 (default) down to \
                2x2; the generator writes an opening book (--depth)",
        file_stem: "dandelions",
    },
];

/// The largest Connect Four board [`AnyGame::solve`] solves completely,
/// in cells (4x4: about a hundred thousand states; 5x4 already has some
/// ten million).
pub const MAX_FULL_CONNECT_FOUR_CELLS: u32 = 16;

/// The largest Dandelions field [`AnyGame::solve`] solves completely (its
/// side): 4x4.
pub const MAX_FULL_DANDELIONS_SIDE: u32 = 4;

/// Why a game could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// No game has this name.
    #[error("unknown game {name:?} (known: {known})")]
    UnknownGame {
        /// The name asked for.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
    /// The game id does not match the name.
    #[error("game {name:?} has id {expected}, not {found}")]
    IdMismatch {
        /// The game's name.
        name: String,
        /// Its id.
        expected: u32,
        /// The id given.
        found: u32,
    },
    /// The variant spec is not valid for the game.
    #[error("bad variant {spec:?} for {game}: {reason}")]
    BadVariant {
        /// The game.
        game: &'static str,
        /// The spec given.
        spec: String,
        /// What is wrong.
        reason: String,
    },
}

/// A game of any kind this build knows, with its variant.
#[derive(Clone, Debug)]
// A process sets up one game; boxing the larger variant would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum AnyGame {
    /// British Square.
    BritishSquare(BritishSquare),
    /// Dots and Boxes.
    DotsAndBoxes(DotsAndBoxes),
    /// Connect Four.
    ConnectFour(ConnectFour),
    /// Dandelions.
    Dandelions(Dandelions),
}

/// A solved game, in the layout its database uses.
#[derive(Debug)]
pub enum Solved {
    /// Sorted records of the canonical states.
    Sorted(Solution),
    /// A dense table of every key.
    Dense(DenseSolution),
}

impl Solved {
    /// The value of a canonical state.
    pub fn get(&self, key: u64) -> Option<Value> {
        match self {
            Solved::Sorted(s) => s.get(key),
            Solved::Dense(d) => d.get(key),
        }
    }

    /// What the database file will hold.
    pub fn payload(&self) -> Payload<'_> {
        match self {
            Solved::Sorted(s) => Payload::Sorted(s),
            Solved::Dense(d) => Payload::Dense(d),
        }
    }
}

impl AnyGame {
    /// Sets up a game by name and variant spec (empty for the default).
    pub fn new(name: &str, variant: &str) -> Result<AnyGame, GameError> {
        let bad_variant = |game, reason: String| GameError::BadVariant {
            game,
            spec: variant.to_owned(),
            reason,
        };
        match name {
            british_square::NAME => BritishSquare::from_variant(variant)
                .map(AnyGame::BritishSquare)
                .map_err(|e| bad_variant(british_square::NAME, e.0)),
            dots_and_boxes::NAME => DotsAndBoxes::from_variant(variant)
                .map(AnyGame::DotsAndBoxes)
                .map_err(|e| bad_variant(dots_and_boxes::NAME, e.to_string())),
            connect_four::NAME => ConnectFour::from_variant(variant)
                .map(AnyGame::ConnectFour)
                .map_err(|e| bad_variant(connect_four::NAME, e.to_string())),
            dandelions::NAME => Dandelions::from_variant(variant)
                .map(AnyGame::Dandelions)
                .map_err(|e| bad_variant(dandelions::NAME, e)),
            _ => Err(GameError::UnknownGame {
                name: name.to_owned(),
                known: GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", "),
            }),
        }
    }

    /// Sets up the game a database header names, and checks that the header's
    /// record layout is the one this build uses for it.
    pub fn from_header(header: &Header) -> Result<AnyGame, DbError> {
        let game = AnyGame::new(&header.game_name, &header.variant)?;
        let desc = game.game().descriptor();
        if desc.id != header.game_id {
            return Err(GameError::IdMismatch {
                name: header.game_name.clone(),
                expected: desc.id,
                found: header.game_id,
            }
            .into());
        }
        if desc.variant != header.variant {
            return Err(DbError::HeaderField {
                field: "variant",
                reason: format!(
                    "{:?} is not in canonical form ({:?})",
                    header.variant, desc.variant
                ),
            });
        }
        let kind = LayoutKind::for_game(desc);
        if kind != header.kind {
            return Err(DbError::HeaderField {
                field: "layout_kind",
                reason: format!("{:?}, but this game is stored {kind:?}", header.kind),
            });
        }
        let layout = RecordLayout::for_game(desc);
        if layout != header.layout {
            return Err(DbError::HeaderField {
                field: "record_layout",
                reason: format!(
                    "{:?} differs from this game's layout {layout:?}",
                    header.layout
                ),
            });
        }
        let start = game.game().canonical(game.game().start());
        if header.start_key != start {
            return Err(DbError::HeaderField {
                field: "start_key",
                reason: format!(
                    "{:#x}, but the game's start is {start:#x}",
                    header.start_key
                ),
            });
        }
        Ok(game)
    }

    /// The game, as a trait object.
    pub fn game(&self) -> &dyn Game {
        match self {
            AnyGame::BritishSquare(g) => g,
            AnyGame::DotsAndBoxes(g) => g,
            AnyGame::ConnectFour(g) => g,
            AnyGame::Dandelions(g) => g,
        }
    }

    /// Solves the game completely (monomorphised per game for speed).
    ///
    /// Connect Four is solved completely only on boards of at most
    /// [`MAX_FULL_CONNECT_FOUR_CELLS`] cells (4x4): larger boards have far
    /// too many states, and get an opening book instead
    /// ([`crate::solver::book::build_book`]).
    pub fn solve(&self, progress: &dyn Progress) -> Result<Solved, SolveError> {
        match self {
            AnyGame::BritishSquare(g) => solver::bucketed::solve(g, progress).map(Solved::Sorted),
            AnyGame::DotsAndBoxes(g) => solve_dense(g, progress).map(Solved::Dense),
            AnyGame::ConnectFour(g) => {
                let cells = g.variant().cells();
                if cells > MAX_FULL_CONNECT_FOUR_CELLS {
                    return Err(SolveError::TooLarge {
                        reason: format!(
                            "connect-four {} has {cells} cells; a complete solve is only \
                             done up to {MAX_FULL_CONNECT_FOUR_CELLS}: build an opening book \
                             instead (generator --depth N)",
                            g.variant()
                        ),
                    });
                }
                solver::solve(g, progress).map(Solved::Sorted)
            }
            AnyGame::Dandelions(g) => {
                let n = g.geometry().side();
                if n > MAX_FULL_DANDELIONS_SIDE {
                    return Err(SolveError::TooLarge {
                        reason: format!(
                            "dandelions {n}x{n}: a complete solve is only done up to \
                             {MAX_FULL_DANDELIONS_SIDE}x{MAX_FULL_DANDELIONS_SIDE}: build an \
                             opening book instead (generator --depth N)"
                        ),
                    });
                }
                solver::solve(g, progress).map(Solved::Sorted)
            }
        }
    }

    /// True for games whose database is an opening book, searched past
    /// its depth ([`AnyGame::build_book`], [`AnyGame::live`]).
    pub fn has_book(&self) -> bool {
        matches!(self, AnyGame::ConnectFour(_) | AnyGame::Dandelions(_))
    }

    /// Builds the game's opening book ([`crate::solver::book`]), or `None`
    /// for a game without one (it is solved completely instead).
    pub fn build_book(
        &self,
        options: &BookOptions,
        progress: &dyn Progress,
    ) -> Option<Result<Solution, BookError>> {
        match self {
            AnyGame::ConnectFour(g) => Some(build_book(g, options, progress)),
            AnyGame::Dandelions(g) => Some(build_book(g, options, progress)),
            AnyGame::BritishSquare(_) | AnyGame::DotsAndBoxes(_) => None,
        }
    }

    /// Live search for a game with a book: answers any position, from
    /// `book` when given (a database of this game and variant) and by search
    /// otherwise; `None` for a game whose database holds every position.
    pub fn live<'a>(
        &self,
        book: Option<&'a Database>,
        table_bits: u32,
    ) -> Option<Result<Box<dyn Oracle + 'a>, BookError>> {
        fn boxed<'a, O: Oracle + 'a>(o: O) -> Box<dyn Oracle + 'a> {
            Box::new(o)
        }
        match self {
            AnyGame::ConnectFour(g) => {
                Some(LiveSearch::new(g.clone(), book, table_bits).map(boxed))
            }
            AnyGame::Dandelions(g) => Some(LiveSearch::new(g.clone(), book, table_bits).map(boxed)),
            AnyGame::BritishSquare(_) | AnyGame::DotsAndBoxes(_) => None,
        }
    }

    /// The default database file name: `STEM.db` for the standard variant,
    /// `STEM-VARIANT.db` (commas as dashes) for the others.
    pub fn default_file_name(&self) -> String {
        let d = self.game().descriptor();
        let stem = GAMES
            .iter()
            .find(|g| g.name == d.name)
            .map_or(d.name, |g| g.file_stem);
        let standard = AnyGame::new(d.name, "").map(|g| g.game().descriptor().variant.clone());
        if standard.as_deref() == Ok(d.variant.as_str()) {
            format!("{stem}.db")
        } else {
            format!("{stem}-{}.db", d.variant.replace(',', "-"))
        }
    }

    /// A human-readable name: `british-square 5x5`.
    pub fn label(&self) -> String {
        let d = self.game().descriptor();
        format!("{} {}", d.name, d.variant)
    }
}
