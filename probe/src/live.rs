//! The live search of a tablebase (feature `search`): its size, and its
//! searchers, made when an answer first needs them.

use std::sync::{Arc, OnceLock};

use boardsolve::core::Oracle;
use boardsolve::db::Database;

use crate::error::ProbeError;
use crate::game::Game;

/// A live search that shares the tablebase's database.
type Searcher = Box<dyn Oracle + Send + Sync>;

/// The search of a tablebase: its size when turned on, and the searchers,
/// made when an answer first needs them.
pub(crate) struct Live {
    /// `log2` of the table entries, and the number of searchers.
    size: Option<(u32, usize)>,
    /// The searchers (`None` inside for a game without a book), or why
    /// they could not be made.
    made: OnceLock<Option<Result<Searcher, String>>>,
}

impl Live {
    /// Search off.
    pub(crate) fn new() -> Live {
        Live {
            size: None,
            made: OnceLock::new(),
        }
    }

    /// Search on, with tables of `2^bits` entries and `searchers`
    /// searchers.
    pub(crate) fn sized(bits: u32, searchers: usize) -> Live {
        Live {
            size: Some((bits, searchers)),
            made: OnceLock::new(),
        }
    }

    /// The size: `log2` of the table entries, and the searchers.
    pub(crate) fn size(&self) -> Option<(u32, usize)> {
        self.size
    }

    /// Forgets the searchers: they are made again on the next answer.
    pub(crate) fn reset(&mut self) {
        self.made = OnceLock::new();
    }

    /// True when search is on and answers the positions past `db` (or
    /// every position of `game`, without a file).
    pub(crate) fn searches(&self, game: Game, db: Option<&Database>) -> bool {
        self.size.is_some() && game.any.searched_with(db)
    }

    /// The search that answers positions of `game` past `db`, made on
    /// first use; `None` when search is off or the game needs none.
    pub(crate) fn oracle(
        &self,
        game: Game,
        db: &Option<Arc<Database>>,
    ) -> Option<Result<&dyn Oracle, ProbeError>> {
        let (bits, searchers) = self.size?;
        let made = self
            .made
            .get_or_init(|| {
                game.any
                    .live_shared(db.clone(), bits, searchers)
                    .map(|made| made.map_err(|e| e.to_string()))
            })
            .as_ref()?;
        Some(match made {
            Ok(live) => Ok(&**live as &dyn Oracle),
            Err(message) => Err(ProbeError::SearchFailed(message.clone())),
        })
    }

    /// The nodes searched so far, when the searchers are made.
    pub(crate) fn nodes(&self) -> Option<u64> {
        match self.made.get()? {
            Some(Ok(live)) => live
                .node_counter()
                .map(|n| n.load(std::sync::atomic::Ordering::Relaxed)),
            _ => None,
        }
    }
}
