//! Builds without the engine: no solver, and nothing to ask of a game
//! about one.

/// The solvers of a game, which only the engine (feature `engine`) has.
pub trait Solvers {}

impl<T: ?Sized> Solvers for T {}
