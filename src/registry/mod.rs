//! The games this build knows, by name: the top of the library. The one
//! list of games is here ([`AnyGame`] and [`GAMES`] are written from it);
//! what each game is (help texts, variants, default files, which solver
//! builds its database and what that costs) it declares in its own folder
//! ([`RegisteredGame`]), so that the command-line tools and the layers
//! below know no game by heart.

use std::sync::Arc;

#[cfg(feature = "search")]
use crate::core::Oracle;
use crate::core::{BoundHeuristic, Game, VariantError};
#[cfg(feature = "engine")]
use crate::core::{Progress, Solution, Solved};
use crate::db::{check_header, Database, DbError, Header};
use crate::games::registered::RegisteredGame;
#[cfg(feature = "search")]
use crate::games::registered::SearchHelp;
use crate::render::Presentation;
#[cfg(feature = "engine")]
use crate::solve::book::farm::Farm;
#[cfg(feature = "search")]
use crate::solve::book::{BookError, DynBookGame};
#[cfg(feature = "engine")]
use crate::solve::book::{BookOptions, RankBook};
#[cfg(feature = "search")]
use crate::solve::memory::TableError;
#[cfg(feature = "engine")]
use crate::solve::{self, SolveError};

#[cfg(feature = "engine")]
pub use crate::games::registered::{Calibration, Estimate, TimeScale};
pub use crate::games::registered::{DatabaseKind, GameInfo};

/// Writes, from the one list of games, the [`AnyGame`] enum (a variant per
/// game), [`GAMES`], and the few `match`es over the enum that everything
/// else goes through: a game in the list is in every one of them, and a
/// game missing a declaration fails to compile.
macro_rules! games {
    ($($(#[doc = $doc:literal])* $variant:ident($game:ty),)+) => {
        /// A game of any kind this build knows, with its variant.
        #[derive(Clone, Debug)]
        // A process sets up one game; boxing the larger variant would buy
        // nothing.
        #[allow(clippy::large_enum_variant)]
        pub enum AnyGame {
            $($(#[doc = $doc])* $variant($game),)+
        }

        /// Every game this build knows, in the order help texts list them.
        pub const GAMES: &[GameInfo] = &[$(<$game as RegisteredGame>::INFO,)+];

        /// How the help of `--table-bits` tells of each game's searches,
        /// by game name.
        #[cfg(feature = "search")]
        const SEARCH_HELP: &[(&str, Option<SearchHelp>)] = &[$((
            <$game as RegisteredGame>::INFO.name,
            <$game as RegisteredGame>::SEARCH_HELP,
        ),)+];

        impl AnyGame {
            /// Sets up a game by name and variant spec (empty for the
            /// default).
            pub fn new(name: &str, variant: &str) -> Result<AnyGame, GameError> {
                $(if name == <$game as RegisteredGame>::INFO.name {
                    let game = <$game as RegisteredGame>::from_variant(variant)?;
                    return Ok(AnyGame::$variant(game));
                }
                for &(alias, spec) in <$game as RegisteredGame>::ALIASES {
                    if name == alias {
                        let game = <$game as RegisteredGame>::from_variant(
                            aliased_variant(alias, spec, variant)?,
                        )?;
                        return Ok(AnyGame::$variant(game));
                    }
                })+
                Err(unknown_game(name))
            }

            /// The game's registry entry.
            pub fn info(&self) -> &'static GameInfo {
                match self {
                    $(AnyGame::$variant(_) => &<$game as RegisteredGame>::INFO,)+
                }
            }

            /// The game as the registry asks it, whatever its type.
            fn entry(&self) -> &dyn Entry {
                match self {
                    $(AnyGame::$variant(g) => g,)+
                }
            }
        }

        $(impl From<$game> for AnyGame {
            fn from(game: $game) -> AnyGame {
                AnyGame::$variant(game)
            }
        })+
    };
}

// The games, in the order help texts list them; the first is the tools'
// default.
games! {
    /// British Square.
    BritishSquare(crate::games::british_square::BritishSquare),
    /// Dots and Boxes.
    DotsAndBoxes(crate::games::dots_and_boxes::DotsAndBoxes),
    /// Connect Four.
    ConnectFour(crate::games::connect_four::ConnectFour),
    /// Dandelions.
    Dandelions(crate::games::dandelions::Dandelions),
    /// k-in-a-row (m,n,k-games), tic-tac-toe by default.
    KInARow(crate::games::k_in_a_row::KInARow),
}

/// [`RegisteredGame`] without its constants and constructor, so that it
/// can be a trait object: what [`AnyGame`] asks of the game it holds.
trait Entry {
    /// The game with its presentation.
    fn present(&self) -> &dyn Presentation;
    /// A copy of the game, shared.
    fn shared(&self) -> Arc<dyn Game>;
    /// [`RegisteredGame::database_kind`].
    fn database_kind(&self) -> DatabaseKind;
    /// [`RegisteredGame::HEURISTICS`], bound to the game.
    fn heuristics(&self) -> Vec<BoundHeuristic<'_>>;
    /// [`RegisteredGame::book_game`].
    #[cfg(feature = "search")]
    fn book_game(&self) -> Option<&dyn DynBookGame>;
    /// [`RegisteredGame::solve`].
    #[cfg(feature = "engine")]
    fn solve(&self, progress: &dyn Progress) -> Result<Solved, SolveError>;
    /// [`RegisteredGame::solve_on_ranks`].
    #[cfg(feature = "engine")]
    fn solve_on_ranks(
        &self,
        ex: &dyn solve::ranks::Exchange,
        progress: &dyn Progress,
    ) -> Option<Result<solve::ranks::RankSolution, SolveError>>;
    /// [`RegisteredGame::solve_dense_on_ranks`].
    #[cfg(feature = "engine")]
    fn solve_dense_on_ranks(
        &self,
        ex: &dyn solve::ranks::Exchange,
        progress: &dyn Progress,
        output: Option<&mut dyn solve::dense::DenseOutput>,
    ) -> Option<Result<solve::dense::DenseRankSummary, SolveError>>;
    /// [`RegisteredGame::estimate`].
    #[cfg(feature = "engine")]
    fn estimate(&self, depth: u32, table_bits: u32, threads: usize) -> Option<Estimate>;
    /// [`RegisteredGame::calibration`].
    #[cfg(feature = "engine")]
    fn calibration(&self, depth: u32) -> Option<Calibration>;
}

impl<G: RegisteredGame> Entry for G {
    fn present(&self) -> &dyn Presentation {
        self
    }

    fn shared(&self) -> Arc<dyn Game> {
        Arc::new(self.clone())
    }

    fn database_kind(&self) -> DatabaseKind {
        RegisteredGame::database_kind(self)
    }

    fn heuristics(&self) -> Vec<BoundHeuristic<'_>> {
        G::HEURISTICS.iter().map(|h| h.bind(self)).collect()
    }

    #[cfg(feature = "search")]
    fn book_game(&self) -> Option<&dyn DynBookGame> {
        RegisteredGame::book_game(self)
    }

    #[cfg(feature = "engine")]
    fn solve(&self, progress: &dyn Progress) -> Result<Solved, SolveError> {
        RegisteredGame::solve(self, progress)
    }

    #[cfg(feature = "engine")]
    fn solve_on_ranks(
        &self,
        ex: &dyn solve::ranks::Exchange,
        progress: &dyn Progress,
    ) -> Option<Result<solve::ranks::RankSolution, SolveError>> {
        RegisteredGame::solve_on_ranks(self, ex, progress)
    }

    #[cfg(feature = "engine")]
    fn solve_dense_on_ranks(
        &self,
        ex: &dyn solve::ranks::Exchange,
        progress: &dyn Progress,
        output: Option<&mut dyn solve::dense::DenseOutput>,
    ) -> Option<Result<solve::dense::DenseRankSummary, SolveError>> {
        RegisteredGame::solve_dense_on_ranks(self, ex, progress, output)
    }

    #[cfg(feature = "engine")]
    fn estimate(&self, depth: u32, table_bits: u32, threads: usize) -> Option<Estimate> {
        RegisteredGame::estimate(self, depth, table_bits, threads)
    }

    #[cfg(feature = "engine")]
    fn calibration(&self, depth: u32) -> Option<Calibration> {
        RegisteredGame::calibration(self, depth)
    }
}

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

/// The games answered by search, by name, with what the help of
/// `--table-bits` says of each, in the order it lists them: the most
/// shared tables first, then as in [`GAMES`].
#[cfg(feature = "search")]
fn searched() -> Vec<(&'static str, SearchHelp)> {
    let mut searched: Vec<_> = SEARCH_HELP
        .iter()
        .filter_map(|&(name, help)| Some((name, help?)))
        .collect();
    searched.sort_by_key(|(_, help)| help.sharing);
    searched
}

/// The `--table-bits` some game answered by search takes: from the
/// smallest of their ranges' starts to the largest of their ends.
#[cfg(feature = "search")]
pub fn table_bits_bounds() -> std::ops::RangeInclusive<u32> {
    let ranges: Vec<_> = searched()
        .iter()
        .filter_map(|(name, help)| AnyGame::new(name, help.variant).ok()?.table_bits_range())
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
    let games: Vec<String> = searched()
        .iter()
        .map(|(name, help)| {
            let game = AnyGame::new(name, help.variant).ok();
            let range = game
                .as_ref()
                .and_then(|g| g.table_bits_range())
                .map_or_else(String::new, |r| format!("{} to {}", r.start(), r.end()));
            let default = game
                .as_ref()
                .and_then(|g| {
                    let bits = g.default_table_bits(crate::solve::live::default_searchers())?;
                    Some(format!(" (by default {bits} on {} here)", g.label()))
                })
                .unwrap_or_default();
            format!(
                "{} takes {range}{default} and {}",
                help.subject,
                help.sharing.says()
            )
        })
        .collect();
    format!(
        "The tables hold 2^BITS entries of 8 bytes: 26 is 512 MiB, each bit more doubles \
         it. {}. A size larger than the memory available is refused (exit status 2).",
        games.join("; ")
    )
}

/// The registry entry of a game.
pub fn find(name: &str) -> Result<&'static GameInfo, GameError> {
    GAMES
        .iter()
        .find(|g| g.name == name)
        .ok_or_else(|| unknown_game(name))
}

/// The variant `--game ALIAS` names: `spec`, unless `--variant` gives
/// another (a usage error: the alias is one variant).
fn aliased_variant<'a>(alias: &str, spec: &'a str, given: &str) -> Result<&'a str, GameError> {
    if given.is_empty() || given == spec {
        Ok(spec)
    } else {
        Err(GameError::AliasVariant {
            alias: alias.to_owned(),
            variant: given.to_owned(),
        })
    }
}

/// The error of a name no game has.
fn unknown_game(name: &str) -> GameError {
    GameError::UnknownGame {
        name: name.to_owned(),
        known: known_names(),
    }
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
    /// A name that stands for one variant was given another.
    #[error(
        "{alias:?} is one variant: --variant {variant:?} does not apply (name the game itself)"
    )]
    AliasVariant {
        /// The other name given as the game.
        alias: String,
        /// The variant given with it.
        variant: String,
    },
}

/// What a calibration sample took here ([`AnyGame::calibrate`]).
#[cfg(feature = "engine")]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleTiming {
    /// The searches' wall times added up, in seconds.
    pub wall_seconds: f64,
    /// The search threads' processor time, in seconds, where the system
    /// tells it.
    pub cpu_seconds: Option<f64>,
    /// What the build's estimate is scaled by.
    pub scale: TimeScale,
}

/// Why a calibration sample could not be timed.
#[cfg(feature = "engine")]
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    /// A position of the sample does not parse (a bug in its declaration).
    #[error("calibration position {text:?}: {error}")]
    Position {
        /// The position as declared.
        text: &'static str,
        /// Why it does not parse.
        error: crate::core::PositionError,
    },
    /// A position of the sample ends the game: nothing to search (a bug in
    /// its declaration).
    #[error("calibration position {text:?} ends the game")]
    Final {
        /// The position as declared.
        text: &'static str,
    },
    /// The sample is of searches, and this board has none.
    #[error("no search on this board to sample")]
    NoSearch,
    /// The searches could not be set up (their tables refused).
    #[error(transparent)]
    Search(#[from] BookError),
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

impl AnyGame {
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
        file: Arc<crate::db::RangeFile>,
    ) -> Result<(Database, AnyGame), OpenError> {
        let (db, game) = Database::from_ranges_checked(name, file, AnyGame::from_header)?;
        Ok(AnyGame::ready(db, game))
    }

    /// The game, as a trait object of its own.
    pub fn shared(&self) -> Arc<dyn Game> {
        self.entry().shared()
    }

    /// The game, as a trait object.
    pub fn game(&self) -> &dyn Game {
        self.present()
    }

    /// The game with its presentation, as a trait object.
    pub fn present(&self) -> &dyn Presentation {
        self.entry().present()
    }

    /// What this game's database holds: on some games it depends on the
    /// board ([`RegisteredGame::database_kind`]; a book past the boards
    /// small enough to solve completely, or past the boards a table holds).
    pub fn database_kind(&self) -> DatabaseKind {
        self.entry().database_kind()
    }

    /// True for games whose database may be an opening book and whose
    /// positions can be searched: the games whose standard database is a
    /// book, on every board, and the others on the boards whose database is
    /// (`AnyGame::build_book`, `AnyGame::live`).
    pub fn has_book(&self) -> bool {
        matches!(self.info().kind, DatabaseKind::Book { .. })
            || matches!(self.database_kind(), DatabaseKind::Book { .. })
    }

    /// Solves the game completely, with the solver it names
    /// ([`RegisteredGame::solve`], monomorphised per game for speed).
    ///
    /// Fails on a board whose database is an opening book (build that with
    /// [`AnyGame::build_book`]), and on one whose records do not fit.
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
        self.entry().solve(progress)
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
        self.entry().solve_on_ranks(ex, progress)
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
        self.entry().solve_dense_on_ranks(ex, progress, output)
    }

    /// The game as its book's search sees it: `None` on a board whose
    /// positions are not searched ([`RegisteredGame::book_game`]).
    #[cfg(feature = "search")]
    fn book_game(&self) -> Option<&dyn DynBookGame> {
        self.entry().book_game()
    }

    /// Builds the game's opening book ([`crate::solve::book`]), or `None`
    /// for a game without one (it is solved completely instead).
    #[cfg(feature = "engine")]
    pub fn build_book(
        &self,
        options: &BookOptions,
        progress: &dyn Progress,
    ) -> Option<Result<Solution, BookError>> {
        Some(self.book_game()?.build_book(options, progress))
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
        Some(
            self.book_game()?
                .build_book_on_ranks(options, ex, farm, progress),
        )
    }

    /// The `--table-bits` its book's searches accept, or `None` for a game
    /// without a book.
    #[cfg(feature = "search")]
    pub fn table_bits_range(&self) -> Option<std::ops::RangeInclusive<u32>> {
        Some(self.book_game()?.table_bits_range())
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
        Some(self.book_game()?.check_tables(searchers, table_bits))
    }

    /// The memory in bytes of the tables of a live search with `searchers`
    /// searchers and `2^table_bits` entries (unchecked); `None` for a game
    /// without a book.
    #[cfg(feature = "search")]
    pub fn table_bytes(&self, searchers: usize, table_bits: u32) -> Option<u64> {
        Some(self.book_game()?.table_bytes(searchers, table_bits))
    }

    /// The `--table-bits` a live search of this board takes when none is
    /// given ([`crate::solve::live::default_table_bits`]: sized by the
    /// board, at most half the memory available); `None` for a game
    /// without search.
    #[cfg(feature = "search")]
    pub fn default_table_bits(&self, searchers: usize) -> Option<u32> {
        Some(self.book_game()?.default_table_bits(searchers))
    }

    /// True when answers come from search: a game with a book, or any
    /// game whose positions can be searched when its database is missing.
    #[cfg(feature = "search")]
    pub fn searched_with(&self, db: Option<&Database>) -> bool {
        self.book_game().is_some() && (db.is_none() || self.has_book())
    }

    /// Live search: answers any position, from `book` when given (a
    /// database of this game and variant) and by search otherwise; `None`
    /// for a game without search, and when `book` holds every position
    /// (a complete database answers alone).
    /// Its searchers are one per thread
    /// ([`crate::solve::live::default_searchers`]), with their tables
    /// checked first ([`AnyGame::check_tables`]).
    #[cfg(feature = "search")]
    pub fn live<'a>(
        &self,
        book: Option<&'a Database>,
        table_bits: u32,
    ) -> Option<Result<Box<dyn Oracle + 'a>, BookError>> {
        if !self.searched_with(book) {
            return None;
        }
        let book = book.map(|b| b as &dyn crate::core::BookSource);
        Some(self.book_game()?.live(book, table_bits))
    }

    /// [`AnyGame::live`] with `searchers` searchers on a database it
    /// shares, so that the live search (its searchers and their tables)
    /// can be kept beside the database from call to call.
    #[cfg(feature = "search")]
    pub fn live_shared(
        &self,
        book: Option<Arc<Database>>,
        table_bits: u32,
        searchers: usize,
    ) -> Option<Result<Box<dyn Oracle + Send + Sync>, BookError>> {
        if !self.searched_with(book.as_deref()) {
            return None;
        }
        let book = book.map(|b| b as Arc<dyn crate::core::BookSource + Send + Sync>);
        Some(self.book_game()?.live_shared(book, table_bits, searchers))
    }

    /// The game's heuristics, bound to it, for the statistics.
    pub fn heuristics(&self) -> Vec<BoundHeuristic<'_>> {
        self.entry().heuristics()
    }

    /// What `generator` would cost for this game: a book of `depth` moves
    /// (for a game whose database is a book) searched with tables of
    /// `2^table_bits` words on `threads` threads. `None` when no measured
    /// run tells.
    #[cfg(feature = "engine")]
    pub fn estimate(&self, depth: u32, table_bits: u32, threads: usize) -> Option<Estimate> {
        self.entry().estimate(depth, table_bits, threads)
    }

    /// The sample that calibrates [`AnyGame::estimate`] of a book of
    /// `depth` moves (or of the complete database) on this machine
    /// ([`RegisteredGame::calibration`]); `None` for builds without one.
    #[cfg(feature = "engine")]
    pub fn calibration(&self, depth: u32) -> Option<Calibration> {
        self.entry().calibration(depth)
    }

    /// Times the calibration sample of a build of `depth` moves
    /// ([`AnyGame::calibration`]) on `threads` threads, with the build's
    /// tables of `2^table_bits` entries where they are smaller than the
    /// sample's: a fraction of a second of the build's own kind of work,
    /// whose time against the reference machine's scales the build's
    /// estimate. `None` for builds without a sample.
    #[cfg(feature = "engine")]
    pub fn calibrate(
        &self,
        depth: u32,
        table_bits: u32,
        threads: usize,
    ) -> Option<Result<SampleTiming, CalibrationError>> {
        let calibration = self.calibration(depth)?;
        Some(self.time_sample(&calibration, table_bits, threads))
    }

    /// [`AnyGame::calibrate`] of `calibration`.
    #[cfg(feature = "engine")]
    fn time_sample(
        &self,
        calibration: &Calibration,
        table_bits: u32,
        threads: usize,
    ) -> Result<SampleTiming, CalibrationError> {
        let search = self.book_game().ok_or(CalibrationError::NoSearch)?;
        let states = self.sample_states(calibration)?;
        let bits = calibration.table_bits.min(table_bits);
        let times = search.time_searches(&states, bits, threads)?;
        let wall = times.wall.as_secs_f64();
        let cpu = times.cpu.map(|c| c.as_secs_f64());
        Ok(SampleTiming {
            wall_seconds: wall,
            cpu_seconds: cpu,
            scale: TimeScale::from_sample(calibration.reference_seconds, wall, cpu),
        })
    }

    /// The canonical states of a calibration sample's positions, each
    /// checked to have moves to search.
    #[cfg(feature = "engine")]
    fn sample_states(&self, calibration: &Calibration) -> Result<Vec<u64>, CalibrationError> {
        let game = self.game();
        let mut moves = Vec::new();
        calibration
            .positions
            .iter()
            .map(|&text| {
                let state = game
                    .parse_position(text)
                    .map_err(|error| CalibrationError::Position { text, error })?;
                moves.clear();
                game.moves(state, &mut moves);
                if moves.is_empty() {
                    return Err(CalibrationError::Final { text });
                }
                Ok(game.canonical(state))
            })
            .collect()
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

    /// A human-readable name: the game's name, a space and its variant.
    pub fn label(&self) -> String {
        let d = self.game().descriptor();
        format!("{} {}", d.name, d.variant)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game's declaration and its rules agree: its entry names the game
    /// and id its databases carry, and an empty spec is its standard
    /// variant.
    #[test]
    fn every_entry_names_its_game() {
        for info in GAMES {
            let game = AnyGame::new(info.name, "").unwrap();
            let d = game.game().descriptor();
            assert_eq!((d.name, d.id), (info.name, info.id));
            assert_eq!(game.info().name, info.name);
            assert!(game.is_standard());
            assert_eq!(game.database_kind(), info.kind, "{}", info.name);
        }
    }

    /// Every book whose build is long enough to be worth a sample has one,
    /// on the standard board, at every depth with an estimate; and every
    /// sample's positions parse, have moves, are distinct and are searched
    /// with tables the board takes.
    #[cfg(feature = "engine")]
    #[test]
    fn long_books_have_calibration_samples() {
        let mut sampled = 0;
        for info in GAMES {
            let DatabaseKind::Book { default_depth } = info.kind else {
                continue;
            };
            let game = AnyGame::new(info.name, "").unwrap();
            let bits = BookOptions::new(0).table_bits;
            for depth in 0..=default_depth + 8 {
                let Some(e) = game.estimate(depth, bits, 2) else {
                    continue;
                };
                let Some(c) = game.calibration(depth) else {
                    assert!(!e.worth_sampling(2), "{} depth {depth}", info.name);
                    continue;
                };
                sampled += 1;
                let mut states = game.sample_states(&c).unwrap();
                assert!(
                    states.len() >= 2,
                    "{}: a sample for both threads",
                    info.name
                );
                states.sort_unstable();
                states.dedup();
                assert_eq!(states.len(), c.positions.len(), "{}", info.name);
                let range = game.table_bits_range().unwrap();
                assert!(range.contains(&c.table_bits), "{}", info.name);
                assert!(c.reference_seconds > 0.05 && c.reference_seconds < 1.0);
            }
        }
        assert!(sampled > 0, "some book is calibrated");
    }

    /// A sample is timed: positive times, scaled against its reference.
    #[cfg(feature = "engine")]
    #[test]
    fn a_sample_is_timed() {
        let game = AnyGame::new("connect-four", "").unwrap();
        let quick = Calibration {
            positions: &["4453312", "4444443322"],
            table_bits: 20,
            reference_seconds: 0.01,
        };
        let t = game.time_sample(&quick, 26, 2).unwrap();
        assert!(t.wall_seconds > 0.0);
        assert_eq!(t.cpu_seconds.is_some(), cfg!(target_os = "linux"));
        let expected = TimeScale::from_sample(0.01, t.wall_seconds, t.cpu_seconds);
        assert_eq!(t.scale, expected);
        let bad = Calibration {
            positions: &["8"],
            ..quick
        };
        assert!(matches!(
            game.time_sample(&bad, 26, 2),
            Err(CalibrationError::Position { text: "8", .. })
        ));
    }

    /// The help of `--table-bits` quotes, for every game answered by
    /// search, a variant that is, most shared tables first.
    #[cfg(feature = "search")]
    #[test]
    fn search_help_quotes_searched_variants() {
        let searched = searched();
        assert!(!searched.is_empty());
        assert!(searched
            .windows(2)
            .all(|w| w[0].1.sharing <= w[1].1.sharing));
        let (help, bounds) = (table_bits_help(), table_bits_bounds());
        for (name, h) in &searched {
            let game = AnyGame::new(name, h.variant).unwrap();
            let range = game
                .table_bits_range()
                .expect("a variant answered by search");
            let default = game
                .default_table_bits(crate::solve::live::default_searchers())
                .expect("a default size");
            assert!(range.contains(&default));
            let says = format!(
                "{} takes {} to {} (by default {default} on {} here) and {}",
                h.subject,
                range.start(),
                range.end(),
                game.label(),
                h.sharing.says()
            );
            assert!(help.contains(&says), "{help}");
            assert!(bounds.contains(range.start()) && bounds.contains(range.end()));
        }
    }
}
