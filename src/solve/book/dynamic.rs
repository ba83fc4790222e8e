//! [`BookGame`] as a trait object: what a caller that holds a game of any
//! kind (the registry) asks of a game whose positions are searched. The
//! trait's searcher is an associated type, so it cannot be one itself; every
//! `BookGame` is a [`DynBookGame`], each call monomorphised for its game.

use std::ops::RangeInclusive;
use std::sync::Arc;

use super::builder::DynBookBuild;
use super::{BookError, BookGame};
use crate::core::{BookSource, Oracle};
use crate::solve::live::LiveSearch;
use crate::solve::memory::TableError;

/// A [`BookGame`] behind a pointer: its book, its tables and its live
/// search; with the engine, the building of its book too
/// ([`DynBookBuild`]).
pub trait DynBookGame: Send + Sync + DynBookBuild {
    /// [`BookGame::table_bits_range`].
    fn table_bits_range(&self) -> RangeInclusive<u32>;

    /// [`BookGame::check_tables`] of `searchers` searchers.
    fn check_tables(&self, searchers: usize, table_bits: u32) -> Result<u64, TableError>;

    /// [`BookGame::table_bytes`] of `searchers` searchers.
    fn table_bytes(&self, searchers: usize, table_bits: u32) -> u64;

    /// [`crate::solve::live::default_table_bits`] of the game with
    /// `searchers` searchers.
    fn default_table_bits(&self, searchers: usize) -> u32;

    /// [`LiveSearch::new`] on the game, from `book` when given.
    fn live<'a>(
        &self,
        book: Option<&'a dyn BookSource>,
        table_bits: u32,
    ) -> Result<Box<dyn Oracle + 'a>, BookError>;

    /// [`LiveSearch::shared`] on the game, with `searchers` searchers.
    fn live_shared(
        &self,
        book: Option<Arc<dyn BookSource + Send + Sync>>,
        table_bits: u32,
        searchers: usize,
    ) -> Result<Box<dyn Oracle + Send + Sync>, BookError>;
}

impl<G: BookGame + Clone + 'static> DynBookGame for G {
    fn table_bits_range(&self) -> RangeInclusive<u32> {
        BookGame::table_bits_range(self)
    }

    fn check_tables(&self, searchers: usize, table_bits: u32) -> Result<u64, TableError> {
        BookGame::check_tables(self, searchers, table_bits)
    }

    fn table_bytes(&self, searchers: usize, table_bits: u32) -> u64 {
        BookGame::table_bytes(self, searchers, table_bits)
    }

    fn default_table_bits(&self, searchers: usize) -> u32 {
        crate::solve::live::default_table_bits(self, searchers)
    }

    fn live<'a>(
        &self,
        book: Option<&'a dyn BookSource>,
        table_bits: u32,
    ) -> Result<Box<dyn Oracle + 'a>, BookError> {
        let live = LiveSearch::new(self.clone(), book, table_bits)?;
        Ok(Box::new(live))
    }

    fn live_shared(
        &self,
        book: Option<Arc<dyn BookSource + Send + Sync>>,
        table_bits: u32,
        searchers: usize,
    ) -> Result<Box<dyn Oracle + Send + Sync>, BookError> {
        let live = LiveSearch::shared(self.clone(), book, table_bits, searchers)?;
        Ok(Box::new(live))
    }
}
