//! Builds without the searches: no position is searched, and a game has
//! nothing to answer about its search.

/// A game's search, which only builds with the feature `search` have.
pub trait DynBookGame {}

impl<T: ?Sized> DynBookGame for T {}
