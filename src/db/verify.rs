//! Full verification of a database against its game.

use rayon::prelude::*;

use super::{Database, DbError};
use crate::game::Game;
use crate::solver::Progress;
use crate::value::Value;

/// What a successful verification checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyReport {
    /// Records checked.
    pub records: u64,
    /// True when every record's value was re-derived from its children.
    pub children_checked: bool,
}

const CHUNK: usize = 1 << 14;

/// Checks everything: the records checksum; strictly ascending keys; every key
/// a valid canonical state of `game`; the start state present; and, for a
/// complete database, every value equal to the minimax of its children's
/// values as stored in the file. Returns the first problem found.
pub fn verify(
    db: &Database,
    game: &dyn Game,
    progress: &dyn Progress,
) -> Result<VerifyReport, DbError> {
    db.verify_checksum()?;
    let layout = db.header().layout;
    let n = db.raw_records().len();
    let complete = db.header().is_complete();
    let bad = |index: usize, key: u64, reason: String| DbError::BadRecord {
        index: index as u64,
        key,
        reason,
    };

    let start = game.canonical(game.start());
    if db.header().start_key != start {
        return Err(DbError::HeaderField {
            field: "start_key",
            reason: format!(
                "{:#x}, but the game's start is {start:#x}",
                db.header().start_key
            ),
        });
    }
    if complete && db.find(start).is_none() {
        return Err(DbError::HeaderField {
            field: "start_key",
            reason: "the start position is missing from a complete database".into(),
        });
    }

    progress.start_phase("verify", n as u64);
    let chunks = n.div_ceil(CHUNK);
    let first_error = (0..chunks).into_par_iter().find_map_first(|c| {
        let lo = c * CHUNK;
        let hi = (lo + CHUNK).min(n);
        let mut edges = Vec::with_capacity(32);
        for i in lo..hi {
            let r = db.record(i)?;
            let key = layout.key(r);
            if i + 1 < n {
                let next = layout.key(db.record(i + 1)?);
                if next <= key {
                    return Some(bad(i + 1, next, "keys are not strictly ascending".into()));
                }
            }
            if !game.is_valid_key(key) {
                return Some(bad(i, key, "not a valid state of the game".into()));
            }
            if game.canonical(key) != key {
                return Some(bad(i, key, "not in canonical form".into()));
            }
            if !complete {
                continue;
            }
            edges.clear();
            game.canonical_children(key, &mut edges);
            let mut best: Option<Value> = None;
            for e in &edges {
                let Some(child) = db.get(e.child) else {
                    return Some(bad(
                        i,
                        key,
                        format!(
                            "child {:#x} (move {}) is missing",
                            e.child,
                            game.format_move(e.mv)
                        ),
                    ));
                };
                let v = Value::through(e, child);
                if best.is_none_or(|b| v.better_than(b)) {
                    best = Some(v);
                }
            }
            let expected = best.unwrap_or(Value::TERMINAL);
            let stored = layout.value(r);
            if stored != expected {
                return Some(bad(
                    i,
                    key,
                    format!("stored value {stored:?} but its children give {expected:?}"),
                ));
            }
        }
        progress.advance((hi - lo) as u64);
        None
    });
    progress.finish_phase();
    match first_error {
        Some(e) => Err(e),
        None => Ok(VerifyReport {
            records: n as u64,
            children_checked: complete,
        }),
    }
}
