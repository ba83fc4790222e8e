//! Opening books: every canonical state of at most `depth` moves with its
//! exact value, as a partial database, for games whose whole tree is too
//! large to solve but whose positions can be searched (Connect Four,
//! Dandelions). The game supplies the search ([`BookGame`]); the rest is
//! the same for every game.
//!
//! 1. Enumerate the layers forward: layer `k + 1` is the canonical children
//!    of layer `k`'s states, sorted and deduplicated, in parallel. A state
//!    without moves ends the game and has no children.
//! 2. Search only the deepest layer, state by state, in depth-first order
//!    (siblings one after the other), on several threads whose searchers
//!    may share their tables (neighbouring states share most of their
//!    subtrees). Results are appended to a
//!    checkpoint file every few seconds and fsynced, so an interrupted run
//!    resumes where it stopped.
//!    On the ranks of a job every rank holds its share of every layer and
//!    searches its share of the deepest (the `spread` and `farm` modules).
//! 3. Derive every shallower state's value by minimax over its children,
//!    which are all in the next layer.
//!
//! The book is written like any sorted database, without the complete flag
//! (unless the game ends within the depth): a state deeper than the book is
//! then reported as not in the database rather than unreachable.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::Arc;

use crate::core::layout::LayoutOverflow;
use crate::core::{BookSource, Cancel, Corrupted, Game, Value};
use crate::solve::memory::TableError;

#[cfg_attr(not(feature = "engine"), path = "no_builder.rs")]
mod builder;
mod dynamic;
pub(crate) use builder::threads;
#[cfg(feature = "engine")]
pub use builder::{build_book, farm, layer_order, RankBook};
pub use dynamic::DynBookGame;

/// The `log2` of the transposition table entries a game's search takes by
/// default unless its board asks for more ([`BookGame::wanted_table_bits`]):
/// 2^26 entries, 512 MiB of 8-byte entries, mapped only as the search fills
/// them (an early position fills them; a late one touches a few pages).
pub const DEFAULT_TABLE_BITS: u32 = 26;

/// A game whose book's deepest layer is searched.
pub trait BookGame: Game + Sync {
    /// What searches one state: a solver with its tables.
    type Searcher: Send;

    /// The table sizes [`BookGame::searchers`] accepts, as `log2` of
    /// their entries.
    fn table_bits_range(&self) -> std::ops::RangeInclusive<u32>;

    /// The deepest book whose positions all have keys a record holds, when
    /// some positions have none (their keys are wider than the
    /// descriptor's `key_bits`); `None` when every depth has.
    fn max_book_depth(&self) -> Option<u32> {
        None
    }

    /// Refuses a book of `depth` moves deeper than
    /// [`BookGame::max_book_depth`].
    fn check_book_depth(&self, depth: u32) -> Result<(), BookError> {
        match self.max_book_depth() {
            Some(max) if depth > max => {
                let desc = self.descriptor();
                Err(BookError::TooDeep {
                    game: format!("{} {}", desc.name, desc.variant),
                    depth,
                    max,
                })
            }
            _ => Ok(()),
        }
    }

    /// `n >= 1` searchers for `n` threads, with transposition tables of
    /// `2^table_bits` entries (shared among them where the game can).
    /// Fails on a size out of [`BookGame::table_bits_range`], and when the
    /// allocator refuses the memory ([`BookError::Table`]); the memory the
    /// system has available is the caller's to check first
    /// ([`BookGame::table_bytes`], [`crate::solve::memory::check_fits`]).
    fn searchers(&self, n: usize, table_bits: u32) -> Result<Vec<Self::Searcher>, BookError>;

    /// The `log2` of the table entries a search of this board takes when
    /// none is asked for, with `n` searchers: the size its searches were
    /// measured to need. [`crate::solve::live::default_table_bits`] caps it
    /// by the memory available.
    fn wanted_table_bits(&self, n: usize) -> u32 {
        let _ = n;
        DEFAULT_TABLE_BITS
    }

    /// The memory, in bytes, of the tables of what
    /// [`BookGame::searchers`]`(n, table_bits)` makes: all of it once the
    /// searches have filled them.
    fn table_bytes(&self, n: usize, table_bits: u32) -> u64;

    /// Checks, before anything is allocated, that `n` searchers with
    /// tables of `2^table_bits` entries can be made: the size in
    /// [`BookGame::table_bits_range`], and [`BookGame::table_bytes`] within
    /// the memory the system has available. Returns those bytes.
    fn check_tables(&self, n: usize, table_bits: u32) -> Result<u64, TableError> {
        let range = self.table_bits_range();
        if !range.contains(&table_bits) {
            let d = self.descriptor();
            return Err(TableError::OutOfRange {
                bits: table_bits,
                game: format!("{} {}", d.name, d.variant),
                min: *range.start(),
                max: *range.end(),
            });
        }
        let bytes = self.table_bytes(n.max(1), table_bits);
        crate::solve::memory::check_fits(table_bits, bytes)?;
        Ok(bytes)
    }

    /// Maps every page of the searchers' tables now (they are allocated
    /// zeroed and mapped as the searches write them), so that a timed
    /// sample of searches measures the searches and not the first touch of
    /// each page, which a long build pays only once. The default does
    /// nothing.
    fn prefault(&self, searchers: &mut [Self::Searcher]) {
        let _ = searchers;
    }

    /// Lets `cancel` stop `searcher`'s searches (or nothing): a search
    /// looks at it every few thousand nodes and, once it is set, unwinds at
    /// once and returns a meaningless value (the caller, which sees
    /// `cancel` set, throws it away). What the searcher keeps (its table)
    /// holds only what was proved before the stop. Games whose search
    /// cannot stop ignore it.
    fn set_cancel(&self, searcher: &mut Self::Searcher, cancel: Option<Cancel>) {
        let _ = (searcher, cancel);
    }

    /// The exact value of `state` (canonical, with legal moves) for its side
    /// to move.
    fn search(&self, searcher: &mut Self::Searcher, state: u64) -> Value;

    /// Like [`BookGame::search`], with the value of a similar state (the
    /// one searched just before, a sibling in the book's order) as a hint
    /// where the search may start. The answer is exact whatever the hint.
    fn search_near(&self, searcher: &mut Self::Searcher, state: u64, hint: Value) -> Value {
        let _ = hint;
        self.search(searcher, state)
    }

    /// True when `state`'s value (canonical, with legal moves) is exactly
    /// `value`. The default compares [`BookGame::search`]; a game whose
    /// search can test a value with less work than it takes to find it
    /// overrides it (a line of perfect play tells the best move from the
    /// others this way).
    fn search_is(&self, searcher: &mut Self::Searcher, state: u64, value: Value) -> bool {
        self.search(searcher, state) == value
    }

    /// The sign of `state`'s value for its side to move (1 a win, 0 a
    /// draw, -1 a loss): a search that only tells the outcome cuts far more
    /// than an exact one. The default takes the sign of
    /// [`BookGame::search`]. Only games whose moves score nothing before the
    /// last one may override it, so that the sign of a position follows
    /// from the signs of its children.
    fn search_outcome(&self, searcher: &mut Self::Searcher, state: u64) -> i32 {
        self.search(searcher, state).net.signum()
    }

    /// Lets `searcher` add the nodes of its searches to `counter` as it
    /// goes (for a progress display). Games whose search counts no nodes
    /// ignore it.
    fn count_nodes(&self, searcher: &mut Self::Searcher, counter: Arc<AtomicU64>) {
        let _ = (searcher, counter);
    }

    /// True when the searchers [`BookGame::searchers`] makes share one
    /// table, so that states searched at once on several of them use one
    /// another's work: a live search then searches an analysis's moves on
    /// every idle searcher at once, and the position after them. The
    /// default, false, is for searchers with a table each: there an
    /// analysis searches on one searcher, the position first, whose
    /// search leaves bounds on its moves in the table for theirs (searched
    /// on several, the moves would be searched again by the position's
    /// search on one table; k-in-a-row's 5x5 start took half as long
    /// again).
    fn shares_tables(&self) -> bool {
        false
    }

    /// Makes `searchers` one pool, whose searches under way `busy` counts
    /// (the caller keeps it up to date: one more while a searcher
    /// searches): a game whose search can run on several threads lets each
    /// search use the threads the others leave idle, up to one per
    /// searcher, so that a single hard position keeps every core busy. The
    /// default does nothing: each search runs on its caller's thread.
    fn pool(&self, searchers: &mut [Self::Searcher], busy: Arc<AtomicUsize>) {
        let _ = (searchers, busy);
    }

    /// Lets `searchers` take the values of `book` (a database of this game
    /// and variant, with exact values) at the states it holds, inside their
    /// searches too. Games whose search cannot use a book ignore it.
    ///
    /// Fails when the book is found damaged.
    fn attach_book(
        &self,
        searchers: &mut [Self::Searcher],
        book: &dyn BookSource,
    ) -> Result<(), Corrupted> {
        let _ = (searchers, book);
        Ok(())
    }
}

/// How to build a book.
#[derive(Clone, Debug)]
pub struct BookOptions {
    /// The deepest layer: states of at most this many moves (capped at the
    /// game's last layer).
    pub depth: u32,
    /// Where to keep the searched part of the deepest layer while the book
    /// is built (see [`checkpoint_path`]); `None` keeps nothing.
    pub checkpoint: Option<PathBuf>,
    /// Search threads (at least one).
    pub searchers: usize,
    /// `log2` of the entries of the searchers' transposition table.
    pub table_bits: u32,
}

impl BookOptions {
    /// A book of `depth` moves: no checkpoint, one search thread per rayon
    /// thread, a table of 2^26 entries (512 MiB of 8-byte entries, mapped
    /// as it fills).
    pub fn new(depth: u32) -> BookOptions {
        BookOptions {
            depth,
            checkpoint: None,
            searchers: threads(),
            table_bits: 26,
        }
    }
}

/// Why a book could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The checkpoint file could not be read or written.
    #[error("checkpoint {}: {error}", path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// The checkpoint's path is not a regular file.
    #[error("checkpoint {}: {kind}: refused (remove it, or write the book elsewhere)", path.display())]
    NotAFile {
        /// The checkpoint file.
        path: PathBuf,
        /// What is there.
        kind: &'static str,
    },
    /// The depth asked for has positions whose keys no record holds.
    #[error(
        "{game}: a book of {depth} moves is refused: past {max} moves its positions have no \
         key a database record holds (--depth {max} at most; deeper positions are searched)"
    )]
    TooDeep {
        /// The game and variant.
        game: String,
        /// The depth asked for.
        depth: u32,
        /// The deepest book.
        max: u32,
    },
    /// The searchers could not be set up.
    #[error("cannot set up the search: {0}")]
    Searcher(String),
    /// The searchers' tables were refused: a size out of range, larger
    /// than the memory available, or refused by the allocator.
    #[error("table bits {bits}: {error}", bits = .0.bits(), error = .0)]
    Table(#[from] TableError),
    /// A value does not fit the record layout (a bug).
    #[error(transparent)]
    Overflow(#[from] LayoutOverflow),
    /// A child of a book state is missing from the next layer (a bug).
    #[error("child {child:#x} of book state {state:#x} is missing from the next layer")]
    MissingChild {
        /// The parent.
        state: u64,
        /// The child's canonical key.
        child: u64,
    },
    /// A search thread panicked.
    #[error("a search thread failed")]
    SearchThread,
    /// The book the searches read is damaged.
    #[error("database corrupted: {0} (run `query verify`)")]
    Book(#[from] Corrupted),
    /// The ranks searching with this one could not be reached, or broke the
    /// farm's protocol.
    #[error("the searching ranks: {0}")]
    Farm(String),
    /// An exchange between the ranks of a job failed, or what it brought
    /// does not fit.
    #[cfg(feature = "engine")]
    #[error(transparent)]
    Ranks(#[from] crate::solve::SolveError),
}

/// The checkpoint file of a book of `depth` written to `output`:
/// `OUTPUT.partial-depthN` beside it.
pub fn checkpoint_path(output: &Path, depth: u32) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(format!(".partial-depth{depth}"));
    PathBuf::from(name)
}

/// Checks, before any work, that a checkpoint may be kept at `path`:
/// nothing is there, or a regular file (never a symbolic link, a device or
/// a named pipe).
pub fn check_checkpoint_path(path: &Path) -> Result<(), BookError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(BookError::Checkpoint {
            path: path.to_path_buf(),
            error,
        }),
        Ok(m) if m.is_file() => Ok(()),
        Ok(m) => Err(BookError::NotAFile {
            path: path.to_path_buf(),
            kind: if m.file_type().is_symlink() {
                "a symbolic link"
            } else {
                "not a regular file"
            },
        }),
    }
}
