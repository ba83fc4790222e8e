//! The live search past an opening book (feature `search`): turning it on,
//! its memory, and the games answered without a file.

pub use boardsolve::solve::book::DEFAULT_TABLE_BITS;
pub use boardsolve::solve::live::default_searchers;
pub use boardsolve::solve::memory::TableError;

use crate::error::ProbeError;
use crate::game::Game;

/// The most searchers a tablebase takes (searches at once, each with its
/// own table and thread): the tools refuse more, since past the cores more
/// only cost memory.
pub const MAX_SEARCHERS: usize = 256;

/// Checks, before anything is allocated, that the search tables of every
/// game of `games` (each with `searchers` searchers and `2^table_bits`
/// entries) fit in the memory available together, as a server holding
/// them all needs: each [`Game::check_search`], then their sum. Their
/// memory in bytes (0 when no game is searched).
pub fn check_searches(
    games: &[Game],
    table_bits: u32,
    searchers: usize,
) -> Result<u64, TableError> {
    let mut total = 0u64;
    for game in games {
        if let Some(bytes) = game.check_search(table_bits, searchers) {
            total = total.saturating_add(bytes?);
        }
    }
    match boardsolve::solve::memory::available() {
        Some(available) if total > available => Err(TableError::TooLarge {
            bits: table_bits,
            bytes: total,
            available,
        }),
        _ => Ok(total),
    }
}
use crate::live::Live;
use crate::tablebase::Tablebase;

impl Game {
    /// True when every position of this variant can be searched, so that
    /// it is answered without a file (`Tablebase::without_file`).
    pub fn is_searched(self) -> bool {
        self.any.searched_with(None)
    }

    /// Checks, before anything is allocated, that the tables of a live
    /// search of this game with `searchers` searchers and `2^table_bits`
    /// entries can be made: the size in the game's range, and their memory
    /// within what the system has available. Their memory in bytes; `None`
    /// for a game that is not searched.
    pub fn check_search(
        self,
        table_bits: u32,
        searchers: usize,
    ) -> Option<Result<u64, TableError>> {
        Some(self.any.book_game()?.check_tables(searchers, table_bits))
    }

    /// The `table_bits` a live search of this game takes when none is
    /// given: sized by the board, at most half the memory available;
    /// `None` for a game that is not searched.
    pub fn default_search_bits(self, searchers: usize) -> Option<u32> {
        Some(self.any.book_game()?.default_table_bits(searchers))
    }
}

/// The sizes of search tables some game takes (the union of their
/// ranges), for checking `--table-bits` before a game is known.
pub fn table_bits_bounds() -> std::ops::RangeInclusive<u32> {
    boardsolve::registry::table_bits_bounds()
}

/// What `--table-bits` does for each game answered by search, for help
/// texts.
pub fn table_bits_help() -> String {
    boardsolve::registry::table_bits_help()
}

impl Tablebase {
    /// A tablebase without a file, for a game whose positions can all be
    /// searched ([`Game::is_searched`]); answers come once search is on.
    pub fn without_file(game: Game) -> Result<Tablebase, ProbeError> {
        if !game.is_searched() {
            return Err(ProbeError::SearchFailed(format!(
                "{} is answered from its database only: open the file",
                game.label()
            )));
        }
        Ok(Tablebase::with(None, game))
    }

    /// A tablebase for `game` when no file is given: the opening book that
    /// comes with the tools for its variant, if the build embeds one
    /// (feature `shipped-books`), with the search past it; otherwise search
    /// alone, as [`Tablebase::without_file`]. Fails as that does for a game
    /// whose positions cannot be searched, and when an embedded book does
    /// not open (a build whose book no longer matches its reader).
    pub fn for_game(game: Game) -> Result<Tablebase, ProbeError> {
        let Some(book) = game.any.shipped_book() else {
            return Tablebase::without_file(game);
        };
        let mut tb = Tablebase::from_bytes(book.name, book.bytes)?;
        if tb.game != game {
            return Err(ProbeError::SearchFailed(format!(
                "{}: holds {}, not {}",
                book.name,
                tb.game.label(),
                game.label()
            )));
        }
        tb.shipped = Some(book);
        Ok(tb)
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
    ///
    /// A call made inside [`crate::Cancel::run`] stops its search soon
    /// after the flag is set, and fails with [`ProbeError::Stopped`]:
    ///
    /// ```no_run
    /// use boardsolve_probe::{Cancel, Tablebase};
    /// let tb = Tablebase::open("c4.db")?.with_search(22)?;
    /// let cancel = Cancel::new();
    /// let stopper = cancel.clone(); // to another thread: `stopper.cancel()`
    /// match cancel.run(|| tb.probe("44")) {
    ///     Err(e) if e.is_stopped() => println!("stopped"),
    ///     answer => println!("{:?}", answer?.value()),
    /// }
    /// # drop(stopper);
    /// # Ok::<(), boardsolve_probe::ProbeError>(())
    /// ```
    pub fn with_search(self, table_bits: u32) -> Result<Tablebase, ProbeError> {
        self.with_searchers(table_bits, default_searchers())
    }

    /// [`Tablebase::with_search`] with `searchers` searchers (at least
    /// one): the most calls that search at once.
    pub fn with_searchers(
        self,
        table_bits: u32,
        searchers: usize,
    ) -> Result<Tablebase, ProbeError> {
        if let Some(Err(e)) = self.game.check_search(table_bits, searchers) {
            return Err(ProbeError::SearchFailed(format!(
                "table bits {table_bits}: {e}"
            )));
        }
        let tb = self.search_on_demand(table_bits, searchers);
        match tb.ready() {
            Err(e @ ProbeError::SearchFailed(_)) => Err(e),
            _ => Ok(tb),
        }
    }

    /// Turns search on as [`Tablebase::with_searchers`] does, but makes the
    /// searchers and their tables when the first answer needs them, and
    /// checks nothing now (see [`Game::check_search`]): for a caller that
    /// may never search, whose errors then come with that answer.
    pub fn search_on_demand(mut self, table_bits: u32, searchers: usize) -> Tablebase {
        self.live = Live::sized(table_bits, searchers.max(1));
        self
    }

    /// True when answers come from search: a file that is an opening book,
    /// or no file (turned on or not).
    pub fn is_searched(&self) -> bool {
        self.game.any.searched_with(self.db.as_deref())
    }

    /// The memory of the live search's tables, in bytes (mapped as the
    /// searches fill them), when search is on and the game has a book.
    pub fn search_memory(&self) -> Option<u64> {
        let (bits, searchers) = self.live.size().filter(|_| self.game.has_book())?;
        Some(self.game.any.book_game()?.table_bytes(searchers, bits))
    }

    /// The nodes the live search has visited since search was turned on,
    /// all calls together (`None` without search, or before the first
    /// search). A search that finds its answer in what earlier calls left
    /// in the table visits few.
    pub fn search_nodes(&self) -> Option<u64> {
        self.live.nodes()
    }
}
