//! What a game declares about itself, in its folder's `mod.rs`, for the
//! registry to list it: its names and help texts ([`GameInfo`]), what its
//! database holds on each board ([`DatabaseKind`]), which solver builds it,
//! the search behind its opening book, and what a build costs (`Estimate`,
//! feature `engine`). The registry names each game once, in its list, and
//! asks everything else through [`RegisteredGame`], so that a game is
//! complete in its own folder.

use crate::core::{Heuristic, VariantError};
use crate::render::Presentation;
#[cfg(feature = "search")]
use crate::solve::book::DynBookGame;
#[cfg(feature = "engine")]
use crate::{
    core::{Progress, Solved},
    solve::dense::{DenseOutput, DenseRankSummary},
    solve::ranks::{Exchange, RankSolution},
    solve::SolveError,
};

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
    /// [`RegisteredGame::database_kind`]).
    pub kind: DatabaseKind,
}

/// How the searchers of a game answered by search share their
/// transposition tables. The help of `--table-bits` lists the games in
/// this order, the most shared first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TableSharing {
    /// One table, which every searcher reads and writes.
    One,
    /// One table of the size given, shared out among the searchers.
    SharedOut,
    /// A table of the size given for each searcher.
    PerSearcher,
}

impl TableSharing {
    /// The words the help of `--table-bits` says it in, after "takes N to
    /// M and".
    pub fn says(self) -> &'static str {
        match self {
            TableSharing::One => "shares one table among its searchers",
            TableSharing::SharedOut => "shares it out among them",
            TableSharing::PerSearcher => "gives each searcher a table of that size",
        }
    }
}

/// How the help of `--table-bits` tells of a game answered by search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchHelp {
    /// What is searched, as the sentence names it (`"Dots and Boxes past
    /// its tables"`).
    pub subject: &'static str,
    /// A variant answered by search, whose range of table sizes the help
    /// quotes (empty for the standard one).
    pub variant: &'static str,
    /// How its searchers share their tables.
    pub sharing: TableSharing,
}

/// The cost of a `generator` run, as measured or scaled from measurements:
/// runs on this project's machine (2 cores of an AMD EPYC,
/// `docs/performance.md`), scaled by the size of the work. An estimate is
/// meant to be within a factor of two; sizes nobody measured get none.
#[cfg(feature = "engine")]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Processor time, in seconds, all threads together.
    pub cpu_seconds: f64,
    /// How much of the work runs in parallel: wall time is about
    /// `cpu_seconds / min(threads, parallelism)`.
    pub parallelism: f64,
    /// Peak resident memory, in bytes.
    pub peak_bytes: u64,
}

#[cfg(feature = "engine")]
impl Estimate {
    /// A mebibyte, the unit peaks are measured in.
    pub const MB: u64 = 1 << 20;

    /// A small board solved completely: well under a second and about
    /// 10 MB, whatever the game.
    pub const SMALL: Estimate = Estimate {
        cpu_seconds: 0.05,
        parallelism: 1.0,
        peak_bytes: 10 * Estimate::MB,
    };

    /// The wall time on `threads` threads, in seconds.
    pub fn wall_seconds(&self, threads: usize) -> f64 {
        self.cpu_seconds / (threads.max(1) as f64).min(self.parallelism.max(1.0))
    }
}

/// A game as the registry lists it: everything the tools need to know of
/// it besides its rules ([`crate::core::Game`]) and its looks
/// ([`Presentation`]), declared in the game's folder. One small trait with
/// constants for what is fixed and methods for what depends on the
/// variant; the game names its own solvers, so that no `match` elsewhere
/// has to.
pub trait RegisteredGame: Presentation + Clone + 'static {
    /// Names, help texts, default file and the standard variant's database.
    const INFO: GameInfo;

    /// How the help of `--table-bits` tells of its searches; `None` for a
    /// game never answered by search.
    const SEARCH_HELP: Option<SearchHelp> = None;

    /// Other names of some of its variants, each `(name, variant)`:
    /// `--game NAME` without `--variant` is that variant (`tic-tac-toe`
    /// is k-in-a-row 3x3,k=3).
    const ALIASES: &'static [(&'static str, &'static str)] = &[];

    /// Its heuristics, for the statistics (`query stats`).
    const HEURISTICS: &'static [Heuristic<Self>] = &[];

    /// Sets up the game from a variant spec (empty for the standard one).
    fn from_variant(spec: &str) -> Result<Self, VariantError>;

    /// What this variant's database holds; by default what
    /// [`GameInfo::kind`] says of every variant.
    fn database_kind(&self) -> DatabaseKind {
        Self::INFO.kind
    }

    /// The game as its book's search sees it, on the boards whose
    /// positions can be searched; `None` (the default) on the others.
    #[cfg(feature = "search")]
    fn book_game(&self) -> Option<&dyn DynBookGame> {
        None
    }

    /// Solves the game completely, with the solver that suits it. Called
    /// only when [`RegisteredGame::database_kind`] is
    /// [`DatabaseKind::Complete`] and the records fit.
    #[cfg(feature = "engine")]
    fn solve(&self, progress: &dyn Progress) -> Result<Solved, SolveError>;

    /// Solves the game completely on the ranks of `ex` (every rank calls
    /// it), under the same conditions as [`RegisteredGame::solve`]; `None`
    /// when its solver does not run on ranks.
    #[cfg(feature = "engine")]
    fn solve_on_ranks(
        &self,
        ex: &dyn Exchange,
        progress: &dyn Progress,
    ) -> Option<Result<RankSolution, SolveError>>;

    /// Solves a game whose database is a dense table on the ranks of `ex`
    /// (rank 0 with the `output` the table goes to); `None`, the default,
    /// for a game whose database is sorted.
    #[cfg(feature = "engine")]
    fn solve_dense_on_ranks(
        &self,
        ex: &dyn Exchange,
        progress: &dyn Progress,
        output: Option<&mut dyn DenseOutput>,
    ) -> Option<Result<DenseRankSummary, SolveError>> {
        let _ = (ex, progress, output);
        None
    }

    /// What `generator` would cost: this variant's own database (a book of
    /// `depth` moves when it is one) searched with tables of
    /// `2^table_bits` words on `threads` threads. `None` when no measured
    /// run tells.
    #[cfg(feature = "engine")]
    fn estimate(&self, depth: u32, table_bits: u32, threads: usize) -> Option<Estimate>;
}
