//! Builds without the `search` feature: no search, every answer from the
//! file.

use std::sync::Arc;

use boardsolve::core::Oracle;
use boardsolve::db::Database;

use crate::error::ProbeError;
use crate::game::Game;

/// No search (the `search` feature adds it).
pub(crate) struct Live;

impl Live {
    /// Search off, as always.
    pub(crate) fn new() -> Live {
        Live
    }

    /// Nothing to forget.
    pub(crate) fn reset(&mut self) {}

    /// No position is searched.
    pub(crate) fn searches(&self, _: Game, _: Option<&Database>) -> bool {
        false
    }

    /// No search answers.
    pub(crate) fn oracle(
        &self,
        _: Game,
        _: &Option<Arc<Database>>,
    ) -> Option<Result<&dyn Oracle, ProbeError>> {
        None
    }
}
