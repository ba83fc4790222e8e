//! The games this build knows, by name: the top of the library. Everything
//! that names a game lives here (help texts, variants, default files, and
//! what each game's database is), so that the command-line tools and the
//! layers below know no game by heart.

#[cfg(feature = "engine")]
mod estimate;

#[cfg(feature = "engine")]
pub use estimate::Estimate;

#[cfg(feature = "search")]
use crate::core::Oracle;
use crate::core::{BoundHeuristic, Game, VariantError};
#[cfg(feature = "engine")]
use crate::core::{Progress, Solution, Solved};
use crate::db::{check_header, Database, DbError, Header};
use crate::games::british_square::{self, BritishSquare};
use crate::games::connect_four::{self, ConnectFour};
use crate::games::dandelions::{self, Dandelions};
use crate::games::dots_and_boxes::{self, DotsAndBoxes};
use crate::render::Presentation;
#[cfg(feature = "engine")]
use crate::solve::book::farm::Farm;
#[cfg(feature = "search")]
use crate::solve::book::BookError;
#[cfg(feature = "engine")]
use crate::solve::book::{build_book, build_book_on_ranks, BookOptions, RankBook};
#[cfg(feature = "engine")]
use crate::solve::dense::solve_dense;
#[cfg(feature = "search")]
use crate::solve::live::LiveSearch;
#[cfg(feature = "search")]
use crate::solve::memory::TableError;
#[cfg(feature = "engine")]
use crate::solve::{self, SolveError};

/// What a game's database holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatabaseKind {
    /// Every reachable position: the game is solved completely.
    Complete,
    /// An opening book: every position of at most `--depth` moves, and
    /// live search past it (positions past the book are searched).
    Book {
        /// The depth `generator` builds when `--depth` is not given.
        default_depth: u32,
    },
}

/// Registry entry: what a game is called, what it is, and how it is
/// stored.
#[derive(Clone, Copy, Debug)]
pub struct GameInfo {
    /// Name used on the command line and in database headers.
    pub name: &'static str,
    /// Numeric id in database headers.
    pub id: u32,
    /// The game in one line.
    pub about: &'static str,
    /// The variants, for help texts.
    pub variants: &'static str,
    /// How positions are written, for help texts.
    pub notation: &'static str,
    /// A position of the default variant, in the game's notation.
    pub example: &'static str,
    /// Stem of the default database file name (`bsq` gives `bsq.db`).
    pub file_stem: &'static str,
    /// What its database holds (for the standard variant; see
    /// [`AnyGame::database_kind`]).
    pub kind: DatabaseKind,
}

/// Every game this build knows, in the order help texts list them.
pub const GAMES: &[GameInfo] = &[
    GameInfo {
        name: british_square::NAME,
        id: british_square::ID,
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
    },
    GameInfo {
        name: dots_and_boxes::NAME,
        id: dots_and_boxes::ID,
        about: "Dots and Boxes: draw edges, close boxes, move again",
        variants: "RxC boxes, 3x3 (default); up to 32 edges (3x4, 2x6, 1x10) solved \
                   into a table, larger boards up to 63 edges (3x5, 4x4, 4x5, ...) \
                   answered by search, with an opening book for a database",
        notation: "the drawn edges (e.g. \"0,5,12\"; `none` for the empty board), \
                   optionally followed by the side to move (`A` or `B`) and the score so \
                   far (e.g. \"0,3,12,13,14,4 B 1-0\")",
        example: "0,3,12,13,14,4 B 1-0",
        file_stem: "dab",
        kind: DatabaseKind::Complete,
    },
    GameInfo {
        name: connect_four::NAME,
        id: connect_four::ID,
        about: "Connect Four: drop stones, four in a row wins",
        variants: "WxH boards from 4x4 whose bitboard fits 64 bits (width x (height + 1) \
                   <= 64: 7x6 (default), 8x7, 12x4, 5x10, ...), all answered by search; \
                   databases of the boards whose records fit 64 bits (7x6, 6x7, 6x6 and \
                   smaller): up to 16 cells solved completely, larger ones an opening book",
        notation: "the columns played from the empty board, 1-7 from the left \
                   (e.g. \"4453\"), or a picture of the board (rows top to bottom, `.`, `X`, \
                   `O`, separated by `/`)",
        example: "4453312",
        file_stem: "c4",
        kind: DatabaseKind::Book { default_depth: 1 },
    },
    GameInfo {
        name: dandelions::NAME,
        id: dandelions::ID,
        about: "Dandelions: the dandelions plant flowers, the wind blows their seeds",
        variants: "NxN fields, 5x5 (default) down to 2x2; 4x4 and smaller are solved \
                   completely, 5x5 gets an opening book",
        notation: "the field, 25 characters row-major (`.` uncovered, `*` seeded, `F` a \
                   flower), then the wind directions used (`0` east, clockwise to `7` \
                   north-east; `-` none), e.g. \"F****.................... 0\"",
        example: "F****.................... 0",
        file_stem: "dandelions",
        kind: DatabaseKind::Book { default_depth: 5 },
    },
];

/// The largest Connect Four board `AnyGame::solve` solves completely,
/// in cells (4x4: about a hundred thousand states; 5x4 already has some
/// ten million).
pub const MAX_FULL_CONNECT_FOUR_CELLS: u32 = 16;

/// The largest Dandelions field `AnyGame::solve` solves completely (its
/// side): 4x4.
pub const MAX_FULL_DANDELIONS_SIDE: u32 = 4;

/// The default depth of a Dots and Boxes book (boards past the tables):
/// every position of the first move, each a search of nearly the whole
/// game.
pub const DOTS_AND_BOXES_BOOK_DEPTH: u32 = 1;

/// The names of every game, comma-separated.
pub fn known_names() -> String {
    GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
}

/// Every game with its variants and its position notation, for `--help`:
/// one paragraph per game, wrapped at 80 columns.
pub fn games_help() -> String {
    let mut out = String::new();
    for g in GAMES {
        let text = format!(
            "{}: {}. Variants: {}. Positions: {}. Database: {}.",
            g.name,
            g.about,
            g.variants,
            g.notation,
            match g.kind {
                DatabaseKind::Complete => format!("{}.db, every position", g.file_stem),
                DatabaseKind::Book { .. } => format!(
                    "{}.db, an opening book (generator --depth N); positions past it, or \
                     without it, are searched",
                    g.file_stem
                ),
            }
        );
        out.push_str("  ");
        out.push_str(&crate::cli::wrap(&text, 80, 2, 4));
        out.push('\n');
    }
    out
}

/// The `--table-bits` some game answered by search takes: from the
/// smallest of their ranges' starts to the largest of their ends.
#[cfg(feature = "search")]
pub fn table_bits_bounds() -> std::ops::RangeInclusive<u32> {
    let ranges: Vec<_> = [
        (connect_four::NAME, ""),
        (dots_and_boxes::NAME, "4x4"),
        (dandelions::NAME, ""),
    ]
    .iter()
    .filter_map(|(name, variant)| AnyGame::new(name, variant).ok()?.table_bits_range())
    .collect();
    let start = ranges.iter().map(|r| *r.start()).min().unwrap_or(0);
    let end = ranges.iter().map(|r| *r.end()).max().unwrap_or(0);
    start..=end
}

/// What `--table-bits` takes, game by game, for help texts: the range of
/// each game answered by search and how its searchers share the tables,
/// in one paragraph.
#[cfg(feature = "search")]
pub fn table_bits_help() -> String {
    let range = |name: &str, variant: &str| {
        AnyGame::new(name, variant)
            .ok()
            .and_then(|g| g.table_bits_range())
            .map_or_else(String::new, |r| format!("{} to {}", r.start(), r.end()))
    };
    format!(
        "The tables hold 2^BITS entries of 8 bytes: 26 is 512 MiB, each bit more doubles \
         it. Connect Four takes {} and shares one table among its searchers; Dots and \
         Boxes past its tables takes {} and shares it out among them; Dandelions takes {} \
         and gives each searcher a table of that size. A size larger than the memory \
         available is refused (exit status 2).",
        range(connect_four::NAME, ""),
        range(dots_and_boxes::NAME, "4x4"),
        range(dandelions::NAME, ""),
    )
}

/// The registry entry of a game.
pub fn find(name: &str) -> Result<&'static GameInfo, GameError> {
    GAMES
        .iter()
        .find(|g| g.name == name)
        .ok_or_else(|| GameError::UnknownGame {
            name: name.to_owned(),
            known: known_names(),
        })
}

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
    /// The variant spec is not valid for the game.
    #[error(transparent)]
    BadVariant(#[from] VariantError),
}

/// Why a database could not be opened as a game's database.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The file is missing, damaged, or not a database.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The header names a game or variant this build does not know.
    #[error("database of unsupported game: {0}")]
    Game(#[from] GameError),
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

impl AnyGame {
    /// Sets up a game by name and variant spec (empty for the default).
    pub fn new(name: &str, variant: &str) -> Result<AnyGame, GameError> {
        let info = find(name)?;
        Ok(match info.name {
            british_square::NAME => AnyGame::BritishSquare(BritishSquare::from_variant(variant)?),
            dots_and_boxes::NAME => AnyGame::DotsAndBoxes(DotsAndBoxes::from_variant(variant)?),
            connect_four::NAME => AnyGame::ConnectFour(ConnectFour::from_variant(variant)?),
            _ => AnyGame::Dandelions(Dandelions::from_variant(variant)?),
        })
    }

    /// Sets up the game a database header names, and checks that the header
    /// describes a database of it as this build writes them.
    pub fn from_header(header: &Header) -> Result<AnyGame, OpenError> {
        let game = AnyGame::new(&header.game_name, &header.variant)?;
        check_header(game.game(), header)?;
        Ok(game)
    }

    /// Opens and validates the database at `path`, and sets up its game:
    /// the header is checked against the game before the file is mapped.
    pub fn open(path: &std::path::Path) -> Result<(Database, AnyGame), OpenError> {
        let (db, game) = Database::open_checked(path, AnyGame::from_header)?;
        Ok(AnyGame::ready(db, game))
    }

    /// Sets up the database `db` opened with its game `game`: a packed
    /// dense table is given its game's symmetries.
    fn ready(db: Database, game: AnyGame) -> (Database, AnyGame) {
        if db.is_packed() {
            db.set_canonical(game.shared());
        }
        (db, game)
    }

    /// [`AnyGame::open`] on the bytes of a database file; `name` stands
    /// for its path in messages.
    pub fn open_bytes(name: &str, bytes: &[u8]) -> Result<(Database, AnyGame), OpenError> {
        let (db, game) = Database::from_bytes_checked(name, bytes, AnyGame::from_header)?;
        Ok(AnyGame::ready(db, game))
    }

    /// [`AnyGame::open`] on a file read by ranges (see
    /// [`crate::db::RangeFile`]): fails with a `NotLoaded` database error
    /// until the file's header (and a packed file's index) are supplied.
    pub fn open_ranges(
        name: &str,
        file: std::sync::Arc<crate::db::RangeFile>,
    ) -> Result<(Database, AnyGame), OpenError> {
        let (db, game) = Database::from_ranges_checked(name, file, AnyGame::from_header)?;
        Ok(AnyGame::ready(db, game))
    }

    /// The game, as a trait object of its own.
    pub fn shared(&self) -> std::sync::Arc<dyn Game> {
        match self {
            AnyGame::BritishSquare(g) => std::sync::Arc::new(g.clone()),
            AnyGame::DotsAndBoxes(g) => std::sync::Arc::new(g.clone()),
            AnyGame::ConnectFour(g) => std::sync::Arc::new(g.clone()),
            AnyGame::Dandelions(g) => std::sync::Arc::new(g.clone()),
        }
    }

    /// The game's registry entry.
    pub fn info(&self) -> &'static GameInfo {
        let name = self.game().descriptor().name;
        // Every game of the enum has its entry.
        GAMES.iter().find(|g| g.name == name).unwrap_or(&GAMES[0])
    }

    /// The game, as a trait object.
    pub fn game(&self) -> &dyn Game {
        self.present()
    }

    /// The game with its presentation, as a trait object.
    pub fn present(&self) -> &dyn Presentation {
        match self {
            AnyGame::BritishSquare(g) => g,
            AnyGame::DotsAndBoxes(g) => g,
            AnyGame::ConnectFour(g) => g,
            AnyGame::Dandelions(g) => g,
        }
    }

    /// What this game's database holds. Connect Four and Dandelions keep
    /// opening books, except on boards small enough to solve completely.
    pub fn database_kind(&self) -> DatabaseKind {
        match self {
            AnyGame::ConnectFour(g) if g.variant().cells() <= MAX_FULL_CONNECT_FOUR_CELLS => {
                DatabaseKind::Complete
            }
            AnyGame::Dandelions(g) if g.geometry().side() <= MAX_FULL_DANDELIONS_SIDE => {
                DatabaseKind::Complete
            }
            AnyGame::DotsAndBoxes(g) if !g.has_table() => DatabaseKind::Book {
                default_depth: DOTS_AND_BOXES_BOOK_DEPTH,
            },
            _ => self.info().kind,
        }
    }

    /// True for games whose database may be an opening book and whose
    /// positions can be searched: Connect Four and Dandelions on every
    /// board, Dots and Boxes on boards past its tables
    /// (`AnyGame::build_book`, `AnyGame::live`).
    pub fn has_book(&self) -> bool {
        matches!(self.info().kind, DatabaseKind::Book { .. })
            || matches!(self.database_kind(), DatabaseKind::Book { .. })
    }

    /// Solves the game completely (monomorphised per game for speed).
    ///
    /// Connect Four and Dandelions are solved completely only on small
    /// boards ([`MAX_FULL_CONNECT_FOUR_CELLS`], [`MAX_FULL_DANDELIONS_SIDE`]);
    /// larger ones get an opening book instead ([`AnyGame::build_book`]).
    #[cfg(feature = "engine")]
    pub fn solve(&self, progress: &dyn Progress) -> Result<Solved, SolveError> {
        if let Some(reason) = self.game().descriptor().storage_error() {
            return Err(SolveError::TooLarge { reason });
        }
        if self.database_kind() != DatabaseKind::Complete {
            return Err(SolveError::TooLarge {
                reason: format!(
                    "{} is too large to solve completely: build an opening book instead \
                     (generator --depth N)",
                    self.label()
                ),
            });
        }
        match self {
            AnyGame::BritishSquare(g) => solve::bucketed::solve(g, progress).map(Solved::from),
            AnyGame::DotsAndBoxes(g) => solve_dense(g, progress).map(Solved::from),
            AnyGame::ConnectFour(g) => solve::solve(g, progress).map(Solved::from),
            AnyGame::Dandelions(g) => solve::solve(g, progress).map(Solved::from),
        }
    }

    /// Solves the game completely on the ranks of `ex`
    /// ([`crate::solve::ranks`]): every rank calls it. `None` for a game
    /// whose complete database the ranks do not build (a dense one, or a
    /// game solved only as an opening book).
    #[cfg(feature = "engine")]
    pub fn solve_on_ranks(
        &self,
        ex: &dyn solve::ranks::Exchange,
        progress: &dyn Progress,
    ) -> Option<Result<solve::ranks::RankSolution, SolveError>> {
        if self.database_kind() != DatabaseKind::Complete
            || self.game().descriptor().storage_error().is_some()
        {
            return None;
        }
        match self {
            AnyGame::BritishSquare(g) => Some(solve::ranks_bucketed::solve(g, ex, progress)),
            AnyGame::ConnectFour(g) => Some(solve::ranks::solve(g, ex, progress)),
            AnyGame::Dandelions(g) => Some(solve::ranks::solve(g, ex, progress)),
            AnyGame::DotsAndBoxes(_) => None,
        }
    }

    /// Solves a game whose database is a dense table on the ranks of `ex`
    /// ([`solve::dense::solve_dense_on_ranks`]; every rank calls it, rank 0
    /// with the `output` the table goes to). `None` for a game whose
    /// database is sorted.
    #[cfg(feature = "engine")]
    pub fn solve_dense_on_ranks(
        &self,
        ex: &dyn solve::ranks::Exchange,
        progress: &dyn Progress,
        output: Option<&mut dyn solve::dense::DenseOutput>,
    ) -> Option<Result<solve::dense::DenseRankSummary, SolveError>> {
        if let Some(reason) = self.game().descriptor().storage_error() {
            return Some(Err(SolveError::TooLarge { reason }));
        }
        match self {
            AnyGame::DotsAndBoxes(g) => {
                Some(solve::dense::solve_dense_on_ranks(g, ex, progress, output))
            }
            _ => None,
        }
    }

    /// Builds the game's opening book ([`crate::solve::book`]), or `None`
    /// for a game without one (it is solved completely instead).
    #[cfg(feature = "engine")]
    pub fn build_book(
        &self,
        options: &BookOptions,
        progress: &dyn Progress,
    ) -> Option<Result<Solution, BookError>> {
        match self {
            AnyGame::ConnectFour(g) => Some(build_book(g, options, progress)),
            AnyGame::Dandelions(g) => Some(build_book(g, options, progress)),
            AnyGame::DotsAndBoxes(g) if !g.has_table() => Some(build_book(g, options, progress)),
            AnyGame::BritishSquare(_) | AnyGame::DotsAndBoxes(_) => None,
        }
    }

    /// [`AnyGame::build_book`] on the ranks of a job: every rank calls
    /// this, holds its share of the book and searches its share of the
    /// deepest layer ([`crate::solve::book::build_book_on_ranks`]); `None`
    /// for a game without a book.
    #[cfg(feature = "engine")]
    pub fn build_book_on_ranks(
        &self,
        options: &BookOptions,
        ex: &dyn solve::ranks::Exchange,
        farm: &dyn Farm,
        progress: &dyn Progress,
    ) -> Option<Result<RankBook, BookError>> {
        match self {
            AnyGame::ConnectFour(g) => Some(build_book_on_ranks(g, options, ex, farm, progress)),
            AnyGame::Dandelions(g) => Some(build_book_on_ranks(g, options, ex, farm, progress)),
            AnyGame::DotsAndBoxes(g) if !g.has_table() => {
                Some(build_book_on_ranks(g, options, ex, farm, progress))
            }
            AnyGame::BritishSquare(_) | AnyGame::DotsAndBoxes(_) => None,
        }
    }

    /// The `--table-bits` its book's searches accept, or `None` for a game
    /// without a book.
    #[cfg(feature = "search")]
    pub fn table_bits_range(&self) -> Option<std::ops::RangeInclusive<u32>> {
        use crate::solve::book::BookGame;
        match self {
            AnyGame::ConnectFour(g) => Some(g.table_bits_range()),
            AnyGame::Dandelions(g) => Some(g.table_bits_range()),
            AnyGame::DotsAndBoxes(g) if !g.has_table() => Some(g.table_bits_range()),
            AnyGame::BritishSquare(_) | AnyGame::DotsAndBoxes(_) => None,
        }
    }

    /// Checks, before anything is allocated, that the tables of a live
    /// search with `searchers` searchers and `2^table_bits` entries can be
    /// made: the size in [`AnyGame::table_bits_range`], and their memory
    /// within what the system has available. Returns that memory in bytes;
    /// `None` for a game without a book.
    #[cfg(feature = "search")]
    pub fn check_tables(
        &self,
        searchers: usize,
        table_bits: u32,
    ) -> Option<Result<u64, TableError>> {
        use crate::solve::book::BookGame;
        match self {
            AnyGame::ConnectFour(g) => Some(g.check_tables(searchers, table_bits)),
            AnyGame::Dandelions(g) => Some(g.check_tables(searchers, table_bits)),
            AnyGame::DotsAndBoxes(g) if !g.has_table() => {
                Some(g.check_tables(searchers, table_bits))
            }
            AnyGame::BritishSquare(_) | AnyGame::DotsAndBoxes(_) => None,
        }
    }

    /// The memory in bytes of the tables of a live search with `searchers`
    /// searchers and `2^table_bits` entries (unchecked); `None` for a game
    /// without a book.
    #[cfg(feature = "search")]
    pub fn table_bytes(&self, searchers: usize, table_bits: u32) -> Option<u64> {
        use crate::solve::book::BookGame;
        match self {
            AnyGame::ConnectFour(g) => Some(g.table_bytes(searchers, table_bits)),
            AnyGame::Dandelions(g) => Some(g.table_bytes(searchers, table_bits)),
            AnyGame::DotsAndBoxes(g) if !g.has_table() => {
                Some(g.table_bytes(searchers, table_bits))
            }
            AnyGame::BritishSquare(_) | AnyGame::DotsAndBoxes(_) => None,
        }
    }

    /// Live search for a game with a book: answers any position, from
    /// `book` when given (a database of this game and variant) and by search
    /// otherwise; `None` for a game whose database holds every position.
    /// Its searchers are one per thread
    /// ([`crate::solve::live::default_searchers`]), with their tables
    /// checked first ([`AnyGame::check_tables`]).
    #[cfg(feature = "search")]
    pub fn live<'a>(
        &self,
        book: Option<&'a Database>,
        table_bits: u32,
    ) -> Option<Result<Box<dyn Oracle + 'a>, BookError>> {
        fn boxed<'a, O: Oracle + 'a>(o: O) -> Box<dyn Oracle + 'a> {
            Box::new(o)
        }
        let book = book.map(|b| b as &dyn crate::core::BookSource);
        match self {
            AnyGame::ConnectFour(g) => {
                Some(LiveSearch::new(g.clone(), book, table_bits).map(boxed))
            }
            AnyGame::Dandelions(g) => Some(LiveSearch::new(g.clone(), book, table_bits).map(boxed)),
            AnyGame::DotsAndBoxes(g) if !g.has_table() => {
                Some(LiveSearch::new(g.clone(), book, table_bits).map(boxed))
            }
            AnyGame::BritishSquare(_) | AnyGame::DotsAndBoxes(_) => None,
        }
    }

    /// [`AnyGame::live`] with `searchers` searchers on a database it
    /// shares, so that the live search (its searchers and their tables)
    /// can be kept beside the database from call to call.
    #[cfg(feature = "search")]
    pub fn live_shared(
        &self,
        book: Option<std::sync::Arc<Database>>,
        table_bits: u32,
        searchers: usize,
    ) -> Option<Result<Box<dyn Oracle + Send + Sync>, BookError>> {
        fn boxed<O: Oracle + Send + Sync + 'static>(o: O) -> Box<dyn Oracle + Send + Sync> {
            Box::new(o)
        }
        let book = book.map(|b| b as std::sync::Arc<dyn crate::core::BookSource + Send + Sync>);
        match self {
            AnyGame::ConnectFour(g) => {
                Some(LiveSearch::shared(g.clone(), book, table_bits, searchers).map(boxed))
            }
            AnyGame::Dandelions(g) => {
                Some(LiveSearch::shared(g.clone(), book, table_bits, searchers).map(boxed))
            }
            AnyGame::DotsAndBoxes(g) if !g.has_table() => {
                Some(LiveSearch::shared(g.clone(), book, table_bits, searchers).map(boxed))
            }
            AnyGame::BritishSquare(_) | AnyGame::DotsAndBoxes(_) => None,
        }
    }

    /// The game's heuristics, bound to it, for the statistics.
    pub fn heuristics(&self) -> Vec<BoundHeuristic<'_>> {
        match self {
            AnyGame::BritishSquare(g) => british_square::HEURISTICS
                .iter()
                .map(|h| h.bind(g))
                .collect(),
            AnyGame::DotsAndBoxes(g) => dots_and_boxes::HEURISTICS
                .iter()
                .map(|h| h.bind(g))
                .collect(),
            AnyGame::ConnectFour(_) | AnyGame::Dandelions(_) => Vec::new(),
        }
    }

    /// True for the game's standard variant (the one an empty spec names).
    pub fn is_standard(&self) -> bool {
        let d = self.game().descriptor();
        AnyGame::new(d.name, "").is_ok_and(|g| g.game().descriptor().variant == d.variant)
    }

    /// The default database file name: `STEM.db` for the standard variant,
    /// `STEM-VARIANT.db` (the canonical variant, commas as dashes) for the
    /// others.
    pub fn default_file_name(&self) -> String {
        let stem = self.info().file_stem;
        if self.is_standard() {
            format!("{stem}.db")
        } else {
            let variant = &self.game().descriptor().variant;
            format!("{stem}-{}.db", variant.replace(',', "-"))
        }
    }

    /// The `generator` command line that writes this game's default file.
    pub fn generator_command(&self) -> String {
        let d = self.game().descriptor();
        let mut cmd = format!("generator --game {}", d.name);
        if !self.is_standard() {
            cmd.push_str(&format!(" --variant {}", d.variant));
        }
        cmd
    }

    /// A human-readable name: `british-square 5x5`.
    pub fn label(&self) -> String {
        let d = self.game().descriptor();
        format!("{} {}", d.name, d.variant)
    }
}
