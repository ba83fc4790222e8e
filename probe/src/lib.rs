//! Read boardsolve databases from your own program.
//!
//! A [`Tablebase`] opens a database file of any game the `generator` writes
//! (the games of [`boardsolve::registry::GAMES`]), checks it (header, size,
//! the game's bounds), and answers positions in the game's own notation:
//! the value, the remoteness, the best moves, every move's value and the
//! line of perfect play. Errors are typed and hand the input back; nothing
//! panics on a bad position or a bad file.
//!
//! It is the one door to a database: `query` (its commands and `query
//! serve`), the Python package and the WebAssembly package all open files
//! and attach searches through it, so that what one reader knows, all
//! know.
//!
//! This crate brings the file reader and the games' rules, not the solvers
//! or the progress bars: its dependencies are `memmap2`, `bytemuck`,
//! `miniz_oxide`, `xxhash-rust` and `thiserror`. The `search` feature adds
//! the live searches, so that positions past an opening book are answered
//! by search (as `query` answers them) rather than with
//! [`ProbeError::NotInBook`], and a game whose positions can be searched is
//! answered without a file (`Tablebase::without_file`).
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
//! use boardsolve_probe::Tablebase;
//!
//! let tb = Tablebase::open(&path)?; // a British Square 4x4 database
//! assert_eq!((tb.game(), tb.variant()), ("british-square", "4x4"));
//!
//! // The empty board is a draw with perfect play, 8 plies from the end.
//! let start = tb.probe("start")?;
//! assert_eq!((start.value, start.remoteness), (0, 8));
//! assert_eq!(start.to_move, "X");
//!
//! // Every legal move, best first, each with the value it leads to (moves
//! // are named by their coordinates, a1 to d4; cell numbers are read too).
//! assert_eq!(start.moves.len(), 16);
//! assert!(start.best_moves().any(|m| m.name == "b2"));
//! assert!(start.moves.iter().all(|m| m.value <= start.value));
//!
//! // The line of perfect play to the end.
//! assert_eq!(tb.line("start")?.len(), 8);
//!
//! // Positions in the game's notation: the moves so far, or the board.
//! let after = tb.probe("b2 c3")?;
//! assert_eq!(after.position, "..../.X../..O./.... X");
//!
//! // Bad input is a typed error, never a panic.
//! assert!(matches!(tb.probe("z9"), Err(boardsolve_probe::ProbeError::Position(_))));
//! # Ok::<(), boardsolve_probe::ProbeError>(())
//! ```
#![warn(missing_docs)]

use std::path::Path;
use std::sync::Arc;
#[cfg(feature = "search")]
use std::sync::OnceLock;

use boardsolve::analysis::{
    analyze_position, analyze_positions, evaluate, json, picture, principal_variation, Analysis,
    QueryError,
};
use boardsolve::core::{Oracle, Position};
use boardsolve::db::Database;
use boardsolve::registry::AnyGame;
pub use boardsolve::registry::ShippedBook;

pub use boardsolve::core::{Cancel, CancelOnDrop};
pub use boardsolve::db::RangeFile;
pub use boardsolve::registry::OpenError;
pub use boardsolve::PositionError;

/// Why a position could not be answered, or a file opened.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The file is missing, not a database, damaged, or of a game or
    /// variant this build does not know.
    #[error("database {}: {source}", path.display())]
    Open {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        source: OpenError,
    },
    /// The position is malformed or illegal in this game.
    #[error(transparent)]
    Position(#[from] PositionError),
    /// The position, or one after a move from it, lies past the opening
    /// book the file holds (the `search` feature answers it by search).
    #[error("position {position} is not in this database")]
    NotInBook {
        /// The position, in the game's notation.
        position: String,
    },
    /// The position cannot be reached from the start of the game.
    #[error("position {position} cannot be reached from the start of the game")]
    Unreachable {
        /// The position, in the game's notation.
        position: String,
    },
    /// The database contradicts itself or holds a value the game rules
    /// out: it is damaged or forged (`query verify` tells more).
    #[error("database corrupted at {position}: {reason} (run `query verify`)")]
    Corrupt {
        /// The position, in the game's notation.
        position: String,
        /// What is wrong.
        reason: String,
    },
    /// What was asked needs a database, and the tablebase answers by
    /// search alone (`Tablebase::without_file`, feature `search`).
    #[error("{game} is answered by search here: there is no database")]
    NoDatabase {
        /// The game and variant.
        game: String,
    },
    /// The live search gave no answer (feature `search`): it was stopped
    /// through its [`Cancel`], or could not be set up.
    #[error(transparent)]
    Search(SearchError),
}

impl ProbeError {
    /// The same error for another position of a batch whose oracle
    /// failed: a search error as it is, anything else as its message.
    fn clone_search(&self) -> ProbeError {
        match self {
            ProbeError::Search(e) => ProbeError::Search(e.clone()),
            e => search_failed(e.to_string()),
        }
    }

    /// True for a search stopped through its [`Cancel`]
    /// ([`SearchError::Stopped`]).
    pub fn is_stopped(&self) -> bool {
        matches!(self, ProbeError::Search(SearchError::Stopped))
    }
}

/// Why the live search gave no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// The search was stopped through the [`Cancel`] of the call (see
    /// [`Tablebase`]): a time limit, a client gone, an interrupt. The
    /// tablebase is as good as before.
    #[error("the search was stopped before it finished")]
    Stopped,
    /// The search could not be set up (a table size out of range, larger
    /// than the memory available, or refused by the allocator).
    #[error("cannot search: {0}")]
    Failed(String),
}

impl From<QueryError> for ProbeError {
    fn from(e: QueryError) -> ProbeError {
        match e {
            QueryError::Unreachable { position } => ProbeError::Unreachable { position },
            QueryError::NotInDatabase { position } => ProbeError::NotInBook { position },
            QueryError::Inconsistent { position, reason } => {
                ProbeError::Corrupt { position, reason }
            }
            QueryError::Stopped => ProbeError::Search(SearchError::Stopped),
        }
    }
}

/// A [`ProbeError::Search`] with `message`.
fn search_failed(message: impl Into<String>) -> ProbeError {
    ProbeError::Search(SearchError::Failed(message.into()))
}

/// A position's value and remoteness, without its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Eval {
    /// The value as `query` reports it: the game's score under perfect
    /// play (its meaning is the game's; see [`Tablebase::score_meaning`]).
    pub value: i32,
    /// Plies to the end of the game under perfect play.
    pub remoteness: u32,
}

/// One legal move of a probed position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveProbe {
    /// The move in the game's notation (`b2`, `4`, `SE`, `17`, `pass`).
    pub name: String,
    /// The position's value if this move is played, then perfect play.
    pub value: i32,
    /// The remoteness of the position the move leads to.
    pub remoteness: u32,
    /// True for a move that keeps the position's value.
    pub best: bool,
}

/// A probed position: what `query --json` prints for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The position in the game's notation, as `query` writes it.
    pub position: String,
    /// The side to move (`X`, `O`, `A`, `B`, `dandelions`, `wind`).
    pub to_move: String,
    /// The value under perfect play (see [`Eval::value`]).
    pub value: i32,
    /// Plies to the end of the game under perfect play.
    pub remoteness: u32,
    /// Every legal move, best first.
    pub moves: Vec<MoveProbe>,
}

impl Probe {
    /// The moves that keep the value.
    pub fn best_moves(&self) -> impl Iterator<Item = &MoveProbe> {
        self.moves.iter().filter(|m| m.best)
    }

    /// The value and remoteness alone.
    pub fn eval(&self) -> Eval {
        Eval {
            value: self.value,
            remoteness: self.remoteness,
        }
    }
}

/// The batch size from which [`Tablebase::probe_many`] and
/// [`Tablebase::eval_many`] build the lookup index first: below it, reading
/// one record per 2 KiB of the file costs more than it saves.
pub const BATCH_INDEX: usize = 64;

/// The longest position text taken, in bytes, as `query` takes lines: a
/// longer one is an error whose message holds only its beginning.
pub const MAX_POSITION: usize = boardsolve::cli::MAX_LINE;

/// Characters of a too-long position its error keeps.
const HEAD: usize = 40;

/// The error of a position longer than [`MAX_POSITION`] bytes, whose
/// beginning `head` stands for it.
pub fn too_long(head: &str) -> ProbeError {
    ProbeError::Position(too_long_position(head))
}

fn too_long_position(head: &str) -> PositionError {
    PositionError::malformed(
        head,
        format!("position is longer than {MAX_POSITION} bytes"),
    )
}

/// The line `query --json -` prints for an input line longer than
/// [`MAX_POSITION`] bytes, whose beginning is `head`.
pub fn too_long_json(head: &str) -> String {
    json::error(
        Some(head),
        &format!("input line is longer than {MAX_POSITION} bytes"),
    )
}

/// `position`, if it is no longer than [`MAX_POSITION`] bytes.
fn bounded(position: &str) -> Result<&str, PositionError> {
    if position.len() <= MAX_POSITION {
        Ok(position)
    } else {
        Err(too_long_position(
            &position.chars().take(HEAD).collect::<String>(),
        ))
    }
}

/// An open database, and the game it holds.
///
/// With the `search` feature and `Tablebase::with_search`, it keeps one
/// live search for its life: a fixed pool of searchers (one per thread of
/// the machine) with their transposition tables, whose memory is checked
/// when search is turned on and stays bounded whatever the callers do.
/// Calls from many threads share it; past the pool's size they wait for a
/// searcher. What a search learns stays in its table for the next calls.
///
/// Any call made inside [`Cancel::run`] stops its search soon after the
/// flag is set (from another thread, or by the flag's deadline), waiting
/// for a searcher included, and fails with [`SearchError::Stopped`]:
///
/// ```no_run
/// # #[cfg(not(feature = "search"))]
/// # fn main() {}
/// # #[cfg(feature = "search")]
/// # fn main() -> Result<(), boardsolve_probe::ProbeError> {
/// use boardsolve_probe::{Cancel, Tablebase};
/// let tb = Tablebase::open("c4.db")?.with_search(22)?;
/// let cancel = Cancel::new();
/// let stopper = cancel.clone(); // to another thread: `stopper.cancel()`
/// match cancel.run(|| tb.probe("44")) {
///     Err(e) if e.is_stopped() => println!("stopped"),
///     answer => println!("{:?}", answer?.value),
/// }
/// # drop(stopper);
/// # Ok(())
/// # }
/// ```
pub struct Tablebase {
    /// The file; `None` for a game answered by search alone.
    db: Option<Arc<Database>>,
    game: AnyGame,
    /// The embedded book the file is, if it is one.
    shipped: Option<ShippedBook>,
    /// `log2` of the live search's table entries and its number of
    /// searchers, when search is on.
    #[cfg(feature = "search")]
    search: Option<(u32, usize)>,
    /// The live search, made when search is turned on (and again after
    /// [`Tablebase::with_cache_limit`]); `None` inside for a game without
    /// a book, the message for one that could not be made.
    #[cfg(feature = "search")]
    live: OnceLock<Option<Result<Live, String>>>,
}

/// A live search that shares the tablebase's database.
#[cfg(feature = "search")]
type Live = Box<dyn Oracle + Send + Sync>;

impl std::fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebase")
            .field("game", &self.game())
            .field("variant", &self.variant())
            .field("records", &self.len())
            .finish()
    }
}

impl Tablebase {
    /// Opens and validates the database at `path`: a regular file whose
    /// header names a game and variant this build knows, with a size and a
    /// record count the game allows. The records are mapped, not read.
    pub fn open(path: impl AsRef<Path>) -> Result<Tablebase, ProbeError> {
        let path = path.as_ref();
        let (db, game) = AnyGame::open(path).map_err(|source| ProbeError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Tablebase::with(Some(db), game))
    }

    /// A tablebase on the bytes of a database file (read from anywhere, or
    /// fetched whole), checked as [`Tablebase::open`] checks a file; `name`
    /// stands for the file's path in errors.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Tablebase, ProbeError> {
        let (db, game) = AnyGame::open_bytes(name, bytes).map_err(|source| ProbeError::Open {
            path: name.into(),
            source,
        })?;
        Ok(Tablebase::with(Some(db), game))
    }

    /// A tablebase on a database file read in pieces its host supplies
    /// (see [`RangeFile`]); `name` stands for the file's path in errors.
    ///
    /// Every call, this one included, may fail for want of bytes: then
    /// [`Tablebase::wanted`] (or [`RangeFile::take_wanted`] here, before a
    /// tablebase exists) names the ranges to supply before calling again.
    pub fn from_ranges(
        name: &str,
        file: std::sync::Arc<RangeFile>,
    ) -> Result<Tablebase, ProbeError> {
        let (db, game) = AnyGame::open_ranges(name, file).map_err(|source| ProbeError::Open {
            path: name.into(),
            source,
        })?;
        Ok(Tablebase::with(Some(db), game))
    }

    fn with(db: Option<Database>, game: AnyGame) -> Tablebase {
        Tablebase {
            db: db.map(Arc::new),
            game,
            shipped: None,
            #[cfg(feature = "search")]
            search: None,
            #[cfg(feature = "search")]
            live: OnceLock::new(),
        }
    }

    /// A tablebase without a file, for a game whose positions can all be
    /// searched (`game.searched_with(None)`): every answer comes from the
    /// search that [`Tablebase::with_search`] (or
    /// [`Tablebase::search_on_demand`]) turns on. Fails for a game whose
    /// positions cannot be searched.
    #[cfg(feature = "search")]
    pub fn without_file(game: AnyGame) -> Result<Tablebase, ProbeError> {
        if !game.searched_with(None) {
            return Err(search_failed(format!(
                "{} is answered from its database only: open the file",
                game.label()
            )));
        }
        Ok(Tablebase::with(None, game))
    }

    /// A tablebase for `game` when no file is given: the opening book that
    /// comes with the tools for its variant, if the build embeds one
    /// (feature `shipped-books`; see [`AnyGame::shipped_book`]), with the
    /// search past it; otherwise search alone, as
    /// [`Tablebase::without_file`]. Fails as that does for a game whose
    /// positions cannot be searched, and when an embedded book does not
    /// open (a build whose book no longer matches its reader).
    ///
    /// [`AnyGame::shipped_book`]: boardsolve::registry::RegisteredGame::shipped_book
    #[cfg(feature = "search")]
    pub fn for_game(game: AnyGame) -> Result<Tablebase, ProbeError> {
        let Some(book) = game.shipped_book() else {
            return Tablebase::without_file(game);
        };
        let mut tb = Tablebase::from_bytes(book.name, book.bytes)?;
        if tb.game.label() != game.label() {
            return Err(search_failed(format!(
                "{}: holds {}, not {}",
                book.name,
                tb.game.label(),
                game.label()
            )));
        }
        tb.shipped = Some(book);
        Ok(tb)
    }

    /// The embedded book this tablebase reads, when it is one
    /// (`Tablebase::for_game`, feature `search`).
    pub fn shipped(&self) -> Option<ShippedBook> {
        self.shipped
    }

    /// What `query --db FILE info --json` prints about the file, with
    /// `name` for its path.
    pub fn info_json(&self, name: &str) -> Result<String, ProbeError> {
        let db = self.db.as_deref().ok_or_else(|| self.no_database())?;
        Ok(json::info(name, db, self.game.present())?)
    }

    /// The error of a call that needs a file, on a tablebase without one.
    fn no_database(&self) -> ProbeError {
        ProbeError::NoDatabase {
            game: self.game.label(),
        }
    }

    /// The game served from this file, as `query serve`'s `GET /api/info`
    /// lists it: game, variant, records, whether positions past a book
    /// are searched, the game in one line and its players' pieces.
    pub fn served_json(&self) -> String {
        #[cfg(feature = "search")]
        let searched = self.search.is_some() && self.is_searched();
        #[cfg(not(feature = "search"))]
        let searched = false;
        json::served(
            self.game.present(),
            self.game.info().about,
            self.db.as_deref(),
            searched,
        )
    }

    /// The pieces a tablebase read by ranges reads from; `None` for a file
    /// mapped or in memory.
    pub fn ranges(&self) -> Option<&std::sync::Arc<RangeFile>> {
        self.db.as_ref()?.ranges()
    }

    /// The byte ranges (start, end) the calls since the last one wanted
    /// and did not find, for a tablebase read by ranges: when not empty,
    /// the answers those calls gave are to be thrown away, the ranges
    /// supplied, and the calls made again.
    pub fn wanted(&self) -> Vec<(u64, u64)> {
        self.ranges().map(|r| r.take_wanted()).unwrap_or_default()
    }

    /// Answers positions past the opening book by search, with
    /// transposition tables of `2^table_bits` entries (8 bytes each; 22 is
    /// 32 MiB), kept from call to call, and one searcher per thread of the
    /// machine. Whether the searchers share one table or have one each is
    /// the game's (`query --help` says it under `--table-bits`; see
    /// [`Tablebase::search_memory`]). Fails, before anything is allocated,
    /// on a size out of the game's range or larger than the memory the
    /// system has available; and when the allocator refuses the tables.
    /// Games without a book are unchanged.
    #[cfg(feature = "search")]
    pub fn with_search(self, table_bits: u32) -> Result<Tablebase, ProbeError> {
        let searchers = boardsolve::solve::live::default_searchers();
        self.with_searchers(table_bits, searchers)
    }

    /// [`Tablebase::with_search`] with `searchers` searchers (at least
    /// one): the most calls that search at once.
    #[cfg(feature = "search")]
    pub fn with_searchers(
        self,
        table_bits: u32,
        searchers: usize,
    ) -> Result<Tablebase, ProbeError> {
        if let Some(Err(e)) = self.check_search(table_bits, searchers) {
            return Err(search_failed(format!("table bits {table_bits}: {e}")));
        }
        let tb = self.search_on_demand(table_bits, searchers);
        match tb.live() {
            Some(Err(message)) => Err(search_failed(message.clone())),
            _ => Ok(tb),
        }
    }

    /// Turns search on as [`Tablebase::with_searchers`] does, but makes the
    /// searchers and their tables when the first answer needs them, and
    /// checks nothing now (see [`Tablebase::check_search`]): for a caller
    /// that may never search, whose errors then come with that answer.
    #[cfg(feature = "search")]
    pub fn search_on_demand(mut self, table_bits: u32, searchers: usize) -> Tablebase {
        self.search = Some((table_bits, searchers.max(1)));
        self.live = OnceLock::new();
        self
    }

    /// Checks, before anything is allocated, that the tables of a live
    /// search of this game with `searchers` searchers and `2^table_bits`
    /// entries can be made: the size in the game's range, and their memory
    /// within what the system has available. Their memory in bytes; `None`
    /// for a game that is not searched.
    #[cfg(feature = "search")]
    pub fn check_search(
        &self,
        table_bits: u32,
        searchers: usize,
    ) -> Option<Result<u64, boardsolve::solve::memory::TableError>> {
        Some(self.game.book_game()?.check_tables(searchers, table_bits))
    }

    /// The `table_bits` a live search of this game takes when none is
    /// given: sized by the board, at most half the memory available;
    /// `None` for a game that is not searched.
    #[cfg(feature = "search")]
    pub fn default_search_bits(&self, searchers: usize) -> Option<u32> {
        Some(self.game.book_game()?.default_table_bits(searchers))
    }

    /// True when answers come from search: a file that is an opening book,
    /// or no file (feature `search`; turned on or not).
    #[cfg(feature = "search")]
    pub fn is_searched(&self) -> bool {
        self.game.searched_with(self.db.as_deref())
    }

    /// The live search, made on first use.
    #[cfg(feature = "search")]
    fn live(&self) -> Option<&Result<Live, String>> {
        let (bits, searchers) = self.search?;
        self.live
            .get_or_init(|| {
                self.game
                    .live_shared(self.db.clone(), bits, searchers)
                    .map(|made| made.map_err(|e| e.to_string()))
            })
            .as_ref()
    }

    /// The live search alone, without the file's lookups in front of it
    /// (it reads the book itself): for a caller that answers from the file
    /// at once and puts searches elsewhere, as a server does. `None` when
    /// search is off or the game needs none; the error when it could not
    /// be made.
    #[cfg(feature = "search")]
    pub fn search(&self) -> Option<Result<&(dyn Oracle + Send + Sync), ProbeError>> {
        Some(match self.live()? {
            Ok(live) => Ok(&**live),
            Err(message) => Err(search_failed(message.clone())),
        })
    }

    /// The memory of the live search's tables, in bytes (mapped as the
    /// searches fill them), when search is on and the game has a book.
    #[cfg(feature = "search")]
    pub fn search_memory(&self) -> Option<u64> {
        let (bits, searchers) = self.search.filter(|_| self.game.has_book())?;
        Some(self.game.book_game()?.table_bytes(searchers, bits))
    }

    /// The nodes the live search has visited since search was turned on,
    /// all calls together (`None` without search). A search that finds
    /// its answer in what earlier calls left in the table visits few.
    #[cfg(feature = "search")]
    pub fn search_nodes(&self) -> Option<u64> {
        match self.live()? {
            Ok(live) => live
                .node_counter()
                .map(|n| n.load(std::sync::atomic::Ordering::Relaxed)),
            Err(_) => None,
        }
    }

    /// The game's registry name (one of [`boardsolve::registry::GAMES`]:
    /// `british-square`, `connect-four`, ...).
    pub fn game(&self) -> &str {
        self.game.game().descriptor().name
    }

    /// The variant, in canonical form (`5x5`, `3x3`, `7x6`, ...).
    pub fn variant(&self) -> &str {
        &self.game.game().descriptor().variant
    }

    /// What a value means in this game, in words.
    pub fn score_meaning(&self) -> &'static str {
        self.game.present().score_meaning()
    }

    /// True when the file holds every reachable position (else it is an
    /// opening book, or there is no file).
    pub fn is_complete(&self) -> bool {
        self.db.as_ref().is_some_and(|db| db.header().is_complete())
    }

    /// The number of records in the file (0 without one).
    pub fn len(&self) -> u64 {
        self.db.as_ref().map_or(0, |db| db.len())
    }

    /// True when the file holds no record, or there is no file.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Builds the file's small in-memory lookup index (every 32nd to 256th
    /// record, as the processor's last-level cache allows; read once),
    /// which makes each later lookup several times faster.
    /// [`Tablebase::probe_many`] and [`Tablebase::eval_many`] build it for
    /// a batch of [`BATCH_INDEX`] positions or more; call it before many
    /// single probes. Idempotent and thread-safe.
    pub fn build_index(&self) {
        if let Some(db) = &self.db {
            db.build_index();
        }
    }

    /// True for a file in the packed layout (read block by block, each
    /// block checked and decoded when a lookup needs it).
    pub fn is_packed(&self) -> bool {
        self.db.as_ref().is_some_and(|db| db.is_packed())
    }

    /// Bounds the memory a packed file's decoded blocks take (64 MiB by
    /// default; 0 decodes every block a lookup needs afresh). Files of the
    /// other layouts are mapped and keep no cache.
    pub fn with_cache_limit(mut self, bytes: usize) -> Tablebase {
        // The live search shares the database: it is made again, with the
        // new limit, on the next search.
        #[cfg(feature = "search")]
        {
            self.live = OnceLock::new();
        }
        if let Some(db) = self.db.as_mut().and_then(Arc::get_mut) {
            db.set_cache_limit(bytes);
        }
        self
    }

    /// The oracle that answers this tablebase's positions: the file
    /// itself, or (feature `search`) the file and search past it, or the
    /// search alone. The error when the search could not be made, or there
    /// is neither a file nor a search.
    pub fn oracle(&self) -> Result<&dyn Oracle, ProbeError> {
        #[cfg(feature = "search")]
        match self.live() {
            Some(Ok(live)) => return Ok(&**live),
            Some(Err(message)) => return Err(search_failed(message.clone())),
            None => {}
        }
        match &self.db {
            Some(db) => Ok(&**db),
            None => Err(self.no_database()),
        }
    }

    /// Runs `f` with [`Tablebase::oracle`].
    fn with_oracle<T>(
        &self,
        f: impl FnOnce(&dyn Oracle) -> Result<T, ProbeError>,
    ) -> Result<T, ProbeError> {
        f(self.oracle()?)
    }

    fn analysis(&self, oracle: &dyn Oracle, position: &str) -> Result<Analysis, ProbeError> {
        let game = self.game.present();
        let p = game.parse(bounded(position)?)?;
        Ok(analyze_position(game, oracle, &p)?)
    }

    fn to_probe(&self, a: &Analysis) -> Probe {
        let game = self.game.present();
        Probe {
            position: game.format_position(a.state),
            to_move: game.player_name(a.to_move).to_owned(),
            value: a.score,
            remoteness: a.value.remoteness,
            moves: a
                .moves
                .iter()
                .map(|m| MoveProbe {
                    name: game.format_move(m.mv),
                    value: m.score,
                    remoteness: m.child_value.remoteness,
                    best: m.best,
                })
                .collect(),
        }
    }

    /// The value, remoteness and every move of one position, in the game's
    /// notation (what `query --help` describes for the game).
    pub fn probe(&self, position: &str) -> Result<Probe, ProbeError> {
        self.with_oracle(|o| Ok(self.to_probe(&self.analysis(o, position)?)))
    }

    /// One position answered as a line of `query --json` prints it (without
    /// the newline): the answer's object, or `{"input":...,"error":...}`.
    /// Programs in other languages read this shape.
    pub fn probe_json(&self, position: &str) -> String {
        if position.len() > MAX_POSITION {
            return too_long_json(&position.chars().take(HEAD).collect::<String>());
        }
        self.probe_json_checked(position)
            .unwrap_or_else(|e| json::error(Some(position), &e.to_string()))
    }

    /// The line of [`Tablebase::probe_json`] for an answered position, and
    /// the typed error otherwise (for a caller that answers each kind of
    /// error its own way, as an HTTP server does with status codes).
    pub fn probe_json_checked(&self, position: &str) -> Result<String, ProbeError> {
        let game = self.game.present();
        self.with_oracle(|o| self.analysis(o, position))
            .map(|a| json::answer(game, position, &a, None))
    }

    /// [`Tablebase::probe_json`] for each position, in order. Their
    /// analyses are made together, so that their lookups overlap: for
    /// batches, in groups of ten or twenty.
    pub fn probe_json_many<S: AsRef<str>>(&self, positions: &[S]) -> Vec<String> {
        let game = self.game.present();
        let parsed: Vec<Result<Position, ProbeError>> = positions
            .iter()
            .map(|p| Ok(game.parse(bounded(p.as_ref())?)?))
            .collect();
        let valid: Vec<Position> = parsed.iter().flatten().copied().collect();
        let mut analyses = Vec::with_capacity(valid.len());
        let searched = self.with_oracle(|o| {
            analyze_positions(game, o, &valid, &mut analyses);
            Ok(())
        });
        let mut analyses = analyses.into_iter();
        positions
            .iter()
            .zip(parsed)
            .map(|(input, position)| {
                let input = input.as_ref();
                if input.len() > MAX_POSITION {
                    return too_long_json(&input.chars().take(HEAD).collect::<String>());
                }
                // As `probe_json`: an oracle that failed fails every
                // position, before it is read.
                let answer = searched.as_ref().map_err(ProbeError::clone_search);
                let answer = answer.and(position).and_then(|_| {
                    // One analysis per position parsed, in order.
                    let Some(analysis) = analyses.next() else {
                        unreachable!("analyze_positions answers every position")
                    };
                    let a = analysis?;
                    Ok(json::answer(game, input, &a, None))
                });
                answer.unwrap_or_else(|e| json::error(Some(input), &e.to_string()))
            })
            .collect()
    }

    /// True when the game's database is an opening book, so that the
    /// positions past it need search.
    pub fn has_book(&self) -> bool {
        self.game.has_book()
    }

    /// The open database: the file as it was mapped when opened (whatever
    /// is at its path now), for work on the whole of it (the engine's
    /// `verify`, say); `None` for a tablebase without a file.
    pub fn database(&self) -> Option<&Database> {
        self.db.as_deref()
    }

    /// The game the database holds.
    pub fn any_game(&self) -> &AnyGame {
        &self.game
    }

    /// [`Tablebase::probe`] for each position, in order; one bad position
    /// does not stop the others.
    pub fn probe_many<S: AsRef<str>>(
        &self,
        positions: impl IntoIterator<Item = S>,
    ) -> Vec<Result<Probe, ProbeError>> {
        let positions: Vec<S> = positions.into_iter().collect();
        if positions.len() >= BATCH_INDEX {
            self.build_index();
        }
        match self.with_oracle(|o| {
            Ok(positions
                .iter()
                .map(|p| Ok(self.to_probe(&self.analysis(o, p.as_ref())?)))
                .collect())
        }) {
            Ok(all) => all,
            // The oracle itself failed: every position gets the error.
            Err(e) => positions.iter().map(|_| Err(e.clone_search())).collect(),
        }
    }

    /// The value and remoteness of one position, without its moves: one
    /// lookup (a position on the frontier of an opening book has a value,
    /// though [`Tablebase::probe`] cannot list its moves).
    pub fn eval(&self, position: &str) -> Result<Eval, ProbeError> {
        self.eval_many([position])
            .pop()
            .unwrap_or_else(|| Err(search_failed("no answer")))
    }

    /// [`Tablebase::eval`] for each position, in order, with the lookups
    /// made as one batch.
    pub fn eval_many<S: AsRef<str>>(
        &self,
        positions: impl IntoIterator<Item = S>,
    ) -> Vec<Result<Eval, ProbeError>> {
        let game = self.game.present();
        let parsed: Vec<Result<u64, PositionError>> = positions
            .into_iter()
            .map(|p| game.parse(bounded(p.as_ref())?).map(|p| p.state))
            .collect();
        let states: Vec<u64> = parsed
            .iter()
            .filter_map(|p| p.as_ref().ok().copied())
            .collect();
        if states.len() >= BATCH_INDEX {
            self.build_index();
        }
        let values = self.with_oracle(|o| Ok(evaluate(game, o, &states)));
        let mut values = match values {
            Ok(v) => v.into_iter(),
            Err(e) => {
                return parsed.iter().map(|_| Err(e.clone_search())).collect();
            }
        };
        parsed
            .into_iter()
            .map(|p| {
                let state = p?;
                let v = values.next().ok_or_else(|| search_failed("no answer"))??;
                Ok(Eval {
                    value: game.score(state, v.net),
                    remoteness: v.remoteness,
                })
            })
            .collect()
    }

    /// The SVG picture of a position with every legal move coloured by its
    /// value (each move's shape carries `data-move` and `data-value`), as
    /// `query --svg` draws it; `None` for a game without pictures.
    pub fn svg(&self, position: &str) -> Result<Option<String>, ProbeError> {
        let game = self.game.present();
        self.with_oracle(|o| Ok(picture::svg(game, &self.analysis(o, position)?)))
    }

    /// The position after `mv` (in the game's notation) is played from
    /// `position`, as text that reads back as that position, side to move
    /// and score so far included: the way a program walks the game.
    pub fn play(&self, position: &str, mv: &str) -> Result<String, ProbeError> {
        let game = self.game.present();
        let p = game.parse(bounded(position)?)?;
        let m = game.parse_move(p.state, bounded(mv)?)?;
        let mut edges = Vec::new();
        game.moves(p.state, &mut edges);
        let edge = edges.iter().find(|e| e.mv == m).ok_or_else(|| {
            ProbeError::Position(PositionError::Illegal {
                input: mv.to_owned(),
                reason: format!("not a legal move in {}", game.format_full(&p)),
            })
        })?;
        Ok(game.format_full(&p.play(edge)))
    }

    /// The line of perfect play from a position to the end of the game:
    /// the moves, in the game's notation (the first of the best moves at
    /// each step).
    pub fn line(&self, position: &str) -> Result<Vec<String>, ProbeError> {
        let game = self.game.present();
        let p = game.parse(bounded(position)?)?;
        self.with_oracle(|o| {
            let line = principal_variation(game, o, p.state)?;
            Ok(line.iter().map(|(mv, _)| game.format_move(*mv)).collect())
        })
    }
}
