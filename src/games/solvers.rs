//! The solvers a game names (feature `engine`): by default the layered
//! solver, on one process or on ranks; a game with a solver of its own
//! overrides [`Solvers`] beside that solver, in its folder.

use crate::core::{Progress, Solved};
use crate::solve::dense::{DenseOutput, DenseRankSummary};
use crate::solve::ranks::{Exchange, RankSolution};
use crate::solve::{self, SolveError};

/// How a game's complete database is solved. Every method has a default,
/// monomorphised for each game that implements the trait: a game whose
/// moves never return to an earlier layer (the number of pieces only
/// grows) takes the layered solver with an empty impl.
pub trait Solvers: crate::core::Game {
    /// Solves the game completely with the solver that suits it: by
    /// default the layered solver ([`solve::solve`]). The registry calls it
    /// only when the game's database is complete and its records fit.
    fn run_solver(&self, progress: &dyn Progress) -> Result<Solved, SolveError> {
        solve::solve(self, progress).map(Solved::from)
    }

    /// [`Solvers::run_solver`] on the ranks of `ex` (every rank calls it):
    /// by default the layered solver's ranks ([`solve::ranks::solve`]);
    /// `None` when the game's solver does not run on ranks.
    fn run_solver_on_ranks(
        &self,
        ex: &dyn Exchange,
        progress: &dyn Progress,
    ) -> Option<Result<RankSolution, SolveError>> {
        Some(solve::ranks::solve(self, ex, progress))
    }

    /// Solves a game whose database is a dense table on the ranks of `ex`
    /// (rank 0 with the `output` the table goes to); `None`, the default,
    /// for a game whose database is sorted.
    fn run_dense_solver_on_ranks(
        &self,
        ex: &dyn Exchange,
        progress: &dyn Progress,
        output: Option<&mut dyn DenseOutput>,
    ) -> Option<Result<DenseRankSummary, SolveError>> {
        let _ = (ex, progress, output);
        None
    }
}
