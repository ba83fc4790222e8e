//! Work on a whole file (feature `engine`): [`Tablebase::verify`], every
//! value re-derived from its children, and [`Tablebase::stats`], facts about
//! the whole game.

use std::collections::BTreeMap;

use boardsolve::analysis::stats::{compute, heuristics::explain};
pub use boardsolve::analysis::stats::{Options as StatsOptions, Outcomes, StatsError, Terminals};
pub use boardsolve::analysis::verify::VerifyReport;
pub use boardsolve::core::Progress;
use boardsolve::db::DbError;

use crate::answer::Answer;
use crate::error::ProbeError;
use crate::game::Game;
use crate::position::{Move, Position};
use crate::tablebase::Tablebase;

/// Facts about the whole game, from its database (`query stats`).
#[derive(Debug)]
pub struct Stats {
    /// The game.
    pub game: Game,
    /// True when the database holds every key (dense layout), so the
    /// counts are of every position; false when it holds one state per
    /// symmetry class (canonical states).
    pub dense: bool,
    /// True when the database holds every reachable state; false for an
    /// opening book, whose counts are of its own states only.
    pub complete: bool,
    /// The states in the database.
    pub states: u64,
    /// States per layer (index = layer; British Square: pieces placed).
    pub by_layer: Vec<u64>,
    /// States per value.
    pub by_value: BTreeMap<i32, u64>,
    /// States per (layer, value).
    pub by_layer_value: BTreeMap<(usize, i32), u64>,
    /// The ends of the game.
    pub terminals: Terminals,
    /// The complete games, or why they were not counted.
    pub playouts: Result<Outcomes, String>,
    /// The start, with every move's value.
    pub start: Answer,
    /// The heuristics tested, or why they were not.
    pub heuristics: Result<Vec<HeuristicReport>, String>,
}

/// How one heuristic fared.
#[derive(Clone, Debug)]
pub struct HeuristicReport {
    /// The heuristic's name.
    pub name: &'static str,
    /// What it plays.
    pub description: &'static str,
    /// Positions where the side to move had a real move.
    pub positions: u64,
    /// Those where some pick of the heuristic is not a perfect move.
    pub failures: u64,
    /// The first failures, as many as asked, explained.
    pub examples: Vec<Failure>,
}

/// One failure of a heuristic, explained.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The position, as the database holds it (its key alone: the side to
    /// move and the score so far are what the key says).
    pub position: Position,
    /// Its answer: its value and every move's.
    pub answer: Answer,
    /// The moves the heuristic picks.
    pub picks: Vec<Move>,
}

/// A position of `game` as its key alone tells it.
fn of_key(game: Game, state: u64) -> Position {
    let g = game.present();
    Position::from_parts(
        game,
        boardsolve::Position {
            state,
            to_move: g.to_move(state),
            lead: g.lead(state),
        },
    )
}

impl Tablebase {
    /// Reads the whole file and checks everything: its checksums, its
    /// order, every key a canonical state of the game and, for a complete
    /// database, every value re-derived from its children's (an opening
    /// book: those whose children it holds). Stops with
    /// [`ProbeError::Stopped`] soon after `progress` says the work is
    /// cancelled; a file that fails is [`ProbeError::Invalid`], with the
    /// first problem found.
    pub fn verify(&self, progress: &dyn Progress) -> Result<VerifyReport, ProbeError> {
        let db = self.db.as_deref().ok_or_else(|| self.no_database())?;
        boardsolve::analysis::verify::verify(db, self.game.present(), progress).map_err(|e| match e
        {
            DbError::Interrupted => ProbeError::Stopped,
            e => ProbeError::Invalid(e),
        })
    }

    /// The statistics `options` asks for (the state tables, the ends and
    /// the start always), from the whole file: a packed file is unpacked in
    /// memory first ([`ProbeError::Invalid`] when it fails its checks). The
    /// examples of a heuristic's failures come explained.
    pub fn stats(&self, options: &StatsOptions) -> Result<Stats, ProbeError> {
        let db = self.db.as_deref().ok_or_else(|| self.no_database())?;
        let unpacked;
        let db = if db.is_packed() {
            unpacked = db.unpack().map_err(ProbeError::Invalid)?;
            &unpacked
        } else {
            db
        };
        db.build_index();
        let any = self.game.any;
        let g = any.game();
        let s = compute(g, any.heuristics(), db, options).map_err(ProbeError::Stats)?;
        let heuristics = match s.heuristics {
            Ok(reports) => {
                let bound = any.heuristics();
                let mut out = Vec::with_capacity(reports.len());
                for r in reports {
                    let mut examples = Vec::new();
                    if let Some(h) = bound.iter().find(|h| h.name == r.name) {
                        for &state in &r.examples {
                            let f = explain(g, db, h, state).map_err(ProbeError::Stats)?;
                            examples.push(Failure {
                                position: of_key(self.game, state),
                                answer: Answer::new(self.game, f.analysis),
                                picks: f.picks.iter().map(|&m| Move::new(self.game, m)).collect(),
                            });
                        }
                    }
                    out.push(HeuristicReport {
                        name: r.name,
                        description: r.description,
                        positions: r.positions,
                        failures: r.failures,
                        examples,
                    });
                }
                Ok(out)
            }
            Err(note) => Err(note),
        };
        Ok(Stats {
            game: self.game,
            dense: s.dense,
            complete: s.complete,
            states: s.states,
            by_layer: s.by_layer,
            by_value: s.by_value,
            by_layer_value: s.by_layer_value,
            terminals: s.terminals,
            playouts: s.playouts,
            start: Answer::new(self.game, s.start),
            heuristics,
        })
    }
}
