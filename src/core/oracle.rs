//! Where answers come from. An [`Oracle`] gives the values of canonical
//! states: a database (lookups only) is one, and so is a live search, which
//! may consult a [`BookSource`] (a database of the same game) first.

use super::value::Value;

/// Damage an oracle found while answering: bytes that fail their
/// checksum, or that break the format (nothing read from them is used).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Corrupted {
    /// What is wrong, and where.
    pub reason: String,
}

impl Corrupted {
    /// A damaged source, because of `reason`.
    pub(crate) fn new(reason: impl Into<String>) -> Corrupted {
        Corrupted {
            reason: reason.into(),
        }
    }
}

/// What a stopped search says.
pub const STOPPED: &str = "the search was stopped before it finished";

/// Why an oracle gave no answer: damage it read, or a search its caller
/// stopped (through its [`super::Cancel`]) before it finished, which
/// leaves nothing damaged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OracleError {
    /// The source of values is damaged.
    #[error(transparent)]
    Damaged(#[from] Corrupted),
    /// The search was stopped before it finished.
    #[error("{STOPPED}")]
    Stopped,
}

/// Where the analysis gets the values of positions.
///
/// A database is one: it knows the states it holds. A live search knows
/// every position, searching what its book does not hold.
pub trait Oracle: Sync {
    /// Sets `out[i]` to the value of canonical state `keys[i]` for its side
    /// to move, or `None` when the oracle does not know it (`out` is
    /// cleared first). Fails when what it reads is damaged.
    fn values(&self, keys: &[u64], out: &mut Vec<Option<Value>>) -> Result<(), OracleError>;

    /// True when the oracle knows every reachable state, so that a state it
    /// does not know is unreachable (else: not in the database).
    fn is_complete(&self) -> bool;

    /// The value of one canonical state (see [`Oracle::values`]).
    fn value(&self, key: u64) -> Result<Option<Value>, OracleError> {
        let mut out = Vec::with_capacity(1);
        self.values(&[key], &mut out)?;
        Ok(out.pop().flatten())
    }

    /// Whether the value of canonical state `key` is exactly `value`, or
    /// `None` when the oracle does not know it. The default compares
    /// [`Oracle::value`]; an oracle that searches tests the value, with
    /// less work than it takes to find it.
    fn is_value(&self, key: u64, value: Value) -> Result<Option<bool>, OracleError> {
        Ok(self.value(key)?.map(|v| v == value))
    }

    /// Sets `out[i]` to the sign of the value of canonical state `keys[i]`
    /// for its side to move (1 a win, 0 a draw, -1 a loss), or `None` when
    /// unknown. Cheaper than the exact value where an oracle searches (a
    /// search that only has to tell the outcome cuts far more); the default
    /// takes the sign of [`Oracle::values`].
    fn outcomes(&self, keys: &[u64], out: &mut Vec<Option<i32>>) -> Result<(), OracleError> {
        let mut values = Vec::with_capacity(keys.len());
        self.values(keys, &mut values)?;
        out.clear();
        out.extend(values.into_iter().map(|v| v.map(|v| v.net.signum())));
        Ok(())
    }

    /// For an oracle that searches: the count of the nodes it has visited,
    /// which grows while a long search runs. `None` for one that only looks
    /// values up.
    fn node_counter(&self) -> Option<NodeCounter> {
        None
    }
}

/// The nodes a searching oracle has visited so far, shared with whoever
/// shows them (see [`Oracle::node_counter`]).
pub(crate) type NodeCounter = std::sync::Arc<std::sync::atomic::AtomicU64>;

impl<T: Oracle + ?Sized> Oracle for &T {
    fn values(&self, keys: &[u64], out: &mut Vec<Option<Value>>) -> Result<(), OracleError> {
        (**self).values(keys, out)
    }

    fn is_complete(&self) -> bool {
        (**self).is_complete()
    }

    fn outcomes(&self, keys: &[u64], out: &mut Vec<Option<i32>>) -> Result<(), OracleError> {
        (**self).outcomes(keys, out)
    }

    fn is_value(&self, key: u64, value: Value) -> Result<Option<bool>, OracleError> {
        (**self).is_value(key, value)
    }

    fn node_counter(&self) -> Option<NodeCounter> {
        (**self).node_counter()
    }
}

/// A book a search may consult: every state it holds with its exact value.
/// A database of the game is one.
pub trait BookSource: Oracle {
    /// Every state of the book with its value, in increasing key order; an
    /// item is an error where the book is found damaged.
    fn entries(&self) -> Box<dyn Iterator<Item = Result<(u64, Value), Corrupted>> + '_>;
}
