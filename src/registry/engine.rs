//! What the solvers add to the registry (feature `engine`): [`AnyGame`]
//! solved completely or as an opening book, on one process or on ranks,
//! with the checks every game needs first, and the timed samples that
//! scale a build's estimate to the machine.

use super::{AnyGame, Calibration, DatabaseKind, TimeScale};
use crate::core::{Progress, Solution, Solved};
use crate::solve::book::farm::Farm;
use crate::solve::book::{BookError, BookOptions, RankBook};
use crate::solve::{dense, ranks, SolveError};

/// What a calibration sample took here ([`AnyGame::calibrate`]).
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

impl AnyGame {
    /// Solves the game completely, with the solver it names
    /// ([`crate::games::solvers::Solvers::run_solver`], monomorphised per game for speed).
    ///
    /// Fails on a board whose database is an opening book (build that with
    /// [`AnyGame::build_book`]), and on one whose records do not fit.
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
        self.run_solver(progress)
    }

    /// Solves the game completely on the ranks of `ex`
    /// ([`crate::solve::ranks`]): every rank calls it. `None` for a game
    /// whose complete database the ranks do not build (a dense one, or a
    /// game solved only as an opening book).
    pub fn solve_on_ranks(
        &self,
        ex: &dyn ranks::Exchange,
        progress: &dyn Progress,
    ) -> Option<Result<ranks::RankSolution, SolveError>> {
        if self.database_kind() != DatabaseKind::Complete
            || self.game().descriptor().storage_error().is_some()
        {
            return None;
        }
        self.run_solver_on_ranks(ex, progress)
    }

    /// Solves a game whose database is a dense table on the ranks of `ex`
    /// ([`dense::solve_dense_on_ranks`]; every rank calls it, rank 0
    /// with the `output` the table goes to). `None` for a game whose
    /// database is sorted.
    pub fn solve_dense_on_ranks(
        &self,
        ex: &dyn ranks::Exchange,
        progress: &dyn Progress,
        output: Option<&mut dyn dense::DenseOutput>,
    ) -> Option<Result<dense::DenseRankSummary, SolveError>> {
        if let Some(reason) = self.game().descriptor().storage_error() {
            return Some(Err(SolveError::TooLarge { reason }));
        }
        self.run_dense_solver_on_ranks(ex, progress, output)
    }

    /// Builds the game's opening book ([`crate::solve::book`]), or `None`
    /// for a game without one (it is solved completely instead).
    pub fn build_book(
        &self,
        options: &BookOptions,
        progress: &dyn Progress,
    ) -> Option<Result<Solution, BookError>> {
        Some(self.book_game()?.build_book(options, progress))
    }

    /// [`AnyGame::build_book`] on the ranks of a job: every rank calls
    /// this, holds its share of the book and searches its share of the
    /// deepest layer (`build_book_on_ranks`); `None`
    /// for a game without a book.
    pub fn build_book_on_ranks(
        &self,
        options: &BookOptions,
        ex: &dyn ranks::Exchange,
        farm: &dyn Farm,
        progress: &dyn Progress,
    ) -> Option<Result<RankBook, BookError>> {
        Some(
            self.book_game()?
                .build_book_on_ranks(options, ex, farm, progress),
        )
    }

    /// Times the calibration sample of a build of `depth` moves
    /// ([`super::RegisteredGame::calibration`]) on `threads` threads, with the build's
    /// tables of `2^table_bits` entries where they are smaller than the
    /// sample's: a fraction of a second of the build's own kind of work,
    /// whose time against the reference machine's scales the build's
    /// estimate. `None` for builds without a sample.
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::GAMES;

    /// Every book whose build is long enough to be worth a sample has one,
    /// on the standard board, at every depth with an estimate; and every
    /// sample's positions parse, have moves, are distinct and are searched
    /// with tables the board takes.
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
                let range = game.book_game().unwrap().table_bits_range();
                assert!(range.contains(&c.table_bits), "{}", info.name);
                assert!(c.reference_seconds > 0.05 && c.reference_seconds < 1.0);
            }
        }
        assert!(sampled > 0, "some book is calibrated");
    }

    /// A sample is timed: positive times, scaled against its reference.
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
}
