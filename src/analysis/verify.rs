//! Full verification of a database against its game.

use rayon::prelude::*;

use crate::core::{Edge, Game, LayoutKind, Limits, Progress, Value};
use crate::db::{check_header, Database, DbError};

/// What a successful verification checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyReport {
    /// Records checked.
    pub records: u64,
    /// True when every record's value was re-derived from its children.
    pub children_checked: bool,
    /// The records whose value was re-derived from their children: all of
    /// them in a complete database; in a partial one (an opening book),
    /// those whose children are all in the file.
    pub derived: u64,
}

const CHUNK: usize = 1 << 14;

/// Checks everything: the records checksum; strictly ascending keys; every key
/// a valid canonical state of `game`; the start state present; and, for a
/// complete database, every value equal to the minimax of its children's
/// values as stored in the file. Returns the first problem found.
///
/// A partial database (no complete flag: an opening book) holds states
/// whose children it does not hold, the book's frontier, whose values came
/// from search. There the rule is: a state whose children are all in the
/// file is re-derived like any other; a state with a child missing is
/// checked for everything but its value. (In a complete database a missing
/// child is an error.)
///
/// Stops with [`DbError::Interrupted`] soon after `progress` says the work
/// is [cancelled](crate::core::Progress::cancelled).
pub fn verify(
    db: &Database,
    game: &dyn Game,
    progress: &dyn Progress,
) -> Result<VerifyReport, DbError> {
    if db.is_packed() {
        // Every block checked and decoded (the header and the index were
        // on opening), then the file it holds checked as any other.
        return verify(&db.unpack_with(progress)?, game, progress);
    }
    db.verify_checksum_with(progress)?;
    let layout = db.header().layout;
    let n = db.raw_records().len();
    let complete = db.header().is_complete();
    let bad = |index: usize, key: u64, reason: String| DbError::BadRecord {
        index: index as u64,
        key,
        reason,
    };

    check_header(game, db.header())?;
    let limits = game.limits();
    let start = game.canonical(game.start());
    if complete && db.find(start).is_none() {
        return Err(DbError::HeaderField {
            field: "start_key",
            reason: "the start position is missing from a complete database".into(),
        });
    }

    if db.header().kind == LayoutKind::Dense {
        return verify_dense(db, game, progress);
    }
    progress.start_phase("verify", n as u64);
    let chunks = n.div_ceil(CHUNK);
    let derived = std::sync::atomic::AtomicU64::new(0);
    let first_error = (0..chunks).into_par_iter().find_map_first(|c| {
        if progress.cancelled() {
            return Some(DbError::Interrupted);
        }
        let lo = c * CHUNK;
        let hi = (lo + CHUNK).min(n);
        let mut edges = Vec::with_capacity(32);
        let mut chunk_derived = 0u64;
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
            let value = layout.value(r);
            if !limits.allows(value) {
                return Some(bad(i, key, out_of_range(value)));
            }
            edges.clear();
            game.canonical_children(key, &mut edges);
            if !complete
                && edges
                    .iter()
                    .any(|e| !matches!(db.get(e.child), Ok(Some(_))))
            {
                // The frontier of a partial database: nothing to derive from.
                continue;
            }
            if let Err(reason) = check_value(db, game, &limits, &edges, value) {
                return Some(bad(i, key, reason));
            }
            chunk_derived += 1;
        }
        derived.fetch_add(chunk_derived, std::sync::atomic::Ordering::Relaxed);
        progress.advance((hi - lo) as u64);
        None
    });
    progress.finish_phase();
    // Every record read stood on the file as it was mapped, or what was
    // found wrong may be the zeros of a truncation, which is the error.
    db.check_intact()?;
    match first_error {
        Some(e) => Err(e),
        None => Ok(VerifyReport {
            records: n as u64,
            children_checked: complete,
            derived: derived.into_inner(),
        }),
    }
}

/// [`verify`] for a dense file: every entry equals the best of its moves
/// (the remoteness follows from the key). Every key is a state, so there is
/// no order or canonical form to check.
fn verify_dense(
    db: &Database,
    game: &dyn Game,
    progress: &dyn Progress,
) -> Result<VerifyReport, DbError> {
    let entries = db.dense_entries();
    let n = entries.len();
    let layout = db.header().layout;
    let limits = game.limits();
    let bad = |key: u64, reason: String| DbError::BadRecord {
        index: key,
        key,
        reason,
    };
    progress.start_phase("verify", n as u64);
    let chunks = n.div_ceil(CHUNK);
    let first_error = (0..chunks).into_par_iter().find_map_first(|c| {
        if progress.cancelled() {
            return Some(DbError::Interrupted);
        }
        let lo = c * CHUNK;
        let hi = (lo + CHUNK).min(n);
        let mut edges = Vec::with_capacity(64);
        for (i, &byte) in entries.iter().enumerate().take(hi).skip(lo) {
            let key = i as u64;
            let value = layout.dense_value(key, byte);
            if !limits.allows(value) {
                return Some(bad(key, out_of_range(value)));
            }
            edges.clear();
            game.moves(key, &mut edges);
            if let Err(reason) = check_value(db, game, &limits, &edges, value) {
                return Some(bad(key, reason));
            }
        }
        progress.advance((hi - lo) as u64);
        None
    });
    progress.finish_phase();
    db.check_intact()?;
    match first_error {
        Some(e) => Err(e),
        None => Ok(VerifyReport {
            records: n as u64,
            children_checked: true,
            derived: n as u64,
        }),
    }
}

/// Why a stored value is refused when the game rules it out.
fn out_of_range(v: Value) -> String {
    format!(
        "value (net {}, remoteness {}) out of the game's range",
        v.net, v.remoteness
    )
}

/// Checks a stored value against the best of its moves, the children's
/// values read from the file.
fn check_value(
    db: &Database,
    game: &dyn Game,
    limits: &Limits,
    edges: &[Edge],
    stored: Value,
) -> Result<(), String> {
    let mut best: Option<Value> = None;
    for e in edges {
        let child = db
            .get_in_scan(e.child)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| {
                format!(
                    "child {:#x} (move {}) is missing",
                    e.child,
                    game.format_move(e.mv)
                )
            })?;
        if !limits.allows(child) {
            return Err(format!(
                "child {:#x} (move {}) has a {}",
                e.child,
                game.format_move(e.mv),
                out_of_range(child)
            ));
        }
        let v = Value::through(e, child);
        if best.is_none_or(|b| v.better_than(b)) {
            best = Some(v);
        }
    }
    let expected = best.unwrap_or(Value::TERMINAL);
    if stored == expected {
        Ok(())
    } else {
        Err(format!(
            "stored value (net {}, remoteness {}) but its children give (net {}, remoteness {})",
            stored.net, stored.remoteness, expected.net, expected.remoteness
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::NoProgress;
    use crate::db::header::{Header, HEADER_SIZE};
    use crate::games::dots_and_boxes::DotsAndBoxes;
    use crate::solve::dense::solve_dense;

    /// A wrong entry whose checksums were recomputed (a buggy writer, not
    /// a damaged disk) is still caught by re-deriving it from its children.
    #[test]
    fn a_resealed_wrong_dense_entry_is_found() {
        let game = DotsAndBoxes::from_variant("2x2").unwrap();
        let sol = solve_dense(&game, &NoProgress).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.db");
        crate::db::write_database(&path, game.descriptor(), &sol.into()).unwrap();
        let db = Database::open(&path).unwrap();
        assert!(verify(&db, &game, &NoProgress).unwrap().children_checked);
        drop(db);

        let mut bytes = std::fs::read(&path).unwrap();
        let key = 0b1010_0110_0101usize;
        bytes[HEADER_SIZE + key] = bytes[HEADER_SIZE + key].wrapping_add(2);
        let mut header = Header::decode(&bytes).unwrap();
        header.records_checksum = xxhash_rust::xxh3::xxh3_128(&bytes[HEADER_SIZE..]);
        bytes[..HEADER_SIZE].copy_from_slice(&header.encode().unwrap());
        std::fs::write(&path, &bytes).unwrap();

        let db = Database::open(&path).unwrap();
        db.verify_checksum().unwrap();
        match verify(&db, &game, &NoProgress) {
            Err(DbError::BadRecord { key: k, .. }) => {
                // The entry itself, or a parent of it, is the first found.
                assert!(
                    k == key as u64 || (k as usize) & key == k as usize,
                    "{k:#x}"
                );
            }
            other => panic!("not caught: {other:?}"),
        }
    }
}
