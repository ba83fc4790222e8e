//! What a game declares about itself, in its folder's `mod.rs`, for the
//! registry to list it: its names, help texts and constructor
//! ([`GameInfo`], data), and one trait ([`RegisteredGame`]) for what
//! depends on the variant: what its database holds on each board
//! ([`DatabaseKind`]), which solver builds it (the layered solver unless
//! the game names its own), the search behind its opening book, and what a
//! build costs (`Estimate`, and the `Calibration` sample that scales it to
//! the machine it runs on). The registry names each game
//! once, in its list, so that a game is complete in its own folder.

use std::sync::Arc;

use super::searched::DynBookGame;
use super::solvers::Solvers;
use crate::core::{BoundHeuristic, VariantError};
use crate::render::Presentation;

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

/// Registry entry: what a game is called, what it is, how it is stored,
/// and how to set it up. A game declares it as a constant in its folder,
/// and the registry lists it.
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
    /// Other names of some of its variants, each `(name, variant)`:
    /// `--game NAME` without `--variant` is that variant (`tic-tac-toe`
    /// is k-in-a-row 3x3,k=3).
    pub aliases: &'static [(&'static str, &'static str)],
    /// How the help of `--table-bits` tells of its searches; `None` for a
    /// game never answered by search.
    pub search_help: Option<SearchHelp>,
    /// Sets up the game from a variant spec (empty for the standard one).
    pub new: fn(&str) -> Result<Arc<dyn RegisteredGame>, VariantError>,
}

/// How the searchers of a game answered by search share their
/// transposition tables. The help of `--table-bits` lists the games in
/// this order, the most shared first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TableSharing {
    /// One table, which every searcher reads and writes.
    One,
    /// A table of the size given for each searcher.
    PerSearcher,
}

impl TableSharing {
    /// The words the help of `--table-bits` says it in, after "takes N to
    /// M and".
    pub(crate) fn says(self) -> &'static str {
        match self {
            TableSharing::One => "shares one table among its searchers",
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
/// runs on the reference machine (2 cores of an AMD EPYC,
/// `docs/performance.md`), scaled by the size of the work, and for long
/// runs by this machine's speed ([`Calibration`], [`TimeScale`]). An
/// estimate is meant to be within a factor of 1.5; sizes nobody measured
/// get none.
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

impl Estimate {
    /// A mebibyte, the unit peaks are measured in.
    pub(crate) const MB: u64 = 1 << 20;

    /// A small board solved completely: well under a second and about
    /// 10 MB, whatever the game.
    pub(crate) const SMALL: Estimate = Estimate {
        cpu_seconds: 0.05,
        parallelism: 1.0,
        peak_bytes: 10 * Estimate::MB,
    };

    /// Wall time on the reference machine from which a run is worth
    /// calibrating ([`Estimate::worth_sampling`]): a sample of a few tenths
    /// of a second is then at most a few percent of the run.
    pub(crate) const SAMPLED_FROM_SECONDS: f64 = 10.0;

    /// The wall time on `threads` threads, in seconds.
    pub fn wall_seconds(&self, threads: usize) -> f64 {
        self.cpu_seconds / (threads.max(1) as f64).min(self.parallelism.max(1.0))
    }

    /// The wall time on `threads` threads, in seconds, on a machine where
    /// the work takes `scale` times as long as on the reference machine.
    pub fn wall_seconds_at(&self, threads: usize, scale: TimeScale) -> f64 {
        self.wall_seconds(threads) * scale.wall
    }

    /// The processor time, in seconds, on a machine where the work takes
    /// `scale` times as long as on the reference machine.
    pub fn cpu_seconds_at(&self, scale: TimeScale) -> f64 {
        self.cpu_seconds * scale.cpu
    }

    /// True when the run is long enough on `threads` threads (at least
    /// [`Estimate::SAMPLED_FROM_SECONDS`]) for a calibration sample to be
    /// worth its time.
    pub fn worth_sampling(&self, threads: usize) -> bool {
        self.wall_seconds(threads) >= Estimate::SAMPLED_FROM_SECONDS
    }
}

/// A small piece of a build's real work, with what it took on the reference
/// machine: `generator` times it just before a long build and scales the
/// build's [`Estimate`] by the ratio ([`TimeScale`]), so that the estimate
/// holds on a slower or busier machine too. A game declares it beside its
/// estimates ([`RegisteredGame::calibration`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    /// Positions in the game's notation, each searched once as a book's
    /// deepest layer is, on the build's threads taking them in turn.
    pub positions: &'static [&'static str],
    /// `log2` of the entries of the sample's tables, or the build's if
    /// smaller: tables large enough that the searches leave the
    /// processor's caches as a build's do, small enough to be mapped in a
    /// few milliseconds.
    pub table_bits: u32,
    /// The searches' wall times added up, in seconds, on the reference
    /// machine (2 threads on the 2 idle cores of the AMD EPYC whose runs
    /// the estimates come from): the time that makes the sample's ratio
    /// match the builds' own, checked against builds timed beside their
    /// samples (`docs/performance.md`).
    pub reference_seconds: f64,
}

/// How many times as long as on the reference machine the work of a build
/// takes here, now, as a timed [`Calibration`] sample found: for its wall
/// time (which other processes on the same cores lengthen) and for its
/// processor time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeScale {
    /// The factor of wall time.
    pub wall: f64,
    /// The factor of processor time.
    pub cpu: f64,
}

impl TimeScale {
    /// The reference machine itself: the estimates as measured.
    pub const REFERENCE: TimeScale = TimeScale {
        wall: 1.0,
        cpu: 1.0,
    };

    /// The factors a sample may give, at least and at most: one timed
    /// outside them says more about the sample (a stall, a clock jump) than
    /// about the machine.
    pub(crate) const RANGE: (f64, f64) = (0.2, 10.0);

    /// The scale a sample gives that took `wall` seconds here (its
    /// searches' wall times added up) and `cpu` seconds of processor time
    /// where the system tells it (else the wall time stands for it), against
    /// `reference` seconds on the reference machine.
    pub(crate) fn from_sample(reference: f64, wall: f64, cpu: Option<f64>) -> TimeScale {
        let factor = |t: f64| {
            let f = t / reference;
            if f.is_finite() {
                f.clamp(TimeScale::RANGE.0, TimeScale::RANGE.1)
            } else {
                1.0
            }
        };
        TimeScale {
            wall: factor(wall),
            cpu: factor(cpu.unwrap_or(wall)),
        }
    }
}

/// An opening book embedded in the build: the bytes of a database file,
/// exactly as `generator` wrote it with the command given, so that anyone
/// can write it again and compare.
#[derive(Clone, Copy, Debug)]
pub struct ShippedBook {
    /// What stands for its path in messages, e.g. `c4.db (shipped)`.
    pub name: &'static str,
    /// The `generator` command line that writes the same file.
    pub command: &'static str,
    /// The file's bytes.
    pub bytes: &'static [u8],
}

/// A game as the registry lists it: everything the tools need to know of
/// it besides its rules ([`crate::core::Game`]), its looks
/// ([`Presentation`]) and what is fixed ([`GameInfo`]), declared in the
/// game's folder. Every method but [`RegisteredGame::database_kind`] has a
/// default: a game whose moves never return to an earlier layer (the
/// number of pieces only grows) takes the layered solver, on one process
/// or on ranks, and writes no solver code; a game with a solver of its own
/// names it in its [`Solvers`] impl. The registry holds it as a trait
/// object.
pub trait RegisteredGame: Presentation + Solvers + 'static {
    /// What this variant's database holds ([`GameInfo::kind`] is what it
    /// holds on the standard variant).
    fn database_kind(&self) -> DatabaseKind;

    /// Its heuristics bound to it, for the statistics (`query stats`);
    /// none by default.
    fn heuristics(&self) -> Vec<BoundHeuristic<'_>> {
        Vec::new()
    }

    /// The game as its book's search sees it, on the boards whose
    /// positions can be searched; `None` (the default) on the others.
    /// (Without the feature `search`, a trait with nothing to ask.)
    fn book_game(&self) -> Option<&dyn DynBookGame> {
        None
    }

    /// The opening book that comes with the tools for this variant, when
    /// it has one and the build embeds it (feature `shipped-books`): what
    /// the tools answer from when no file is given. `None` by default.
    fn shipped_book(&self) -> Option<ShippedBook> {
        None
    }

    /// What `generator` would cost: this variant's own database (a book of
    /// `depth` moves when it is one) searched with tables of
    /// `2^table_bits` words on `threads` threads. `None`, the default, when
    /// no measured run tells.
    fn estimate(&self, depth: u32, table_bits: u32, threads: usize) -> Option<Estimate> {
        let _ = (depth, table_bits, threads);
        None
    }

    /// The sample `generator` times to scale [`RegisteredGame::estimate`]
    /// of this variant's database (a book of `depth` moves when it is one)
    /// to this machine. `None`, the default, for builds without one: their
    /// estimates stand as measured.
    fn calibration(&self, depth: u32) -> Option<Calibration> {
        let _ = depth;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimate follows the sample: twice the reference time doubles
    /// the wall time, and the processor time follows the processor time.
    #[test]
    fn scaled_estimates_follow_the_sample() {
        let e = Estimate {
            cpu_seconds: 120.0,
            parallelism: 1.6,
            peak_bytes: Estimate::MB,
        };
        let scale = TimeScale::from_sample(0.3, 0.6, Some(0.45));
        assert!((scale.wall - 2.0).abs() < 1e-9 && (scale.cpu - 1.5).abs() < 1e-9);
        assert!((e.wall_seconds_at(2, scale) - 150.0).abs() < 1e-9);
        assert!((e.wall_seconds_at(1, scale) - 240.0).abs() < 1e-9);
        assert!((e.cpu_seconds_at(scale) - 180.0).abs() < 1e-9);
        // Without a processor time the wall time stands for it.
        assert_eq!(TimeScale::from_sample(0.3, 0.15, None).cpu, 0.5);
        // The reference machine itself changes nothing.
        assert_eq!(
            e.wall_seconds_at(2, TimeScale::REFERENCE),
            e.wall_seconds(2)
        );
    }

    /// A sample timed absurdly scales within the sane range, and one that
    /// cannot be compared does not scale at all.
    #[test]
    fn scales_stay_sane() {
        let (least, most) = TimeScale::RANGE;
        assert_eq!(TimeScale::from_sample(0.3, 300.0, None).wall, most);
        assert_eq!(TimeScale::from_sample(0.3, 0.0, None).wall, least);
        assert_eq!(TimeScale::from_sample(0.0, 0.3, None), TimeScale::REFERENCE);
        assert_eq!(TimeScale::from_sample(0.0, 0.0, None), TimeScale::REFERENCE);
    }

    /// Only runs of a good ten seconds are worth a sample.
    #[test]
    fn short_runs_are_not_sampled() {
        let e = |cpu_seconds| Estimate {
            cpu_seconds,
            parallelism: 2.0,
            peak_bytes: 0,
        };
        assert!(!Estimate::SMALL.worth_sampling(1));
        assert!(!e(15.0).worth_sampling(2));
        assert!(e(15.0).worth_sampling(1));
        assert!(e(88.0).worth_sampling(2));
    }
}
