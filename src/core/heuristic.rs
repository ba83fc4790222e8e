//! Heuristics: simple rules of play that the statistics test against the
//! perfect moves. Each game lists its own ([`Heuristic`]), and the registry
//! binds them to a game value ([`BoundHeuristic`]), so that the statistics
//! need to know no game.

use super::game::Game;
use super::value::{Edge, Move};

/// A named rule of play for game type `G`.
pub(crate) struct Heuristic<G: ?Sized> {
    /// Name on the command line, e.g. `greedy`.
    pub name: &'static str,
    /// One line on what it plays.
    pub description: &'static str,
    /// Appends the moves the rule picks in `state` to `out`, given the
    /// state's legal moves `moves` as [`Game::moves`] lists them (never empty,
    /// never only a pass). Every pick must be one of `moves`.
    pub choose: fn(game: &G, state: u64, moves: &[Edge], out: &mut Vec<Move>),
}

impl<G: Game + Sync> Heuristic<G> {
    /// This heuristic, bound to `game`.
    pub(crate) fn bind<'g>(&self, game: &'g G) -> BoundHeuristic<'g> {
        let choose = self.choose;
        BoundHeuristic {
            name: self.name,
            description: self.description,
            choose: Box::new(move |s, m, o| choose(game, s, m, o)),
        }
    }
}

/// The rule of [`Heuristic::choose`], bound to one game.
type Chooser<'g> = Box<dyn Fn(u64, &[Edge], &mut Vec<Move>) + Send + Sync + 'g>;

/// A heuristic bound to a game, ready to test.
pub struct BoundHeuristic<'g> {
    /// Its name.
    pub name: &'static str,
    /// What it plays.
    pub description: &'static str,
    choose: Chooser<'g>,
}

impl BoundHeuristic<'_> {
    /// The moves the heuristic picks (see [`Heuristic::choose`]).
    pub(crate) fn choose(&self, state: u64, moves: &[Edge], out: &mut Vec<Move>) {
        (self.choose)(state, moves, out)
    }
}

impl std::fmt::Debug for BoundHeuristic<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoundHeuristic")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}
