//! Building opening books (feature `engine`): the layers enumerated, the
//! deepest searched on threads or over the ranks of a job (`spread`, with
//! the `farm` protocol dealing the searches), a sample of the searches
//! timed for the estimates (`sample`), and [`DynBookBuild`], the same
//! behind a pointer.

mod build;
pub mod farm;
mod sample;
mod spread;

pub use build::{build_book, layer_order};
use sample::time_searches;
pub(crate) use sample::SearchTimes;
use spread::build_book_on_ranks;
pub use spread::RankBook;

use super::{BookError, BookGame, BookOptions};
use crate::core::{Progress, Solution};
use crate::solve::ranks::Exchange;
use farm::Farm;

/// The threads a book's search can use: rayon's.
pub(crate) fn threads() -> usize {
    rayon::current_num_threads().max(1)
}

/// The building of a [`BookGame`]'s book behind a pointer (the registry
/// holds games as trait objects): every `BookGame` is one, each call
/// monomorphised for its game.
pub trait DynBookBuild {
    /// [`build_book`] of the game.
    fn build_book(
        &self,
        options: &BookOptions,
        progress: &dyn Progress,
    ) -> Result<Solution, BookError>;

    /// [`build_book_on_ranks`] of the game.
    fn build_book_on_ranks(
        &self,
        options: &BookOptions,
        ex: &dyn Exchange,
        farm: &dyn Farm,
        progress: &dyn Progress,
    ) -> Result<RankBook, BookError>;

    /// [`time_searches`] of the game.
    fn time_searches(
        &self,
        states: &[u64],
        table_bits: u32,
        threads: usize,
    ) -> Result<SearchTimes, BookError>;
}

impl<G: BookGame + Clone + 'static> DynBookBuild for G {
    fn build_book(
        &self,
        options: &BookOptions,
        progress: &dyn Progress,
    ) -> Result<Solution, BookError> {
        build_book(self, options, progress)
    }

    fn build_book_on_ranks(
        &self,
        options: &BookOptions,
        ex: &dyn Exchange,
        farm: &dyn Farm,
        progress: &dyn Progress,
    ) -> Result<RankBook, BookError> {
        build_book_on_ranks(self, options, ex, farm, progress)
    }

    fn time_searches(
        &self,
        states: &[u64],
        table_bits: u32,
        threads: usize,
    ) -> Result<SearchTimes, BookError> {
        time_searches(self, states, table_bits, threads)
    }
}
