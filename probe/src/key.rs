//! Answers by key, for engines: the value and remoteness of a position
//! given as the 64-bit key `format-spec.md` defines for its game, with no
//! text parsed and no position made.

use boardsolve::analysis::evaluate;
use boardsolve::core::Value;

use crate::answer::Eval;
use crate::error::ProbeError;
use crate::tablebase::{Tablebase, BATCH_INDEX};

impl Tablebase {
    /// The value and remoteness of the position whose key is `key`, as
    /// `format-spec.md` lays out each game's keys (any of its symmetric
    /// images: the key is reduced to the one the file stores), for the
    /// side to move: what [`Tablebase::eval`] gives for that position.
    ///
    /// A key no position of the game has is [`ProbeError::Malformed`]; a
    /// position the file does not hold is [`ProbeError::Unreachable`] (or
    /// [`ProbeError::NotInBook`] past an opening book, without search).
    /// One lookup: for many single probes, [`Tablebase::build_index`]
    /// first; for many keys at once, [`Tablebase::probe_keys`].
    pub fn probe_key(&self, key: u64) -> Result<Eval, ProbeError> {
        let g = self.game.present();
        if !g.is_valid_key(key) {
            return Err(self.bad_key(key));
        }
        // The file alone answers: one lookup, nothing allocated. Anything
        // but a value in range takes the general path, which says why.
        if let (Some(db), false) = (&self.db, self.searches()) {
            if let Ok(Some(v)) = db.get(g.canonical(key)) {
                if self.in_range(v) {
                    return Ok(Eval {
                        value: g.score(key, v.net),
                        remoteness: v.remoteness,
                    });
                }
            }
        }
        self.probe_key_slowly(key)
    }

    /// [`Tablebase::probe_key`] of each key, in order, their lookups made
    /// together (the file's lookup index built first for
    /// [`BATCH_INDEX`] keys or more): one bad key does not stop the
    /// others.
    pub fn probe_keys(&self, keys: &[u64]) -> Vec<Result<Eval, ProbeError>> {
        let g = self.game.present();
        let valid: Vec<u64> = keys
            .iter()
            .copied()
            .filter(|&k| g.is_valid_key(k))
            .collect();
        if valid.len() >= BATCH_INDEX {
            self.build_index();
        }
        let mut values = match self.oracle() {
            Ok(o) => evaluate(g, o, &valid).into_iter(),
            Err(e) => return keys.iter().map(|_| Err(e.for_another())).collect(),
        };
        keys.iter()
            .map(|&k| {
                if !g.is_valid_key(k) {
                    return Err(self.bad_key(k));
                }
                // One value per valid key, in order.
                let v = values
                    .next()
                    .ok_or_else(|| ProbeError::SearchFailed("no answer".into()))??;
                Ok(Eval {
                    value: g.score(k, v.net),
                    remoteness: v.remoteness,
                })
            })
            .collect()
    }

    /// [`Tablebase::probe_key`] through the analysis, whose errors say
    /// what is wrong: a key the file lacks, a damaged file, a value out of
    /// the game's range, a search stopped.
    #[cold]
    fn probe_key_slowly(&self, key: u64) -> Result<Eval, ProbeError> {
        let g = self.game.present();
        let v = evaluate(g, self.oracle()?, &[key])
            .pop()
            .ok_or_else(|| ProbeError::SearchFailed("no answer".into()))??;
        Ok(Eval {
            value: g.score(key, v.net),
            remoteness: v.remoteness,
        })
    }

    /// True when `v` is within the game's bounds, as the analysis checks
    /// every value it reads.
    #[inline]
    fn in_range(&self, v: Value) -> bool {
        let limits = self.game.present().limits();
        v.net.unsigned_abs() <= limits.max_net.unsigned_abs()
            && v.remoteness <= limits.max_remoteness
    }

    /// The error of a key no position of the game has.
    #[cold]
    fn bad_key(&self, key: u64) -> ProbeError {
        ProbeError::Malformed {
            input: format!("key {key}"),
            reason: format!("no position of {} has this key", self.game.label()),
        }
    }
}
