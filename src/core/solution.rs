//! A solved game in its record layout, as the solvers produce it and the
//! database writer stores it: sorted records of canonical states, or a
//! dense table of every key.

use memmap2::MmapMut;

use super::layout::{LayoutKind, RecordLayout};
use super::value::Value;

/// The solved game: every reachable canonical state with its value.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The records, strictly ascending, packed with [`Solution::layout`].
    pub records: Vec<u64>,
    /// The record layout.
    pub layout: RecordLayout,
    /// The canonical start state.
    pub start: u64,
    /// The number of canonical states in each layer.
    pub layer_sizes: Vec<usize>,
    /// True when the records hold every reachable canonical state (the
    /// header's complete flag); false for a partial database such as
    /// Connect Four's opening book.
    pub complete: bool,
}

impl Solution {
    /// The value of a canonical state, if it is reachable.
    pub fn get(&self, key: u64) -> Option<Value> {
        let first = self.layout.first_record(key);
        let i = self.records.partition_point(|&r| r < first);
        let r = *self.records.get(i)?;
        (self.layout.key(r) == key).then(|| self.layout.value(r))
    }
}

/// The solved table: the net value of every key, for its side to move.
#[derive(Debug)]
pub struct DenseSolution {
    /// Entry `k` is the net value of key `k` (a signed byte), in anonymous
    /// memory so that the pages are only touched when written.
    table: MmapMut,
    /// The record layout ([`RecordLayout::dense`]).
    pub layout: RecordLayout,
    /// The canonical start state.
    pub start: u64,
}

impl DenseSolution {
    /// A table of `2^key_bits` entries, laid out by `layout`
    /// ([`RecordLayout::dense`]), whose game starts at `start`.
    pub(crate) fn new(table: MmapMut, layout: RecordLayout, start: u64) -> DenseSolution {
        DenseSolution {
            table,
            layout,
            start,
        }
    }

    /// The entries as stored: entry `k` is key `k`'s net value as a two's
    /// complement byte.
    pub fn bytes(&self) -> &[u8] {
        &self.table
    }

    /// The entries as signed values.
    pub fn values(&self) -> &[i8] {
        bytemuck::cast_slice(&self.table)
    }

    /// The value of any key (canonical or not).
    pub fn get(&self, key: u64) -> Option<Value> {
        let byte = *self.table.get(usize::try_from(key).ok()?)?;
        Some(self.layout.dense_value(key, byte))
    }
}

/// A solved game, in the layout its database uses.
#[derive(Debug)]
pub enum Solved {
    /// Sorted records of the canonical states.
    Sorted(Solution),
    /// A dense table of every key.
    Dense(DenseSolution),
}

impl Solved {
    /// The value of a canonical state.
    pub fn get(&self, key: u64) -> Option<Value> {
        match self {
            Solved::Sorted(s) => s.get(key),
            Solved::Dense(d) => d.get(key),
        }
    }

    /// How the file's records are arranged.
    pub(crate) fn kind(&self) -> LayoutKind {
        match self {
            Solved::Sorted(_) => LayoutKind::Sorted,
            Solved::Dense(_) => LayoutKind::Dense,
        }
    }

    /// The record layout.
    pub(crate) fn layout(&self) -> RecordLayout {
        match self {
            Solved::Sorted(s) => s.layout,
            Solved::Dense(d) => d.layout,
        }
    }

    /// The canonical start state.
    pub(crate) fn start(&self) -> u64 {
        match self {
            Solved::Sorted(s) => s.start,
            Solved::Dense(d) => d.start,
        }
    }

    /// True when every reachable state is stored (always, for a dense
    /// table).
    pub fn is_complete(&self) -> bool {
        match self {
            Solved::Sorted(s) => s.complete,
            Solved::Dense(_) => true,
        }
    }

    /// The number of records: sorted records, or dense entries.
    pub fn record_count(&self) -> u64 {
        match self {
            Solved::Sorted(s) => s.records.len() as u64,
            Solved::Dense(d) => d.bytes().len() as u64,
        }
    }
}

impl From<Solution> for Solved {
    fn from(s: Solution) -> Solved {
        Solved::Sorted(s)
    }
}

impl From<DenseSolution> for Solved {
    fn from(d: DenseSolution) -> Solved {
        Solved::Dense(d)
    }
}
